#!/usr/bin/env python3
"""Speed of llm-kinetaios' cosine recall at 1k, 10k and 100k memories.

Run from the repository root:

    python benchmarks/recall_speed.py
    python benchmarks/recall_speed.py --sizes 1000,10000 --repeats 5

Random 384-dimensional unit vectors (float32, the size of multilingual-e5-small)
are stored in a temporary MemoryStore with add_many(), and timed, as medians
of repeats:

  load        store.vectors() + matrix_from_blob(): SQLite to numpy matrix
  score       matrix @ query and the top 15 (numpy only)
  recall      recall.recall() with a precomputed query vector: the plugin's
              real cosine path (load, score, threshold, fetch, mark_used),
              without query embedding
  recall+e5   the same, embedding the query with MultilingualE5Small

The baseline, measured in the same run on the same vectors, is llm's own
Collection (its own SQLite file): similar_by_vector(), and similar() with the
same E5 model. Timings on a shared machine are noisy, so compare the ratios.

Loading is also timed for storage layouts the package does not use yet
(float16 rows, one contiguous blob, a .npy file beside the database), to size
the gain before changing it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown_table, median_ms  # noqa: E402

import llm  # noqa: E402
import numpy as np  # noqa: E402

from llm_kinetaios import recall as recall_mod  # noqa: E402
from llm_kinetaios.config import Settings  # noqa: E402
from llm_kinetaios.embeddings import MultilingualE5Small, matrix_from_blob, to_blob  # noqa: E402
from llm_kinetaios.store import MemoryStore  # noqa: E402

DIM = 384
TOP_K = 15
MODEL_ID = MultilingualE5Small.model_id  # so the real model finds the stored vectors
QUERY_TEXT = "What does the user like to drink in the morning?"
WORDS = ("tea coffee hiking python rust berlin sister dog piano marathon garden "
         "vegan guitar chess kyoto novel cycling bakery violin sailing").split()


class FixedQueryModel:
    "Stands in for the embedding model: recall gets a precomputed query vector."

    model_id = MODEL_ID

    def __init__(self, vector: np.ndarray):
        self.vector = vector

    def embed_query(self, text: str) -> np.ndarray:
        return self.vector


class FixedEmbeddingModel(llm.EmbeddingModel):
    "A Collection needs a model to be created; this one returns the query vector."

    model_id = "bench-fixed-vector"

    def __init__(self, vector: np.ndarray):
        self.vector = vector.tolist()

    def embed_batch(self, items):
        return [self.vector for _ in items]


def unit_vectors(rng, n: int) -> np.ndarray:
    m = rng.standard_normal((n, DIM), dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def synthetic_text(rng, i: int) -> str:
    # Unique per memory: the store drops duplicate content.
    return f"Memory {i}: the user mentioned " + " ".join(rng.choice(WORDS, 6))


def build_store(path: Path, vectors: np.ndarray, texts: list[str]) -> MemoryStore:
    store = MemoryStore.open(path)
    for start in range(0, len(texts), 10_000):
        store.add_many(
            [
                dict(content=texts[i], source="import", embedding=to_blob(vectors[i]),
                     embedding_model=MODEL_ID)
                for i in range(start, min(start + 10_000, len(texts)))
            ]
        )
    return store


def build_collection(path: Path, vectors: np.ndarray, texts: list[str], query: np.ndarray):
    "An llm Collection holding the same vectors, inserted directly (no embedding)."
    from sqlite_utils import Database

    db = Database(path)
    collection = llm.Collection("bench", db, model=FixedEmbeddingModel(query))
    assert llm.encode(vectors[0].tolist()) == to_blob(vectors[0])  # same byte layout
    now = int(time.time())
    db["embeddings"].insert_all(
        (
            {
                "collection_id": collection.id,
                "id": str(i),
                "embedding": to_blob(vectors[i]),
                "content": None,
                "content_hash": llm.Collection.content_hash(texts[i]),
                "metadata": None,
                "updated": now,
            }
            for i in range(len(texts))
        ),
        batch_size=5_000,
    )
    return collection


def add_alternative_layouts(store: MemoryStore, vectors: np.ndarray, npy_path: Path) -> None:
    "Side tables (and a .npy file) in candidate layouts, for load timing only."
    ids = [row[0] for row in store.db.execute("select id from memories order by seq")]
    with store.db.conn:
        store.db.execute("create table bench_f16 (id text, embedding blob)")
        store.db.conn.executemany(
            "insert into bench_f16 values (?, ?)",
            ((i, v.astype("<f2").tobytes()) for i, v in zip(ids, vectors)),
        )
        store.db.execute("create table bench_matrix (ids text, f32 blob)")
        store.db.execute(
            "insert into bench_matrix (rowid, ids, f32) values (1, ?, ?)",
            ["\n".join(ids), vectors.astype("<f4").tobytes()],
        )
    np.save(npy_path, vectors.astype("<f4"))
    npy_path.with_suffix(".ids").write_text("\n".join(ids))


def top_k(matrix: np.ndarray, query: np.ndarray, k: int = TOP_K) -> np.ndarray:
    scores = matrix @ query
    best = np.argpartition(-scores, k - 1)[:k]
    return best[np.argsort(-scores[best], kind="stable")]


def measure(size: int, args, rng, e5, tmp: Path) -> dict:
    vectors = unit_vectors(rng, size)
    texts = [synthetic_text(rng, i) for i in range(size)]
    query = unit_vectors(rng, 1)[0]

    start = time.perf_counter()
    store = build_store(tmp / f"store-{size}.db", vectors, texts)
    npy_path = tmp / f"store-{size}.npy"
    add_alternative_layouts(store, vectors, npy_path)
    collection = build_collection(tmp / f"collection-{size}.db", vectors, texts, query)
    setup_s = time.perf_counter() - start

    r = args.repeats
    out = {"size": size, "setup_s": setup_s}

    def load():
        ids, blob = store.vectors(MODEL_ID)
        return ids, matrix_from_blob(blob, len(ids))

    ids, matrix = load()
    assert matrix.shape == (size, DIM)
    out["load"] = median_ms(load, r)
    # The vector cache recall reads (vector_cache.py); warmed once, as every
    # turn after the first finds it.
    store.current_vectors(MODEL_ID)
    out["load_cache"] = median_ms(lambda: store.current_vectors(MODEL_ID), r)
    out["score"] = median_ms(lambda: top_k(matrix, query), r)

    # Every memory clears a threshold of -1: the worst case for the
    # threshold-and-partition step, and the cosine stage always answers.
    settings = Settings(recall_limit=TOP_K, min_similarity=-1.0, ranking="cosine")
    fixed = FixedQueryModel(query)

    def run_recall(model):
        result = recall_mod.recall(store, QUERY_TEXT, settings, embedding_model=model)
        assert result.method == "cosine" and len(result.memories) == TOP_K
        return result

    # Recall ranks by margin over a generic prompt's score (recall.py), not by
    # raw cosine, so its answer is not numpy's top 15: check it is a full
    # answer by meaning, as recall_floor.py does. tests/test_recall.py checks
    # the order itself.
    expected = [ids[i] for i in top_k(matrix, query)]
    assert len(run_recall(fixed).memories) == TOP_K

    out["recall"] = median_ms(lambda: run_recall(fixed), r)
    # The parts of recall that do not scale with the store: fetching the 15
    # rows and the mark_used() write (a commit, so an fsync).
    out["fetch"] = median_ms(lambda: store.get_many(expected), r)
    out["mark_used"] = median_ms(lambda: store.mark_used(expected), r)
    out["embed"] = median_ms(lambda: e5.embed_query(QUERY_TEXT), r)
    out["recall_e5"] = median_ms(lambda: run_recall(e5), r)
    hybrid = Settings(recall_limit=TOP_K, min_similarity=-1.0)
    out["recall_hybrid"] = median_ms(
        lambda: recall_mod.recall(store, QUERY_TEXT, hybrid, embedding_model=fixed), r)

    # What other layouts would cost to load (ids included, as vectors() does).
    def load_f16_rows():
        rows = store.db.execute("select id, embedding from bench_f16").fetchall()
        blob = b"".join(row[1] for row in rows)
        return np.frombuffer(blob, "<f2").reshape(len(rows), -1).astype(np.float32)

    def load_one_blob():
        ids_text, blob = store.db.execute("select ids, f32 from bench_matrix").fetchone()
        return ids_text.split("\n"), np.frombuffer(blob, "<f4").reshape(size, -1)

    def load_one_blobopen():
        # Incremental blob I/O into one preallocated array: no giant bytes object.
        ids_text = store.db.execute("select ids from bench_matrix").fetchone()[0]
        matrix = np.empty((size, DIM), dtype="<f4")
        view = memoryview(matrix).cast("B")
        with store.db.conn.blobopen("bench_matrix", "f32", 1, readonly=True) as blob:
            for start in range(0, len(view), 1 << 24):
                view[start : start + (1 << 24)] = blob.read(1 << 24)
        return ids_text.split("\n"), matrix

    def load_npy():
        return npy_path.with_suffix(".ids").read_text().split("\n"), np.load(npy_path)

    out["load_f16_rows"] = median_ms(load_f16_rows, r)
    out["load_one_blob"] = median_ms(load_one_blob, r)
    has_blobopen = hasattr(store.db.conn, "blobopen")  # Python 3.11+
    out["load_one_blobopen"] = median_ms(load_one_blobopen, r) if has_blobopen else None
    out["load_npy"] = median_ms(load_npy, r)
    assert np.array_equal(load_npy()[1], matrix) and np.array_equal(load_one_blob()[1], matrix)

    # Baseline: llm's Collection. Pure-Python cosine per row, so fewer repeats.
    br = args.baseline_repeats
    # Same answer as ours (Collection ids are insertion positions).
    position = {row[0]: str(n) for n, row in enumerate(
        store.db.execute("select id from memories order by seq"))}
    entries = collection.similar_by_vector(query.tolist(), TOP_K)
    assert [e.id for e in entries] == [position[i] for i in expected]
    out["coll_sbv"] = median_ms(lambda: collection.similar_by_vector(query.tolist(), TOP_K), br, warmup=0)
    e5_collection = llm.Collection("bench", collection.db, model=e5)
    out["coll_similar_e5"] = median_ms(lambda: e5_collection.similar(QUERY_TEXT, TOP_K), br, warmup=0)
    store.close()
    collection.db.close()
    return out


def fmt_ms(ms: float) -> str:
    return f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def report(results: list[dict]) -> str:
    lines = ["## Recall speed (median ms; ratios are Collection / ours, same run)", ""]
    rows = []
    for m in results:
        rows.append([
            f"{m['size']:,}",
            fmt_ms(m["load"]),
            fmt_ms(m["load_cache"]),
            fmt_ms(m["score"]),
            fmt_ms(m["fetch"]),
            fmt_ms(m["mark_used"]),
            fmt_ms(m["recall"]),
            fmt_ms(m["recall_hybrid"]),
            fmt_ms(m["embed"]),
            fmt_ms(m["recall_e5"]),
            fmt_ms(m["coll_sbv"]),
            f"**{m['coll_sbv'] / m['recall']:.0f}×**",
            fmt_ms(m["coll_similar_e5"]),
            f"**{m['coll_similar_e5'] / m['recall_e5']:.0f}×**",
        ])
    lines.append(markdown_table(
        ["memories", "load rows", "load cache", "score+top15", "fetch 15", "mark_used",
         "recall (no embed)", "hybrid recall (no embed)",
         "E5 query embed", "recall + E5", "Collection.similar_by_vector", "ratio vs recall",
         "Collection.similar (E5)", "ratio vs recall+E5"],
        rows,
    ))
    lines += ["", "## Loading vectors: layouts compared (median ms; the plugin now maps a flat file, see recall_floor.py)", ""]
    rows = []
    for m in results:
        rows.append([
            f"{m['size']:,}",
            fmt_ms(m["load"]),
            f"{fmt_ms(m['load_f16_rows'])} ({m['load'] / m['load_f16_rows']:.1f}×)",
            f"{fmt_ms(m['load_one_blob'])} ({m['load'] / m['load_one_blob']:.1f}×)",
            f"{fmt_ms(m['load_one_blobopen'])} ({m['load'] / m['load_one_blobopen']:.1f}×)"
            if m["load_one_blobopen"] is not None else "n/a",
            f"{fmt_ms(m['load_npy'])} ({m['load'] / m['load_npy']:.1f}×)",
        ])
    lines.append(markdown_table(
        ["memories", "row per memory, f32 (the old layout)", "row per memory, f16",
         "one blob, select", "one blob, blobopen", ".npy file beside the db"],
        rows,
    ))
    lines += ["", "## Targets (recall excluding query embedding)", ""]
    targets = {10_000: 20.0, 100_000: 150.0}
    rows = []
    for m in results:
        limit = targets.get(m["size"])
        ratio = m["coll_sbv"] / m["recall"]
        rows.append([
            f"{m['size']:,}",
            f"{fmt_ms(m['recall'])} ms" + (f" ≤ {limit:.0f} ms: {'yes' if m['recall'] <= limit else 'NO'}"
                                          if limit else " (no target)"),
            f"{ratio:.0f}× ≥ 20×: {'yes' if ratio >= 20 else 'NO'}",
            f"{m['coll_similar_e5'] / m['recall_e5']:.0f}× ≥ 20×: "
            f"{'yes' if m['coll_similar_e5'] / m['recall_e5'] >= 20 else 'NO'}",
        ])
    lines.append(markdown_table(
        ["memories", "recall time", "vs similar_by_vector", "vs similar() incl. E5"], rows))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000",
                        help="comma-separated memory counts (default 1000,10000,100000)")
    parser.add_argument("--repeats", type=int, default=9,
                        help="repeats per measurement of ours; the median is reported (default 9)")
    parser.add_argument("--baseline-repeats", type=int, default=3,
                        help="repeats for llm's Collection, which is slow (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    if any(s < TOP_K for s in sizes):
        parser.error(f"every size must be at least {TOP_K}")

    rng = np.random.default_rng(args.seed)
    e5 = MultilingualE5Small()
    e5.embed_query("warm up")  # load the weights outside any timing
    results = []
    with tempfile.TemporaryDirectory(prefix="kinetaios-speed-") as tmp:
        for size in sizes:
            m = measure(size, args, rng, e5, Path(tmp))
            print(f"[{size:,}] set up in {m['setup_s']:.1f}s; recall {m['recall']:.1f} ms, "
                  f"Collection.similar_by_vector {m['coll_sbv']:.0f} ms",
                  file=sys.stderr, flush=True)
            results.append(m)
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
