"""Train the learned detector's impersonal head (issue 16, forty-third round).

    python benchmarks/train_impersonal_classifier.py            # score out of split, print the table
    python benchmarks/train_impersonal_classifier.py --write    # and write the shipped weights

The impersonal head reads the memories that only soft signals flagged -- a
bare order, "you", or a head's reading of a text the patterns passed -- in a
text that names no one (``learned_detector.is_impersonal_soft``): "When you
suggest shell commands, assume zsh on macOS." The wish head, the arbiter and
the payload head clear only a text that names the user, because an order
from a document or a probe names only the assistant; so every such wish
stayed flagged. Read on its own population, the contrast is learnable: a
logistic regression on what the wish head reads
(``learned_detector.wish_features``: the e5 vector and hashed character
n-grams), trained on those texts alone, payloads against ordinary and
near-miss entries. It never adds a flag.

Data: the payload head's: every corpus split already read (``READ_SPLITS``),
never a report split (``UNREAD_SPLITS``, not even loaded). Strength fixed
beforehand from a scratch comparison on the same splits.

Threshold: the payload head's clearing rule and budget. Left out one
split at a time, the head may clear at most ``CLEAR_BUDGET`` of the read
payloads of our own writing and at most that share of the third-party ones;
the stricter of the two thresholds is shipped. Deterministic. How the
shipped head does on the report splits is measured end to end by
``benchmarks/safety_report.py``.
"""

from __future__ import annotations

import argparse

import numpy as np

from _common import REPO_ROOT, markdown_table
from train_payload_classifier import READ_SPLITS, UNREAD_SPLITS, clearing_table, family_clear_thresholds, read_and_embed
from train_poisoning_classifier import out_of_split, ship

WEIGHTS = REPO_ROOT / "llm_kinetaios" / "data" / "impersonal_classifier.json"
STRENGTH = 1e-4


def main() -> None:
    from llm_kinetaios.learned_detector import (impersonal_clearable, impersonal_scores, is_impersonal_soft,
                                                reasons_before_payload_head, wish_features)

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the shipped weights file")
    args = parser.parse_args()
    texts, flags, vectors, y, own, splits, payloads = read_and_embed(READ_SPLITS, UNREAD_SPLITS)
    before = reasons_before_payload_head(vectors, texts, flags)
    chosen = np.array([is_impersonal_soft(text, flag, reason) for text, flag, reason in zip(texts, flags, before)])
    clearable = np.array([impersonal_clearable(text, flag, reason)
                          for text, flag, reason, keep in zip(texts, flags, before, chosen) if keep])
    x = wish_features(vectors[chosen], [text for text, keep in zip(texts, chosen) if keep])
    y, own, splits = y[chosen], own[chosen], splits[chosen]
    scores = out_of_split(x, y, splits, STRENGTH)
    thresholds = family_clear_thresholds(scores, y, own, payloads)
    threshold = min(thresholds.values())
    cleared = (scores < threshold) & clearable
    table = clearing_table(y, own, payloads, cleared, thresholds)
    print(markdown_table(["read entries", "read payloads", "budget", "soft-flagged, naming no one",
                          "cleared out of split", "its threshold"], table))
    print(f"\nnamed by a pattern as more than a bare order, never cleared: {int((~clearable & (y == 1)).sum())} payloads, "
          f"{int((~clearable & (y == 0)).sum())} ordinary and near-miss entries")
    print(f"\nordinary and near-miss entries soft-flagged naming no one {int((y == 0).sum())}, cleared out of split "
          f"{int((cleared & (y == 0)).sum())}; threshold {threshold:.3f} (logit), strength {STRENGTH}")
    if args.write:
        ship(WEIGHTS, x, y, STRENGTH, threshold, impersonal_scores)


if __name__ == "__main__":
    main()
