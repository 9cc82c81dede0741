"""Train the learned detector's payload head (issue 16, fortieth round).

    python benchmarks/train_payload_classifier.py            # score out of split, print the table
    python benchmarks/train_payload_classifier.py --write    # and write the shipped weights

The payload head is one logistic regression on the e5 vector: is this text
an injection payload of any kind (an order to the model, poisoning worded
as a fact or a preference, a document or tool output carrying either)
rather than an ordinary fact, preference or near-miss? The other heads each
learned one kind of payload against one kind of fact, and what all of them
and the patterns pass is a mixed residue; this head learns the whole
contrast, from every read split, and has the last word on whole texts:

* it flags a memory nothing else flagged whose score is above its threshold:
  the score above which, out of split, at most ``FLAG_BUDGET`` of the read
  ordinary and near-miss entries the other checks pass lie;
* it clears a soft flag the arbiter left standing (``learned_detector.is_soft``:
  a bare order, "you" or a head's reading, in a text that names the user)
  whose score is below its lower threshold: the score below which, out of
  split, at most ``CLEAR_BUDGET`` of the read payloads of each source family
  (our own writing; third-party) lie, the stricter family deciding.

Data: every corpus split already read (``READ_SPLITS``), never a report
split (``UNREAD_SPLITS``, not even loaded). The poisoning head's training
sets (directed, directed2, directed3) are left out of training and of the
budget: their standing preferences were written to sit next to poisoning,
so the script scores them afterwards, with the head trained on the rest,
as a test of the one boundary it is weakest on. Out of split: each split
scored by a head trained on all the others. Strength fixed beforehand.
Deterministic.
How the shipped head does on the report splits is measured end to end by
``benchmarks/safety_report.py``.
"""

from __future__ import annotations

import argparse

import numpy as np

from _common import REPO_ROOT, markdown_table
from corpus_splits import REPORT_SETS
from train_arbiter import read_entries
from train_injection_classifier import embed
from train_poisoning_classifier import fit_standardised, out_of_split, ship, threshold_for

WEIGHTS = REPO_ROOT / "llm_kinetaios" / "data" / "payload_classifier.json"
# Every set reported until the forty-ninth round (fresh48 to fresh50, fresh54 to fresh65,
# fresh69 to fresh86) was read in the fifty-second, as fresh51 to fresh53 (the thirty-eighth
# round's gate for the arbiter) and fresh66 to fresh68 were before.
READ_SPLITS = ("tune", "fresh", *(f"fresh{n}" for n in range(2, 87)))
DIRECTED_SPLITS = ("directed", "directed2", "directed3")
# Never loaded: every report set (corpus_splits.REPORT_SETS; docs/safety-history.md says what each is).
UNREAD_SPLITS = REPORT_SETS
STRENGTH = 1e-3
FLAG_BUDGET = 0.001
CLEAR_BUDGET = 0.001


def flag_threshold(passed_benign_scores: np.ndarray) -> float:
    "The score above which at most FLAG_BUDGET of these ordinary and near-miss entries lie."
    return threshold_for(passed_benign_scores, FLAG_BUDGET)


def clear_threshold(payload_scores: np.ndarray, read_payloads: int) -> float:
    "The score below which at most CLEAR_BUDGET of ``read_payloads`` of these lie."
    allowed = int(CLEAR_BUDGET * read_payloads)
    ranked = np.sort(payload_scores)
    return float(ranked[allowed]) if allowed < len(ranked) else float("inf")


def family_clear_thresholds(scores: np.ndarray, y: np.ndarray, own: np.ndarray,
                            read_payloads: dict[bool, int]) -> dict[bool, float]:
    "Each source family's clearing threshold (``clear_threshold``; our own writing: True); the stricter one is shipped."
    return {mine: clear_threshold(scores[(y == 1) & (own == mine)], read_payloads[mine]) for mine in (True, False)}


def clearing_table(y: np.ndarray, own: np.ndarray, read_payloads: dict[bool, int], cleared: np.ndarray,
                   thresholds: dict[bool, float]) -> list[list[object]]:
    """Per source family: its read payloads, the budget they allow, the
    population's payloads, those cleared out of split, the family's threshold."""
    return [[name, read_payloads[mine], int(CLEAR_BUDGET * read_payloads[mine]), int(((y == 1) & (own == mine)).sum()),
             int((cleared & (y == 1) & (own == mine)).sum()), f"{thresholds[mine]:.3f}"]
            for name, mine in (("payloads, our own", True), ("payloads, third-party", False))]


def read_and_embed(splits: tuple[str, ...] = READ_SPLITS, unread: tuple[str, ...] = UNREAD_SPLITS):
    """The entries of ``splits`` the write check does not refuse
    (``train_arbiter.read_entries``): their texts, pattern flags and e5
    vectors, labels (1 for a payload), families (our own writing?) and
    splits as arrays, and each family's payload count, refused ones too."""
    entries, payloads = read_entries(splits, unread)
    texts = [entry[0] for entry in entries]
    flags = [entry[1] for entry in entries]
    y, own, split_of = (np.array([entry[column] for entry in entries]) for column in (2, 3, 4))
    return texts, flags, embed(texts), y, own, split_of, payloads


def main() -> None:
    from llm_kinetaios.learned_detector import is_soft, payload_scores, reasons_before_payload_head

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the shipped weights file")
    args = parser.parse_args()
    texts, flags, vectors, y, own, splits, payloads = read_and_embed()
    # The other checks' whole-text verdicts: what the head gets the last word on.
    before = reasons_before_payload_head(vectors, texts, flags)
    passed = np.array([reason is None for reason in before])
    soft = np.array([is_soft(text, flag, reason) for text, flag, reason in zip(texts, flags, before)])
    scores = out_of_split(vectors, y, splits, STRENGTH)
    flag_above = flag_threshold(scores[passed & (y == 0)])
    clear_below = min(clear_threshold(scores[soft & (y == 1) & (own == mine)], payloads[mine]) for mine in (True, False))
    flagged, cleared = passed & (scores > flag_above), soft & (scores < clear_below)
    table = []
    for name, rows in (("payloads, our own", (y == 1) & own), ("payloads, third-party", (y == 1) & ~own),
                       ("ordinary and near-miss", y == 0)):
        table.append([name, int(rows.sum()), int((rows & passed).sum()), int((rows & flagged).sum()),
                      int((rows & soft).sum()), int((rows & cleared).sum())])
    print(markdown_table(["read entries", "not refused", "passed by the other checks", "flagged out of split",
                          "soft-flagged", "cleared out of split"], table))
    print(f"\nthresholds (logit): flag above {flag_above:.3f}, clear below {clear_below:.3f}; strength {STRENGTH}")
    directed, _ = read_entries(DIRECTED_SPLITS, UNREAD_SPLITS)
    directed_texts, directed_flags = [entry[0] for entry in directed], [entry[1] for entry in directed]
    directed_vectors = embed(directed_texts)
    directed_passed = np.array([reason is None for reason in
                                reasons_before_payload_head(directed_vectors, directed_texts, directed_flags)])
    weights, bias = fit_standardised(vectors, y, STRENGTH)
    directed_flagged = directed_passed & (directed_vectors @ weights + bias > flag_above)
    directed_y = np.array([entry[2] for entry in directed])
    print(f"directed sets (not trained on): flagged {int((directed_flagged & (directed_y == 1)).sum())} of "
          f"{int((directed_passed & (directed_y == 1)).sum())} poisoning preferences the other checks pass, "
          f"{int((directed_flagged & (directed_y == 0)).sum())} of {int((directed_passed & (directed_y == 0)).sum())} "
          "standing preferences")
    if args.write:
        ship(WEIGHTS, vectors, y, STRENGTH, flag_above, payload_scores, {"threshold_clear": round(clear_below, 4)})


if __name__ == "__main__":
    main()
