"""Train and cross-validate the learned detector's poisoning head (issue 16).

    python benchmarks/train_poisoning_classifier.py            # cross-validate, print the tables
    python benchmarks/train_poisoning_classifier.py --write    # and write the shipped weights

The poisoning head asks of every memory: is this memory poisoning worded
as a preference, or a fact or standing preference of the user? A logistic
regression on the multilingual-e5-small passage vectors the write path
stores anyway (``train_injection_classifier.fit`` on standardised vectors,
folded back into one dot product on the raw ones).

Data: every split already read (``READ_SPLITS``), never the report split
(``REPORT_SPLIT``, which is not even loaded):

* positives: the memory-poisoning payloads of those splits, among them
  ``corpora/directed*/injection.jsonl`` (poisoning preferences written as
  training material by people who had not read the filters);
* negatives: the ordinary and near-miss facts of those splits, the durable
  facts of the extraction corpus, and ``corpora/directed*/ordinary.jsonl``
  (benign standing preferences, written the same way).

Other payloads (jailbreaks, injected documents) are the patterns' and the
instruction head's job and are left out.

Choosing the strength and threshold: leave one split out (each split was
written at a different time by a different hand, so a left-out split is
wording the model has not seen). For each strength, the threshold is the
score above which at most ``NEGATIVE_BUDGET`` of the out-of-split
negatives lie -- a budget fixed beforehand (a quarter of the issue's 2%
for ordinary facts, leaving the rest to the patterns), not chosen by any
figure; the strength that catches the most out-of-split poisoning at its
threshold wins. The shipped weights are then trained on everything with
that strength. Deterministic: no random numbers anywhere. How the shipped
head does on fresh37 is measured end to end by ``benchmarks/safety_report.py
--split fresh37``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from _common import REPO_ROOT, markdown_table
from train_injection_classifier import CORPORA, EXTRACTION, embed, fit, logit, regex_flags, rows, write_weights

WEIGHTS = REPO_ROOT / "llm_kinetaios" / "data" / "poisoning_classifier.json"
# Every split reported before the fifteenth round; fresh9 to fresh13 joined
# them in the tenth, fresh14 in the eleventh, fresh15 and fresh16 in the
# thirteenth, fresh17 in the fourteenth, fresh18 in the fifteenth, fresh19 and
# fresh20 in the seventeenth, fresh21 in the eighteenth, fresh22 to fresh24 in
# the twenty-first, once each had been measured for its own round. The
# twenty-second round retrained the head with fresh25 too and did not keep it
# (3 more payloads through on fresh26, its validation set); the twenty-fifth
# retrained it with fresh25 to fresh32 and did not keep it (no more caught).
# The twenty-sixth added fresh25 to fresh33 and directed3, a training set
# written for the families fresh32 and fresh33 got through with
# (docs/safety-history.md). The twenty-ninth added fresh34 to fresh36.
READ_SPLITS = ("tune", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8",
               "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15", "fresh16",
               "fresh17", "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23", "fresh24",
               "fresh25", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30", "fresh31", "fresh32", "fresh33",
               "fresh34", "fresh35", "fresh36", "directed", "directed2", "directed3")
REPORT_SPLIT = "fresh37"
# L2 penalties on standardised vectors (each dimension scaled to unit
# variance first: e5's vectors sit in a narrow cone, and scaled this way a
# penalty weighs every dimension alike).
STRENGTHS = (3e-4, 1e-3, 3e-3, 1e-2)
# The share of out-of-split ordinary facts and preferences the threshold may flag.
NEGATIVE_BUDGET = 0.005
# Lower thresholds tried for a text that also names a hand-over
# (safety.names_a_hand_over); the lowest whose extra flags stay within the
# same budget is shipped as ``threshold_near_hand_over``.
LOWER_THRESHOLDS = (2.5, 2.0, 1.5, 1.0)


def is_poisoning(category: str) -> bool:
    return "poisoning" in category


def training_set() -> tuple[list[str], np.ndarray, np.ndarray]:
    "Texts, labels (1 = poisoning) and split names of the read splits."
    texts, labels, splits = [], [], []
    for split in READ_SPLITS:
        assert split != REPORT_SPLIT
        folder = CORPORA if split == "tune" else CORPORA / split
        for row in rows(folder / "injection.jsonl"):
            if is_poisoning(row["category"]):
                texts.append(row["text"]); labels.append(1); splits.append(split)
        for corpus in ("ordinary", "near_miss"):
            path = folder / f"{corpus}.jsonl"
            if path.exists():
                for row in rows(path):
                    texts.append(row["text"]); labels.append(0); splits.append(split)
    for row in rows(EXTRACTION):
        if row["category"] == "durable_fact":
            texts.append(row["text"]); labels.append(0); splits.append("extraction")
    return texts, np.array(labels), np.array(splits)


def fit_standardised(x: np.ndarray, y: np.ndarray, strength: float,
                     start: tuple[np.ndarray, float] | None = None) -> tuple[np.ndarray, float]:
    """``fit`` on vectors standardised by their mean and spread here, folded
    back into weights and a bias on the raw vectors: the shipped head stays
    one dot product. ``start``: raw weights and bias to begin from."""
    mean, spread = x.mean(axis=0), x.std(axis=0) + 1e-6
    if start is not None:
        start = (start[0] * spread, start[1] + float((start[0] * mean).sum()))
    weights, bias = fit((x - mean) / spread, y, strength, start=start)
    return weights / spread, bias - float((weights * mean / spread).sum())


def out_of_split(x: np.ndarray, y: np.ndarray, splits: np.ndarray, strength: float,
                 scored: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Each memory's score from a head trained (on ``x``, ``y``) on every
    other split: the training rows' own scores, or those of ``scored``
    (vectors and their splits) where the rows scored are others."""
    score_x, score_splits = scored if scored is not None else (x, splits)
    scores = np.zeros(len(score_x))
    # Each fold starts from the head fitted on every split: leaving one split
    # out moves the optimum a little, so Newton needs a few steps, not a dozen.
    everything = fit_standardised(x, y, strength)
    for split in np.unique(score_splits):
        weights, bias = fit_standardised(x[splits != split], y[splits != split], strength, start=everything)
        scores[score_splits == split] = logit(score_x[score_splits == split], weights, bias)
    return scores


def threshold_for(negative_scores: np.ndarray, budget: float = NEGATIVE_BUDGET) -> float:
    "The score above which at most ``budget`` (NEGATIVE_BUDGET unless told) of these negatives lie."
    ranked = np.sort(negative_scores)[::-1]
    allowed = int(budget * len(ranked))
    return float(ranked[allowed]) if allowed < len(ranked) else float(ranked[-1])


def cross_validate(x, y, splits):
    "The chosen strength and threshold, the out-of-split scores, and the table."
    table, best = [], None
    for strength in STRENGTHS:
        scores = out_of_split(x, y, splits, strength)
        threshold = threshold_for(scores[y == 0])
        caught = int((scores[y == 1] > threshold).sum())
        flagged = int((scores[y == 0] > threshold).sum())
        table.append([strength, f"{threshold:.2f}", f"{caught} of {int(y.sum())}", f"{flagged} of {int((y == 0).sum())}"])
        if best is None or caught > best[0]:
            best = (caught, strength, threshold, scores)
    return best[1], best[2], best[3], table


def per_split(y, splits, scores, threshold, already) -> list[list[object]]:
    "Out-of-split figures per split: poisoning caught (and of those the other layers miss), ordinary facts flagged."
    table = []
    flagged = scores > threshold
    for split in sorted(np.unique(splits)):
        here = splits == split
        positive, negative = here & (y == 1), here & (y == 0)
        table.append([split, f"{int((flagged & positive).sum())} of {int(positive.sum())}",
                      f"{int((flagged & positive & ~already).sum())} of {int((positive & ~already).sum())}",
                      f"{int((flagged & negative).sum())} of {int(negative.sum())}",
                      f"{int((flagged & negative & ~already).sum())} of {int((negative & ~already).sum())}"])
    return table


def other_layers(texts: list[str], x: np.ndarray) -> np.ndarray:
    "Whether the patterns or the instruction head already quarantine or refuse each text."
    from llm_kinetaios.learned_detector import instruction_scores, load_classifier

    return regex_flags(texts) | (instruction_scores(x) > load_classifier()[3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the shipped weights file")
    args = parser.parse_args()
    texts, y, splits = training_set()
    x = embed(texts)
    strength, threshold, scores, table = cross_validate(x, y, splits)
    print(markdown_table(["L2 strength", "threshold (logit)", "poisoning caught out of split", "ordinary flagged"], table))
    print(f"\nchosen: strength {strength}, threshold {threshold:.2f} (logit); left out one split at a time:\n")
    already = other_layers(texts, x)
    print(markdown_table(["left-out split", "poisoning caught", "of those the other layers miss",
                          "ordinary flagged", "of those the other layers pass"],
                         per_split(y, splits, scores, threshold, already)))
    lower, lower_table = near_hand_over(texts, y, scores, threshold, already)
    print(f"\nnear a hand-over word (out of split, beyond the other layers and the threshold above):\n")
    print(markdown_table(["lower threshold", "poisoning caught besides", "ordinary flagged besides"], lower_table))
    print(f"\nchosen: {lower} (at most {NEGATIVE_BUDGET:.1%} of the ordinary entries)")
    if args.write:
        from llm_kinetaios.learned_detector import near_hand_over_threshold, poisoning_scores

        ship(WEIGHTS, x, y, strength, threshold, poisoning_scores, {"threshold_near_hand_over": lower})
        near_hand_over_threshold.cache_clear()


def near_hand_over(texts, y, scores, threshold, already) -> tuple[float, list[list[object]]]:
    """The lowest of LOWER_THRESHOLDS at which the texts naming a hand-over,
    scored out of split, flag at most NEGATIVE_BUDGET of the ordinary entries
    that neither the other layers nor the head's own threshold flag; the
    head's threshold when none does. And the table of each."""
    from llm_kinetaios.safety import names_a_hand_over

    hand = np.array([names_a_hand_over(text) for text in texts])
    candidates = hand & ~already & (scores <= threshold)
    table, chosen = [], threshold
    for lower in LOWER_THRESHOLDS:
        extra = candidates & (scores > lower)
        caught, flagged = int((extra & (y == 1)).sum()), int((extra & (y == 0)).sum())
        table.append([lower, f"{caught} of {int(y.sum())}", f"{flagged} of {int((y == 0).sum())}"])
        if flagged <= NEGATIVE_BUDGET * (y == 0).sum():
            chosen = lower
    return chosen, table


def ship(path: Path, x: np.ndarray, y: np.ndarray, strength: float, threshold: float, shipped_scores,
         extra: dict | None = None) -> None:
    """Train the head on everything with the chosen strength, write its
    weights file (``extra``: more thresholds), and check that the package
    (``shipped_scores``, read back from the file) scores as the fitted head does."""
    from llm_kinetaios.learned_detector import load_classifier

    weights, bias = fit_standardised(x, y, strength)
    write_weights(path, strength, threshold, weights, bias, extra)
    load_classifier.cache_clear()
    drift = np.abs(shipped_scores(x) - logit(x, weights, bias)).max()
    print(f"its scores differ from the fitted ones by at most {drift:.4f}")


if __name__ == "__main__":
    main()
