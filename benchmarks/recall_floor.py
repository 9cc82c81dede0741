#!/usr/bin/env python3
"""Recall against the memory-bandwidth floor, the worker, storage and restore:
issue 18's figures, all measured in one run.

Run from the repository root:

    python benchmarks/recall_floor.py            # 1k, 10k, 100k memories
    python benchmarks/recall_floor.py --quick    # 1k and 10k, fewer repeats

1. Recall (query embedding excluded: a fixed 384-d query vector) against,
   on the same random unit float32 vectors:
     numpy in memory      matrix @ query and the top 15, matrix already in RAM
     numpy memmap, fresh  a new process maps the same float32 file and does
                          the same (timed from the map, interpreter start-up
                          left out), as each ``llm`` command is a new process
     sqlite-vec           a ``vec0`` table, brute-force KNN of 15 (needs the
                          ``sqlite-vec`` and ``apsw`` packages: Python's own
                          sqlite3 often cannot load extensions; else n/a)
     bandwidth floor      vector bytes / this machine's measured copy bandwidth
   Ours is ``recall.recall()`` (cosine ranking, the 15 rows fetched, not
   marked used: that is a write, timed on its own), warm in this process and
   as the first recall of a fresh process. Recall runs BLAS on one thread
   (vector_cache.one_blas_thread); it is also timed with numpy's default, a
   thread per core, and so is everything after it in this process: the
   peers run with the same single thread.
2. Per-turn CPU: whole-process user+system CPU of ``llm -m memory-fake hi``
   over ``llm -m fake hi`` (the same instant fake model unwrapped), real
   multilingual-e5-small query embedding, 0 / 1k / 10k / 100k memories,
   interleaved rounds, worker off.
3. Worker jobs per second at 10k memories, instant fake chat model, real e5
   embeddings: batches of 16 (the default) against batches of 1, each on its
   own copy of the store.
4. Bytes on disk per memory at 10k: logs.db plus the vector folder, against
   the previous layout (the vector in logs.db and in a cache file) rebuilt
   from the same store.
5. e5 passage embedding, texts per second: one at a time and batches of 32.
6. Restore: ``llm memories import`` of an ``export --vectors`` file against
   an import of the plain export (which embeds every memory), into an empty
   store, in this process.

Timings on a shared 2-core machine are noisy: compare the ratios, which are
all measured in the same run. The load average is printed with each section.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, markdown_table, median_ms  # noqa: E402

import numpy as np  # noqa: E402

import fake_models  # noqa: E402
import turn_overhead  # noqa: E402
from recall_speed import (  # noqa: E402
    DIM, MODEL_ID, QUERY_TEXT, TOP_K, FixedQueryModel, build_store, synthetic_text, top_k,
    unit_vectors)

from llm_kinetaios import recall as recall_mod  # noqa: E402
from llm_kinetaios.config import Settings  # noqa: E402
from llm_kinetaios.store import MemoryStore  # noqa: E402
from llm_kinetaios.vector_cache import vectors_dir  # noqa: E402
from llm_kinetaios.jobs import JobQueue  # noqa: E402

GOALS = {
    "floor": 3.0,  # recall <= 3x the bandwidth floor at 10k and 100k
    "cpu": 1.05,  # per-turn CPU <= 1.05x at 100k
    "jobs": 5.0,  # worker jobs/s at 10k
    "bytes": 2500,  # bytes on disk per memory
    "restore": 10.0,  # restore with vectors >= 10x faster than re-embedding
}


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f}"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- 1. recall


def copy_bandwidth() -> float:
    "Bytes per second np.copyto moves between two 128 MB arrays (best of 5)."
    source = np.ones(32 * 1024 * 1024, dtype=np.float32)
    target = np.empty_like(source)
    best = min(_timed(lambda: np.copyto(target, source)) for _ in range(5))
    return source.nbytes / best


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


MEMMAP_CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    path, rows, dim, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    query = np.fromfile(path + ".query", dtype="<f4")
    start = time.perf_counter()
    matrix = np.memmap(path, dtype="<f4", mode="r", shape=(rows, dim))
    scores = matrix @ query
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.argsort(-scores[best], kind="stable")]
    print((time.perf_counter() - start) * 1000)
""")

RECALL_CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    from llm_kinetaios import recall
    from llm_kinetaios.config import Settings
    from llm_kinetaios.store import MemoryStore
    path, model_id, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    query = np.fromfile(sys.argv[4], dtype="<f4")
    class Fixed:
        model_id = sys.argv[2]
        def embed_query(self, text):
            return query
    store = MemoryStore.open(path)
    settings = Settings(recall_limit=k, min_similarity=-1.0, min_margin=0.0, ranking="cosine")
    start = time.perf_counter()
    result = recall.recall(store, "query", settings, embedding_model=Fixed(), mark_used=False)
    print((time.perf_counter() - start) * 1000)
    assert len(result.memories) == k
""")


def fresh_process_ms(code: str, args: list[str], runs: int) -> float:
    """Median ms a probe prints, one new process per run; the first run is a
    warm-up (it compiles the plugin's .pyc files, as an install already has)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(fake_models.PYCACHE)
    times = []
    for _ in range(runs + 1):
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                             text=True, timeout=300, cwd=REPO_ROOT, env=env)
        if out.returncode != 0:
            raise SystemExit(f"fresh-process probe failed: {out.stderr[-800:]}")
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times[1:])


def sqlite_vec_ms(vectors: np.ndarray, query: np.ndarray, repeats: int) -> float | None:
    "Brute-force KNN of a vec0 table through apsw, or None where it cannot load."
    try:
        import apsw
        import sqlite_vec
    except ImportError:
        return None
    conn = apsw.Connection(":memory:")
    try:
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
    except Exception:
        return None
    conn.execute(f"create virtual table v using vec0(embedding float[{vectors.shape[1]}])")
    with conn:
        conn.executemany("insert into v (rowid, embedding) values (?, ?)",
                         ((i + 1, vectors[i].tobytes()) for i in range(len(vectors))))
    sql = "select rowid, distance from v where embedding match ? and k = ? order by distance"
    got = [row[0] - 1 for row in conn.execute(sql, (query.tobytes(), TOP_K))]
    assert got == list(top_k(vectors, query)), "sqlite-vec disagrees with numpy"
    return median_ms(lambda: list(conn.execute(sql, (query.tobytes(), TOP_K))), repeats)


def blas_all_threads_ms(fn, repeats: int) -> float:
    "``fn`` timed with BLAS on every core, numpy's default (recall limits it to one)."
    from threadpoolctl import threadpool_limits

    with threadpool_limits(os.cpu_count(), user_api="blas"):
        return median_ms(fn, repeats)


def measure_recall(size: int, args, rng, tmp: Path, bandwidth: float) -> dict:
    vectors = unit_vectors(rng, size)
    texts = [synthetic_text(rng, i) for i in range(size)]
    query = unit_vectors(rng, 1)[0]
    store = build_store(tmp / f"recall-{size}.db", vectors, texts)
    r = args.repeats
    # Every memory in reach of the ranking (no threshold, no margin): the
    # cosine stage always answers, with the full 15.
    settings = Settings(recall_limit=TOP_K, min_similarity=-1.0, min_margin=0.0, ranking="cosine")
    fixed = FixedQueryModel(query)
    ids = [row[0] for row in store.db.execute("select id from memories order by seq")]
    expected = [ids[i] for i in top_k(vectors, query)]

    def ours():
        return recall_mod.recall(store, QUERY_TEXT, settings, embedding_model=fixed, mark_used=False)

    # The ranking is recall.py's (margins over a query prior), not plain
    # cosine: the check is that it answers by meaning, with 15 memories.
    answer = ours()
    assert answer.method in ("cosine", "hybrid") and len(answer.memories) == TOP_K, answer.method
    out = {"size": size, "bytes": vectors.nbytes}
    out["ours"] = median_ms(ours, r)
    out["ours_all_blas"] = blas_all_threads_ms(ours, r)

    def rank_only():  # what sqlite-vec's KNN does: no memory rows fetched
        ids, matrix = store.current_vectors(MODEL_ID)
        return top_k(matrix, query)

    out["ours_rank"] = median_ms(rank_only, r)
    out["mark_used"] = median_ms(lambda: store.mark_used(expected), r)
    out["numpy"] = median_ms(lambda: top_k(vectors, query), r)
    flat = tmp / f"flat-{size}.f32"
    vectors.tofile(flat)
    query.tofile(str(flat) + ".query")
    out["memmap_fresh"] = fresh_process_ms(MEMMAP_CHILD, [str(flat), str(size), str(DIM), str(TOP_K)],
                                           args.fresh_runs)
    out["ours_fresh"] = fresh_process_ms(
        RECALL_CHILD, [str(tmp / f"recall-{size}.db"), MODEL_ID, str(TOP_K), str(flat) + ".query"],
        args.fresh_runs)
    out["sqlite_vec"] = sqlite_vec_ms(vectors, query, r)
    out["floor"] = vectors.nbytes / bandwidth * 1000
    store.close()
    return out


def recall_report(results: list[dict], bandwidth: float) -> str:
    rows = []
    for m in results:
        vec = m["sqlite_vec"]
        rows.append([
            f"{m['size']:,}",
            f"{m['ours']:.2f}",
            f"{m['ours_fresh']:.2f}",
            f"{m['ours_all_blas']:.2f}",
            f"{m['ours_rank']:.2f}",
            f"{m['numpy']:.2f} ({m['ours'] / m['numpy']:.1f}×)",
            f"{m['memmap_fresh']:.2f} ({m['ours_fresh'] / m['memmap_fresh']:.1f}×)",
            f"{vec:.2f} ({m['ours'] / vec:.2f}×)" if vec else "n/a",
            f"{m['floor']:.2f} ({m['ours'] / m['floor']:.1f}× / {m['ours_fresh'] / m['floor']:.1f}×)",
            f"{m['mark_used']:.2f}",
        ])
    return "\n".join([
        f"## Recall, query embedding excluded (median ms; in brackets: ours ÷ that; "
        f"copy bandwidth {bandwidth / 1e9:.1f} GB/s)", "",
        markdown_table(["memories", "ours, warm", "ours, fresh process",
                        f"ours, {os.cpu_count()} BLAS threads (numpy's default)",
                        "ours, vectors + top 15 only (no rows fetched)",
                        "numpy in memory", "numpy memmap, fresh process (vs ours fresh)",
                        "sqlite-vec vec0", "bandwidth floor (warm / fresh)", "mark_used (a write)"],
                       rows)])


# --------------------------------------------------------------------------- 2. per-turn CPU


def run_cpu(env: dict, args: list[str]) -> float:
    "User+system CPU seconds of one llm process (and any child it waited for)."
    proc = subprocess.Popen(fake_models.llm_command() + args, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"llm {' '.join(args)} failed: {proc.stderr.read().decode()[-800:]}")
    return usage.ru_utime + usage.ru_stime


def measure_cpu(tmp: Path, sizes: list[int], rounds: int, plugins: Path) -> dict:
    qvec = turn_overhead.query_vector()
    out = {}
    for count in sizes:
        log(f"per-turn CPU, {count:,} memories: seeding ({load()})")
        user = tmp / f"cpu-{count}"
        user.mkdir()
        turn_overhead.write_settings(user)
        turn_overhead.seed(user, count, qvec, np.random.default_rng(count))
        env = fake_models.subprocess_env(user, plugins, turn_overhead.LOAD_PLUGINS,
                                         LLM_KINETAIOS_WORKER="off")
        runs = {"fake": [], "memory": []}
        for r in range(rounds + 1):  # round 0 warms the page cache, not recorded
            for name in (("fake", "memory") if r % 2 else ("memory", "fake")):
                model = "fake" if name == "fake" else "memory-fake"
                cpu = run_cpu(env, ["-m", model, turn_overhead.PROMPT])
                if r:
                    runs[name].append(cpu)
        out[count] = {name: statistics.median(v) for name, v in runs.items()}
        out[count]["ratio"] = statistics.median(m / f for m, f in zip(runs["memory"], runs["fake"]))
    return out


# --------------------------------------------------------------------------- 3. worker


def measure_worker(tmp: Path, count: int, jobs: int) -> dict:
    """Jobs per second of run_queue() in this process, with the fake chat model
    registered here and e5 embeddings, on copies of one seeded store."""
    import llm
    from llm.plugins import pm

    from llm_kinetaios import worker

    if not pm.has_plugin("bench-fakes"):
        pm.register(fake_models, name="bench-fakes")
    base = tmp / "worker-seed"
    base.mkdir()
    turn_overhead.write_settings(base)
    turn_overhead.seed(base, count, turn_overhead.query_vector(), np.random.default_rng(7))
    llm.get_model("fake")  # llm loads its plugins once per process: not a job's cost
    out = {}
    previous_user = os.environ.get("LLM_USER_PATH")
    for batch in (1, worker.BATCH_JOBS):
        user = tmp / f"worker-{batch}"
        shutil.copytree(base, user)
        os.environ["LLM_USER_PATH"] = str(user)
        store = MemoryStore.open(user / "logs.db")
        for i in range(jobs):
            JobQueue(store).enqueue("extract", {
                "model_id": "fake", "conversation_id": "bench", "response_id": f"r{i}",
                "user": f"I keep a garden with {i} kinds of tomato. I cycle to work on day {i}.",
                "assistant": "Noted.", "created_at": int(time.time() * 1000)})
        saved, worker.BATCH_JOBS = worker.BATCH_JOBS, batch
        try:
            log(f"worker, batches of {batch}: {jobs} jobs at {count:,} memories ({load()})")
            start = time.perf_counter()
            done = worker.run_queue(store)
            seconds = time.perf_counter() - start
        finally:
            worker.BATCH_JOBS = saved
        statuses = dict(store.db.execute("select status, count(*) from memory_jobs group by status"))
        assert done == jobs and statuses == {"done": jobs}, statuses
        store.close()
        out[batch] = jobs / seconds
    if previous_user is not None:
        os.environ["LLM_USER_PATH"] = previous_user
    return out


# --------------------------------------------------------------------------- 4. bytes


def disk_bytes(db_path: Path) -> int:
    conn = sqlite3.connect(db_path)
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    files = [db_path, Path(str(db_path) + "-wal")]
    folder = vectors_dir(db_path)
    files += list(folder.iterdir()) if folder.is_dir() else []
    return sum(p.stat().st_size for p in files if p.exists())


def measure_bytes(tmp: Path, count: int, rng) -> dict:
    vectors = unit_vectors(rng, count)
    texts = [synthetic_text(rng, i) for i in range(count)]
    path = tmp / "bytes" / "logs.db"
    path.parent.mkdir()
    build_store(path, vectors, texts).close()
    ours = disk_bytes(path)
    # The previous layout: every vector in the embedding column, and again in
    # a derived float32 cache file of the same size.
    old = tmp / "bytes-old" / "logs.db"
    old.parent.mkdir()
    shutil.copy(path, old)
    conn = sqlite3.connect(old)
    order = [row[0] for row in conn.execute("select id from memories order by seq")]
    with conn:
        conn.executemany("update memories set embedding = ? where id = ?",
                         ((vectors[i].astype("<f4").tobytes(), memory_id)
                          for i, memory_id in enumerate(order)))
    conn.execute("vacuum")
    conn.close()
    previous = disk_bytes(old) + vectors.nbytes
    return {"count": count, "ours": ours / count, "previous": previous / count}


# --------------------------------------------------------------------------- 5. embedding


def measure_embedding(texts: int = 64) -> dict:
    from llm_kinetaios.embeddings import MultilingualE5Small

    model = MultilingualE5Small()
    sample = [f"The user mentioned fact {i}: they cycle, garden and read in the evening."
              for i in range(texts)]
    model.embed_passages(sample[:2])  # weights loaded outside the timing
    one = _timed(lambda: [model.embed_passages([t]) for t in sample])
    batched = _timed(lambda: [model.embed_passages(sample[i:i + 32]) for i in range(0, texts, 32)])
    return {"one": texts / one, "batched": texts / batched}


# --------------------------------------------------------------------------- 6. restore


def measure_restore(tmp: Path, count: int) -> dict:
    from click.testing import CliRunner
    from llm.cli import cli

    previous_user = os.environ.get("LLM_USER_PATH")
    runner = CliRunner()

    def invoke(user: Path, *args):
        os.environ["LLM_USER_PATH"] = str(user)
        result = runner.invoke(cli, ["memories", *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result

    source = tmp / "restore-source"
    source.mkdir()
    turn_overhead.write_settings(source)
    rng = np.random.default_rng(3)
    facts = [synthetic_text(rng, i) for i in range(count)]
    store = MemoryStore.open(source / "logs.db")
    store.close()
    (tmp / "facts.json").write_text(json.dumps(facts))
    log(f"restore: embedding {count} memories once for the source store ({load()})")
    invoke(source, "import", str(tmp / "facts.json"))
    invoke(source, "export", "--vectors", str(tmp / "with-vectors.json"))
    invoke(source, "export", str(tmp / "plain.json"))
    out = {}
    for name, path in (("vectors", "with-vectors.json"), ("plain", "plain.json")):
        user = tmp / f"restore-{name}"
        user.mkdir()
        turn_overhead.write_settings(user)
        log(f"restore: import {name} ({load()})")
        start = time.perf_counter()
        result = invoke(user, "import", str(tmp / path))
        out[name] = time.perf_counter() - start
        assert json.loads(result.output.strip().splitlines()[-1])["imported"] == count
    if previous_user is not None:
        os.environ["LLM_USER_PATH"] = previous_user
    return out


# --------------------------------------------------------------------------- report


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--cpu-sizes", default="0,1000,10000,100000")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--fresh-runs", type=int, default=5)
    parser.add_argument("--cpu-rounds", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=32, help="extraction jobs per worker run")
    parser.add_argument("--restore", type=int, default=300, help="memories exported and restored")
    parser.add_argument("--quick", action="store_true",
                        help="sizes 1k,10k; CPU at 0,10k; fewer repeats; 16 jobs; restore 100")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.cpu_sizes, args.repeats, args.fresh_runs = "1000,10000", "0,10000", 7, 3
        args.cpu_rounds, args.jobs, args.restore = 3, 16, 100
    sizes = [int(s) for s in args.sizes.split(",")]
    cpu_sizes = [int(s) for s in args.cpu_sizes.split(",")]
    rng = np.random.default_rng(0)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the plugin sets before e5 loads
    with tempfile.TemporaryDirectory(prefix="kinetaios-floor-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["LLM_USER_PATH"] = str(tmp / "user")
        bandwidth = copy_bandwidth()
        recall_results = []
        for size in sizes:
            log(f"recall at {size:,} ({load()})")
            recall_results.append(measure_recall(size, args, rng, tmp, bandwidth))
        plugins = fake_models.plugin_dir(tmp)
        cpu = measure_cpu(tmp, cpu_sizes, args.cpu_rounds, plugins)
        jobs = measure_worker(tmp, 10_000, args.jobs)
        storage = measure_bytes(tmp, 10_000, rng)
        log(f"embedding speed ({load()})")
        embedding = measure_embedding()
        restore = measure_restore(tmp, args.restore)

    print(recall_report(recall_results, bandwidth))
    print("\n## Per-turn CPU: `llm -m memory-fake hi` ÷ `llm -m fake hi` "
          f"(median of {args.cpu_rounds} interleaved rounds, whole-process user+system)\n")
    print(markdown_table(["memories", "fake (s)", "memory-fake (s)", "ratio"],
                         [[f"{c:,}", f"{m['fake']:.2f}", f"{m['memory']:.2f}", f"{m['ratio']:.3f}×"]
                          for c, m in cpu.items()]))
    print("\n## Worker, storage, embedding, restore\n")
    print(markdown_table(["measure", "value", "same-run baseline"], [
        ["worker jobs/s at 10k (instant chat model, e5)", f"{jobs[16]:.2f}",
         f"{jobs[1]:.2f} in batches of 1"],
        ["bytes on disk per memory at 10k", f"{storage['ours']:,.0f}",
         f"{storage['previous']:,.0f} with the vector in logs.db and in a cache file"],
        ["e5 passages per second", f"{embedding['batched']:.1f} in batches of 32",
         f"{embedding['one']:.1f} one at a time"],
        [f"restore {args.restore} memories (s)", f"{restore['vectors']:.2f} from export --vectors",
         f"{restore['plain']:.2f} re-embedding ({restore['plain'] / restore['vectors']:.0f}×)"],
    ]))
    print("\n## Goals\n")
    rows = []
    for m in recall_results:
        if m["size"] >= 10_000:
            ratio = m["ours"] / m["floor"]
            rows.append([f"recall ≤ {GOALS['floor']:.0f}× floor at {m['size']:,}",
                         f"{ratio:.1f}× warm, {m['ours_fresh'] / m['floor']:.1f}× fresh",
                         verdict(ratio <= GOALS["floor"])])
        if m["sqlite_vec"]:
            rows.append([f"recall no slower than sqlite-vec at {m['size']:,}",
                         f"{m['ours'] / m['sqlite_vec']:.2f}×", verdict(m["ours"] <= m["sqlite_vec"])])
    if cpu:
        top = max(cpu)
        rows.append([f"per-turn CPU ≤ {GOALS['cpu']}× at {top:,}", f"{cpu[top]['ratio']:.3f}×",
                     verdict(cpu[top]["ratio"] <= GOALS["cpu"])])
    rows.append([f"worker ≥ {GOALS['jobs']:.0f} jobs/s at 10k", f"{jobs[16]:.2f}",
                 verdict(jobs[16] >= GOALS["jobs"])])
    rows.append([f"≤ {GOALS['bytes']:,} bytes per memory", f"{storage['ours']:,.0f}",
                 verdict(storage["ours"] <= GOALS["bytes"])])
    speedup = restore["plain"] / restore["vectors"]
    rows.append([f"restore ≥ {GOALS['restore']:.0f}× faster", f"{speedup:.0f}×",
                 verdict(speedup >= GOALS["restore"])])
    print(markdown_table(["goal", "measured", "verdict"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
