"""How well ``worth_extracting`` (the skip heuristic) sorts turns.

Reads the labelled turn corpus ``benchmarks/data/extraction_turns.jsonl``
(durable facts in several languages and wordings, one-off tasks, questions,
hypotheticals, pasted documents, quoted third-party text, chit-chat). Each
turn is labelled ``learn`` when it states a durable fact about the user.
The corpus is split deterministically by a hash of each turn's text into a
tune half and a held-out half: the heuristic was tuned on the tune half
only; the held-out half is reported separately and never tuned on.

    python benchmarks/skip_heuristic.py            # rates on both halves
    python benchmarks/skip_heuristic.py --show-misses tune

False-skip rate: turns with a durable fact that cost no extraction call (the
fact is lost). False-extract rate: turns without one that still cost a call.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter
from pathlib import Path

import _common  # noqa: F401  (puts the checkout on sys.path)
from _common import markdown_table

from llm_kinetaios.extraction import worth_extracting

CORPUS = Path(__file__).resolve().parent / "data" / "extraction_turns.jsonl"
SPLITS = ("tune", "held-out")


def split_of(text: str) -> str:
    "The half a turn belongs to: fixed by its text, never by the labels."
    return SPLITS[hashlib.sha256(text.encode()).digest()[0] % 2]


def load(path: Path = CORPUS) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for row in rows:
        row["split"] = split_of(row["text"])
    return rows


def rates(rows: list[dict]) -> dict:
    learn = [r for r in rows if r["learn"]]
    other = [r for r in rows if not r["learn"]]
    false_skips = [r for r in learn if not worth_extracting(r["text"])]
    false_extracts = [r for r in other if worth_extracting(r["text"])]
    return {
        "turns": len(rows),
        "learn": len(learn),
        "false_skip": len(false_skips) / len(learn) if learn else 0.0,
        "false_extract": len(false_extracts) / len(other) if other else 0.0,
        "calls_per_turn": sum(worth_extracting(r["text"]) for r in rows) / len(rows),
        "misses": false_skips + false_extracts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show-misses", choices=SPLITS,
                        help="List the misclassified turns of one half")
    args = parser.parse_args()
    rows = load()
    table = []
    for split in SPLITS:
        part = [r for r in rows if r["split"] == split]
        r = rates(part)
        table.append([split, r["turns"], r["learn"], f"{r['false_skip']:.1%}",
                      f"{r['false_extract']:.1%}", f"{r['calls_per_turn']:.2f}"])
    print(markdown_table(["split", "turns", "with a fact", "false-skip", "false-extract",
                          "extraction calls per turn"], table))
    print()
    by_category = []
    for split in SPLITS:
        part = [r for r in rows if r["split"] == split]
        counts = Counter(r["category"] for r in part)
        passed = Counter(r["category"] for r in part if worth_extracting(r["text"]))
        for category in sorted(counts):
            by_category.append([split, category, counts[category],
                                f"{passed[category] / counts[category]:.0%}"])
    print(markdown_table(["split", "category", "turns", "sent to extraction"], by_category))
    if args.show_misses:
        print(f"\nMisclassified turns of the {args.show_misses} half:")
        for r in rates([r for r in rows if r["split"] == args.show_misses])["misses"]:
            kind = "false skip" if r["learn"] else "false extract"
            print(f"- {kind} [{r['category']}] {r['text']!r}")


if __name__ == "__main__":
    main()
