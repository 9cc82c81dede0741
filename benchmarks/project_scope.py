#!/usr/bin/env python3
"""What project scope and pins add to a turn's recall.

Run from the repository root:

    python benchmarks/project_scope.py
    python benchmarks/project_scope.py --sizes 10000,100000 --repeats 7 --other-share 0.3

A temporary store holds N memories with random 384-dimensional vectors (as
recall_speed.py builds them); a share of them (``--other-share``) belong to
other projects. Timed, as medians, with a precomputed query vector:

  all        recall with ``scope all``: no mask (the baseline)
  project    recall with ``scope project``: other projects' ids looked up and
             masked out of the cosine scores
  +pins      the same plus choosing the pinned memories (10 pinned), as a
             memory model does each turn
  identity   projects.current_project() in this checkout (walk up to .git,
             read its config)

Ratios are against ``all`` in the same run; the machine is shared, so compare
ratios rather than milliseconds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown_table, median_ms  # noqa: E402
from recall_speed import MODEL_ID, FixedQueryModel, synthetic_text, unit_vectors  # noqa: E402

import numpy as np  # noqa: E402

from llm_kinetaios.config import Settings  # noqa: E402
from llm_kinetaios.embeddings import to_blob  # noqa: E402
from llm_kinetaios.pins import pinned_for_turn  # noqa: E402
from llm_kinetaios.projects import current_project, out_of_scope  # noqa: E402
from llm_kinetaios.recall import recall  # noqa: E402
from llm_kinetaios.store import MemoryStore, now_ms  # noqa: E402

HERE = "github.com/example/here"


def build(path: Path, size: int, other_share: float, rng) -> MemoryStore:
    vectors = unit_vectors(rng, size)
    others = rng.random(size) < other_share
    store = MemoryStore.open(path)
    for start in range(0, size, 10_000):
        store.add_many([
            dict(content=synthetic_text(rng, i), source="import", embedding=to_blob(vectors[i]),
                 embedding_model=MODEL_ID,
                 project=f"github.com/example/other-{i % 20}" if others[i] else None,
                 pinned_at=now_ms() if i < 10 else None)
            for i in range(start, min(start + 10_000, size))
        ])
    return store


def measure(size: int, args, rng, tmp: Path) -> dict:
    store = build(tmp / f"scope-{size}.db", size, args.other_share, rng)
    query = FixedQueryModel(unit_vectors(rng, 1)[0])
    store.current_vectors(MODEL_ID)  # warm the vector cache, as every later turn finds it

    def run(scope: str, pins: bool = False):
        settings = Settings(scope=scope, min_similarity=-1.0, ranking="cosine")
        excluded = out_of_scope(store, settings, HERE)
        if pins:
            pinned_for_turn(store, settings.pinned_tokens, excluded)
        result = recall(store, "tea", settings, embedding_model=query, mark_used=False,
                        excluded=excluded)
        assert len(result.memories) == settings.recall_limit
        return result

    shown = run("project").memories
    assert all(m.project in (None, HERE) for m in shown)  # the mask holds
    r = args.repeats
    return {
        "size": size,
        "all": median_ms(lambda: run("all"), r),
        "project": median_ms(lambda: run("project"), r),
        "pins": median_ms(lambda: run("project", pins=True), r),
        "identity": median_ms(current_project, r),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--other-share", type=float, default=0.3,
                        help="share of memories belonging to other projects")
    args = parser.parse_args()
    rng = np.random.default_rng(17)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            m = measure(size, args, rng, Path(tmp))
            rows.append([
                f"{m['size']:,}", f"{m['all']:.1f}", f"{m['project']:.1f}",
                f"{m['project'] / m['all']:.2f}x", f"{m['pins']:.1f}",
                f"{m['pins'] / m['all']:.2f}x", f"{m['identity']:.2f}",
            ])
    print(f"Recall, ms (median of {args.repeats}); {args.other_share:.0%} of memories in other projects")
    print(markdown_table(["memories", "all", "project", "ratio", "project+pins", "ratio",
                          "current_project()"], rows))


if __name__ == "__main__":
    main()
