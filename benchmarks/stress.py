"""Concurrency stress: N processes write memories and log llm responses into one
logs.db at the same time; then every row is checked.

    python benchmarks/stress.py                       # 8 processes x 200 memories
    python benchmarks/stress.py --processes 4 --memories 25

Prints rows written and found, lock errors, FTS5 and embedding consistency,
PRAGMA integrity_check, and the write rate against a single-process baseline
measured in the same run.
"""

import argparse
import json
import multiprocessing
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DIMENSIONS = 384


def _writer(args):
    "One process: interleave memory writes (as extraction does) and llm logging."
    path, worker, count = args
    import llm
    import numpy as np
    import sqlite_utils

    from llm_kinetaios.embeddings import to_blob
    from llm_kinetaios.store import MemoryStore

    class Echo(llm.Model):
        model_id = "stress-echo"

        def execute(self, prompt, stream, response, conversation):
            yield f"echo {prompt.prompt}"

    rng = np.random.default_rng(worker)
    store = MemoryStore.open(path)
    log_db = sqlite_utils.Database(sqlite3.connect(path, timeout=30))
    model = Echo()
    memory_errors = log_errors = 0
    for i in range(count):
        vector = rng.standard_normal(DIMENSIONS).astype("float32")
        vector /= np.linalg.norm(vector)
        # Our writes get no retry: a lock error here is a failure to report.
        try:
            store.add(f"worker {worker} fact {i}", conversation_id=f"w{worker}",
                      source="extracted", embedding=to_blob(vector), embedding_model="stress")
        except sqlite3.OperationalError:
            memory_errors += 1
        if i % 4 == 0:
            response = model.prompt(f"worker {worker} turn {i}")
            response.text()
            for attempt in range(5):  # llm's own logging, retried as a user would
                try:
                    response.log_to_db(log_db)
                    break
                except sqlite3.OperationalError:
                    log_errors += 1
                    time.sleep(0.05 * (attempt + 1))
    store.close()
    return memory_errors, log_errors


def run_stress(path, processes: int, memories: int) -> dict:
    "Run the writers and check the result; returns the figures."
    import llm.migrations
    import sqlite_utils

    from llm_kinetaios.store import MemoryStore
    from llm_kinetaios.vector_cache import crc

    db = sqlite_utils.Database(path)
    llm.migrations.migrate(db)  # as llm does on first use
    db.close()
    MemoryStore.open(path).close()
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        errors = pool.map(_writer, [(str(path), w, memories) for w in range(processes)])
    seconds = time.perf_counter() - started
    conn = sqlite3.connect(path)
    found = conn.execute("select count(*) from memories").fetchone()[0]
    distinct = conn.execute("select count(distinct content) from memories").fetchone()[0]
    fts = conn.execute("select count(*) from memories_fts").fetchone()[0]
    fts_match = conn.execute(
        "select count(*) from memories_fts where memories_fts match '\"fact\"'").fetchone()[0]
    # Vectors live in the vector file (vector_cache.py): each must read back
    # with the dimension and the CRC logs.db recorded for it.
    checksums = dict(conn.execute("select id, vector_crc from memories"))
    store = MemoryStore.open(path)
    vectors = sum(1 for memory_id, (_, blob) in store.vectors_of(list(checksums)).items()
                  if len(blob) == DIMENSIONS * 4 and crc(blob) == checksums[memory_id])
    store.close()
    turns = conn.execute("select count(*) from turns").fetchone()[0]
    integrity = conn.execute("pragma integrity_check").fetchone()[0]
    conn.close()
    expected = processes * memories
    return {
        "processes": processes,
        "memories_written": expected,
        "memories_found": found,
        "distinct": distinct,
        "fts_rows": fts,
        "fts_matches": fts_match,
        "vectors_ok": vectors,
        "responses_logged": turns,
        "responses_expected": processes * len(range(0, memories, 4)),
        "memory_lock_errors": sum(e[0] for e in errors),
        "llm_log_lock_errors": sum(e[1] for e in errors),
        "integrity": integrity,
        "seconds": round(seconds, 2),
        "writes_per_second": round(expected / seconds, 1),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--memories", type=int, default=200, help="memories per process")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON, no baseline")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = run_stress(Path(tmp) / "logs.db", args.processes, args.memories)
        if args.json:
            print(json.dumps(result))
            sys.exit(0)
        baseline = run_stress(Path(tmp) / "baseline.db", 1, args.memories)
    for key, value in result.items():
        print(f"{key:>22}: {value}")
    # Our rows must all be there and consistent. llm's own logging is
    # reported, not judged: its deferred transactions can hit "database is
    # locked" under this many writers, which no plugin can change.
    ok = (result["memories_found"] == result["memories_written"] == result["distinct"]
          == result["fts_rows"] == result["fts_matches"] == result["vectors_ok"]
          and result["memory_lock_errors"] == 0
          and result["integrity"] == "ok")
    print(f"{'baseline (1 process)':>22}: {baseline['writes_per_second']} writes/s")
    print(f"{'throughput ratio':>22}: {result['writes_per_second'] / baseline['writes_per_second']:.2f}x "
          f"with {args.processes} processes")
    print("consistent" if ok else "INCONSISTENT")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
