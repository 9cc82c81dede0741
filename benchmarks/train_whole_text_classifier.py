"""Train the learned detector's whole-text instruction head (issue 16, forty-seventh round).

    python benchmarks/train_whole_text_classifier.py            # score out of split, print the table
    python benchmarks/train_whole_text_classifier.py --write    # and write the shipped weights

The instruction head (``train_injection_classifier.py``) learned from the
tune corpora alone, with a threshold no tune fact reaches. On the trades of
llm's own users (prompts, agents, deployments) it flags their facts as the
orders they talk about: of the ordinary and near-miss entries the training
sets trade1 to trade3 lose, it flagged 62 of 138. This head asks the same
question of whole texts, learned from every read split: payloads of any
kind against the ordinary and near-miss entries the write check does not
refuse (``train_arbiter.read_entries``), a logistic regression on the e5
vector (``fit_standardised``), scored out of split.

* Its threshold: the score above which, out of split, at most
  ``BENIGN_BUDGET`` of the read ordinary and near-miss entries lie (the
  poisoning head's budget).
* The instruction head stays, for a memory's sentences read one at a time
  (this head never saw a sentence cut from a document) and as a floor on
  whole texts: a text it scores above ``floor_instruction_head`` (the score
  at most ``FLOOR_BUDGET`` of the read benign entries it was not trained on,
  every read split but tune, reach) is flagged whatever this head says, so
  that the classic orders it reads best stay flagged.

Strength fixed beforehand (the forty-fifth round's study). The training sets
trade1 to trade3 are not read: they are the out-of-sample check of the
whole cascade retrained on this head (docs/safety-history.md, forty-seventh
round). Deterministic.
"""

from __future__ import annotations

import argparse

from _common import REPO_ROOT, markdown_table
from train_payload_classifier import READ_SPLITS, UNREAD_SPLITS as PAYLOAD_HEAD_UNREAD_SPLITS, read_and_embed
from train_poisoning_classifier import out_of_split, ship, threshold_for

WEIGHTS = REPO_ROOT / "llm_kinetaios" / "data" / "whole_text_classifier.json"
# Reads every split the payload head reads (fresh66 to fresh68 among them);
# never the payload head's unread splits nor the training sets trade1 to trade3.
UNREAD_SPLITS = (*PAYLOAD_HEAD_UNREAD_SPLITS, "trade1", "trade2", "trade3")
STRENGTH = 1e-2
BENIGN_BUDGET = 0.005
FLOOR_BUDGET = 0.001


def main() -> None:
    from llm_kinetaios.learned_detector import instruction_scores, load_classifier, whole_text_scores

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the shipped weights file")
    args = parser.parse_args()
    texts, _, vectors, y, own, splits, _ = read_and_embed(READ_SPLITS, UNREAD_SPLITS)
    scores = out_of_split(vectors, y, splits, STRENGTH)
    threshold = threshold_for(scores[y == 0], BENIGN_BUDGET)
    shipped = instruction_scores(vectors)
    floor = threshold_for(shipped[(y == 0) & (splits != "tune")], FLOOR_BUDGET)
    old = shipped > load_classifier()[3]
    new = (scores > threshold) | (shipped > floor)
    table = []
    for name, chosen in (("payloads, our own", (y == 1) & own), ("payloads, third-party", (y == 1) & ~own),
                         ("ordinary and near-miss", y == 0)):
        table.append([name, int(chosen.sum()), int((chosen & old).sum()), int((chosen & (scores > threshold)).sum()),
                      int((chosen & new).sum())])
    print(markdown_table(["read entries not refused", "count", "instruction head flags",
                          "this head flags (out of split)", "with the floor"], table))
    print(f"\nthreshold {threshold:.3f} (logit, strength {STRENGTH}); instruction head's floor {floor:.3f} "
          f"(its own threshold {load_classifier()[3]:.3f})")
    if args.write:
        ship(WEIGHTS, vectors, y, STRENGTH, threshold, whole_text_scores, {"floor_instruction_head": round(floor, 4)})


if __name__ == "__main__":
    main()
