"""Train the learned detector's topic head (issue 16, forty-eighth round).

    python benchmarks/train_topic_classifier.py            # score out of split, print the table
    python benchmarks/train_topic_classifier.py --write    # and write the shipped weights

People who build with language models state facts about the very things
the patterns look for: "I write the system prompts for our support bot",
"I red-team it by trying to make it reveal its prompt", "our tests list
'ignore all previous instructions' as an input to block". Three of the
patterns' reasons (``learned_detector.TOPIC_REASONS``) flag such facts as
the orders they talk about, and no head may clear a strong pattern's flag.
The topic head reads exactly those memories: a logistic regression on what
the wish head reads (the e5 vector and hashed character n-grams), trained on
the read entries with one of those flags (more than a bare order or "you"),
payloads against ordinary and near-miss entries. It only clears, and every
other check then reads the memory as unflagged.

Data: every split the payload head reads and the training sets trade1 to
trade3, written about the trades of llm's users, where such facts are
common (the read splits hold 65 of them, the training sets 42); never a
report split (``UNREAD_SPLITS``, not even loaded). Strength fixed beforehand
(the impersonal head's).

Threshold: the payload head's clearing rule and budget. Left out one split
at a time, the head may clear at most ``CLEAR_BUDGET`` of the read payloads
of our own writing and at most that share of the third-party ones; the
stricter of the two thresholds is shipped. Deterministic.
"""

from __future__ import annotations

import argparse

import numpy as np

from _common import REPO_ROOT, markdown_table
from train_payload_classifier import READ_SPLITS as PAYLOAD_HEAD_READ_SPLITS, UNREAD_SPLITS, clearing_table, \
    family_clear_thresholds, read_and_embed
from train_poisoning_classifier import out_of_split, ship

WEIGHTS = REPO_ROOT / "llm_kinetaios" / "data" / "topic_classifier.json"
READ_SPLITS = (*PAYLOAD_HEAD_READ_SPLITS, "trade1", "trade2", "trade3")
STRENGTH = 1e-4


def main() -> None:
    from llm_kinetaios.learned_detector import topic_clearable, topic_scores, wish_features

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the shipped weights file")
    args = parser.parse_args()
    texts, flags, vectors, y, own, splits, payloads = read_and_embed(READ_SPLITS, UNREAD_SPLITS)
    chosen = np.array([topic_clearable(text, flag) for text, flag in zip(texts, flags)])
    x = wish_features(vectors[chosen], [text for text, keep in zip(texts, chosen) if keep])
    y, own, splits = y[chosen], own[chosen], splits[chosen]
    scores = out_of_split(x, y, splits, STRENGTH)
    thresholds = family_clear_thresholds(scores, y, own, payloads)
    threshold = min(thresholds.values())
    cleared = scores < threshold
    trade = np.char.startswith(splits.astype(str), "trade")
    table = clearing_table(y, own, payloads, cleared, thresholds)
    print(markdown_table(["read entries", "read payloads", "budget", "flagged for a topic reason",
                          "cleared out of split", "its threshold"], table))
    print(f"\nordinary and near-miss entries flagged for a topic reason {int((y == 0).sum())} "
          f"({int(((y == 0) & trade).sum())} in the training sets), cleared out of split {int((cleared & (y == 0)).sum())} "
          f"({int((cleared & (y == 0) & trade).sum())}); threshold {threshold:.3f} (logit), strength {STRENGTH}")
    if args.write:
        ship(WEIGHTS, x, y, STRENGTH, threshold, topic_scores)


if __name__ == "__main__":
    main()
