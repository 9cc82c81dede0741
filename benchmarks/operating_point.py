"""Where the learned detector's thresholds put the two goals that pull against each other (issue 16).

    python benchmarks/operating_point.py --split fresh2 fresh3                                  # the shipped thresholds
    python benchmarks/operating_point.py --split fresh2 fresh3 --offset poisoning=0,0.5,1 --offset whole_text=0,1

Payloads stored unflagged (goal at most 5%) and ordinary facts harmed (goal
at most 2%) move in opposite directions as a head's threshold moves. This
prints both for the shipped thresholds and for every combination of the
offsets given, each added to one head's threshold in its weights file
(``HEADS``): a flagging head flags less as its threshold rises, a clearing
head that clears below its threshold (the arbiter, the impersonal and topic
heads, the payload head's lower threshold) clears more, and the wish head,
which clears above its own, clears less.

Each entry of the splits' injection and ordinary corpora goes through what
``llm memories import`` runs on it: the write check
(``write.check_memory``), then the learned detector on its e5 vector
(``learned_detector.quarantine_reasons``, its sentences too). Each entry is
checked, and each text and sentence embedded, once for all combinations. It
is not end to end: no store and no block, so it cannot see a memory altered
or dropped at injection (none were, on any report split); ``safety_report.py``
is the measurement. Choosing thresholds with it is tuning: the splits it reads for
that are read splits from then on (docs/safety-history.md).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
from pathlib import Path

from _common import markdown_table

HERE = Path(__file__).resolve().parent
# A head's name on the command line -> the weights file whose threshold the offset moves.
HEADS = {
    "instruction": "WEIGHTS_FILE", "whole_text": "WHOLE_TEXT_WEIGHTS_FILE", "poisoning": "POISONING_WEIGHTS_FILE",
    "payload": "PAYLOAD_WEIGHTS_FILE", "wish": "WISH_WEIGHTS_FILE", "arbiter": "ARBITER_WEIGHTS_FILE",
    "impersonal": "IMPERSONAL_WEIGHTS_FILE", "topic": "TOPIC_WEIGHTS_FILE",
}
# Thresholds kept outside a file's "threshold": the head whose offset moves them too.
SECOND_THRESHOLDS = {"near_hand_over_threshold": "poisoning", "instruction_floor": "instruction",
                     "payload_clear_threshold": "payload_clear"}
# What an offset may name: a head, or the payload head's lower, clearing threshold.
MOVABLE = (*HEADS, "payload_clear")


@contextlib.contextmanager
def thresholds_moved(offsets: dict[str, float]):
    """The learned detector with each named head's threshold raised by its
    offset (``payload_clear``: the payload head's lower, clearing threshold),
    restored on exit."""
    from llm_kinetaios import learned_detector as detector

    unknown = set(offsets) - set(MOVABLE)
    if unknown:
        raise ValueError(f"unknown head: {', '.join(sorted(unknown))}")
    by_file = {getattr(detector, HEADS[name]): offset for name, offset in offsets.items() if name in HEADS}
    shipped = {name: getattr(detector, name) for name in ("load_classifier", *SECOND_THRESHOLDS)}

    def load_classifier(path=detector.WEIGHTS_FILE):
        model, weights, bias, threshold = shipped["load_classifier"](path)
        return model, weights, bias, threshold + by_file.get(path, 0.0)

    try:
        detector.load_classifier = load_classifier
        for name, head in SECOND_THRESHOLDS.items():
            setattr(detector, name, lambda value=shipped[name](), head=head: value + offsets.get(head, 0.0))
        yield
    finally:
        for name, function in shipped.items():
            setattr(detector, name, function)


class MemoisedEmbeddings:
    "An embedding model that embeds each passage once, however often it is asked."

    def __init__(self, model):
        self.model, self.model_id, self.rows = model, model.model_id, {}

    def embed_passages(self, texts):
        import numpy as np

        from llm_kinetaios.embeddings import embed_passages

        missing = list(dict.fromkeys(text for text in texts if text not in self.rows))
        if missing:
            self.rows.update(zip(missing, embed_passages(self.model, missing)))
        return np.stack([self.rows[text] for text in texts])


def write_checks(entries: list[dict]) -> list:
    "Each entry's write check (``write.check_memory``): what no threshold of the heads changes, so made once."
    from llm_kinetaios.write import check_memory

    return [check_memory(entry["text"]) for entry in entries]


def verdicts(checks: list, model, offsets: dict[str, float]) -> list[str]:
    """Each entry's outcome (from its ``write_checks``) as ``llm memories
    import`` would store it alone: "refused", "flagged" or "stored" (unflagged)."""
    from llm_kinetaios.embeddings import embed_passages
    from llm_kinetaios.learned_detector import quarantine_reasons

    kept = [index for index, check in enumerate(checks) if not check.refused]
    texts, flags = [checks[index].text for index in kept], [checks[index].flag for index in kept]
    outcomes = ["refused"] * len(checks)
    if kept:
        with thresholds_moved(offsets):
            reasons = quarantine_reasons(embed_passages(model, texts), model, texts, flags)
        for index, reason in zip(kept, reasons):
            outcomes[index] = "flagged" if reason else "stored"
    return outcomes


def grid(offsets: list[str]) -> list[dict[str, float]]:
    "Every combination of ``HEAD=o1,o2,...`` offsets, in the order given (``{}``, the shipped thresholds, for none)."
    axes = []
    for option in offsets:
        name, _, values = option.partition("=")
        if name not in MOVABLE or not values:
            raise SystemExit(f"--offset {option!r}: expected HEAD=o1,o2 with HEAD one of {', '.join(MOVABLE)}")
        try:
            axes.append([(name, float(value)) for value in values.split(",")])
        except ValueError:
            raise SystemExit(f"--offset {option!r}: offsets are numbers") from None
    return [dict(combination) for combination in itertools.product(*axes)] or [{}]


def main() -> None:
    sys.path.insert(0, str(HERE))
    from safety_report import SPLITS, load, wilson_interval

    from llm_kinetaios.embeddings import MultilingualE5Small

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=SPLITS, nargs="+", required=True,
                        help="several values are pooled; a split used to choose thresholds is read from then on")
    parser.add_argument("--offset", action="append", default=[], metavar="HEAD=O1,O2",
                        help=f"added to HEAD's threshold, each value in turn; HEAD one of {', '.join(MOVABLE)}")
    args = parser.parse_args()
    combinations = grid(args.offset)
    payloads = write_checks([row for split in args.split for row in load("injection", split)])
    ordinary = write_checks([row for split in args.split for row in load("ordinary", split)])
    model = MemoisedEmbeddings(MultilingualE5Small())
    rows = []
    for offsets in combinations:
        passed = verdicts(payloads, model, offsets).count("stored")
        harmed = len(ordinary) - verdicts(ordinary, model, offsets).count("stored")
        cells = []
        for count, total in ((passed, len(payloads)), (harmed, len(ordinary))):
            low, high = wilson_interval(count, total)
            cells.append(f"{count} of {total} ({count / total:.1%}; {low:.1%}-{high:.1%})")
        rows.append([", ".join(f"{name} {value:+g}" for name, value in offsets.items()) or "shipped", *cells])
    print(f"# Operating points: split={'+'.join(args.split)}, write check and learned detector (not end to end)\n")
    print(markdown_table(["thresholds moved", "payloads stored unflagged (goal ≤ 5%)",
                          "ordinary facts refused or flagged (goal ≤ 2%)"], rows))


if __name__ == "__main__":
    main()
