"""Extraction with a real local model, through the real ``llm`` CLI.

Runs every turn of the labelled corpus (``benchmarks/data/extraction_turns.jsonl``,
the one ``skip_heuristic.py`` reads) as a one-shot ``llm -m memory-local-bench``
prompt against a llama.cpp OpenAI-compatible server, with extraction run
inline after each answer, and reports per category and per split (tune /
held-out, by a hash of the text, as in skip_heuristic.py):

- recall: turns with a durable fact whose expected word appears in a stored memory;
- precision: stored memories that come from a turn with a fact and name its expected word;
- junk: stored memories of under three words or naming an answer key;
- extra calls per turn (extraction jobs / turns) and the seconds each turn took.

Give the model as an option or an environment variable (nothing of this
machine is assumed):

    python benchmarks/local_model.py --url http://127.0.0.1:8080/v1
    KINETAIOS_LOCAL_GGUF=model.gguf python benchmarks/local_model.py
    python benchmarks/local_model.py --gguf model.gguf --limit 40

With a GGUF file it starts ``python -m llama_cpp.server`` on 127.0.0.1 (needs
``llama-cpp-python[server]``), one thread, as a busy 2-core machine needs.
Without a model it prints why and exits 0: it is a benchmark, not a test.
The model is registered through ``extra-openai-models.yaml`` in a temporary
LLM_USER_PATH, so the user's own llm set-up is never touched.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

import _common  # noqa: F401  (puts the checkout on sys.path)
from _common import markdown_table
from skip_heuristic import SPLITS, load

from llm_kinetaios.extraction import ANSWER_KEYS

MODEL_ID = "local-bench"
URL_ENV, GGUF_ENV = "KINETAIOS_LOCAL_MODEL_URL", "KINETAIOS_LOCAL_GGUF"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(gguf: str, threads: int) -> tuple[subprocess.Popen, str]:
    "llama-cpp-python's OpenAI-compatible server for ``gguf``, on a free loopback port."
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1",
         "--port", str(port), "--n_threads", str(threads), "--n_threads_batch", str(threads)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"llama_cpp.server exited with code {server.returncode}")
        try:
            urllib.request.urlopen(url + "/models", timeout=2)
            return server, url
        except OSError:
            time.sleep(1)
    server.terminate()
    sys.exit("llama_cpp.server did not answer within 600 s")


def user_dir(url: str) -> Path:
    "A temporary LLM_USER_PATH with the server registered and a memory wrapper for it."
    path = Path(tempfile.mkdtemp(prefix="kinetaios-local-model-"))
    (path / "extra-openai-models.yaml").write_text(
        f"- model_id: {MODEL_ID}\n  model_name: {MODEL_ID}\n  api_base: \"{url}\"\n")
    return path


def llm_run(env: dict, *args: str, timeout: float) -> subprocess.CompletedProcess:
    from fake_models import llm_command

    return subprocess.run([*llm_command(), *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def is_junk(text: str) -> bool:
    return len(text.split()) < 3 or text.strip(" .:").lower() in ANSWER_KEYS


def run(url: str, rows: list[dict], timeout: float) -> list[dict]:
    user = user_dir(url)
    env = {**os.environ, "LLM_USER_PATH": str(user), "LLM_KINETAIOS_WORKER": "inline"}
    wrapped = llm_run(env, "memories", "wrap", MODEL_ID, timeout=60)
    if wrapped.returncode:
        sys.exit(f"llm memories wrap failed: {wrapped.stderr.strip()}")
    results = []
    for n, row in enumerate(rows, 1):
        started = time.monotonic()
        answer = llm_run(env, "-m", f"memory-{MODEL_ID}", "--no-stream", row["text"],
                         timeout=timeout)
        seconds = time.monotonic() - started
        with sqlite3.connect(user / "logs.db") as db:
            stored = [r[0] for r in db.execute(
                "select content from memories where source_response_id = "
                "(select id from responses order by rowid desc limit 1)")]
            jobs = db.execute("select count(*) from memory_jobs where kind = 'extract'").fetchone()[0]
        results.append({**row, "stored": stored, "jobs": jobs, "seconds": seconds,
                        "answered": bool(answer.stdout.strip()), "exit": answer.returncode})
        print(f"[{n}/{len(rows)}] {seconds:5.1f}s {len(stored)} stored: {row['text'][:50]!r}",
              file=sys.stderr)
    return results


def report(results: list[dict]) -> None:
    for split in SPLITS:
        part = [r for r in results if r["split"] == split]
        if not part:
            continue
        table = []
        by_category = defaultdict(list)
        for r in part:
            by_category[r["category"]].append(r)
        for category, rows in sorted(by_category.items()):
            stored = [(r, m) for r in rows for m in r["stored"]]
            true = [1 for r, m in stored if r["learn"] and r["expect"].lower() in m.lower()]
            learn = [r for r in rows if r["learn"]]
            found = [r for r in learn if any(r["expect"].lower() in m.lower() for m in r["stored"])]
            table.append([
                category, len(rows), len(stored),
                f"{len(true) / len(stored):.0%}" if stored else "-",
                f"{len(found) / len(learn):.0%}" if learn else "-",
                sum(is_junk(m) for _, m in stored),
            ])
        print(f"\n{split} half ({len(part)} turns)\n")
        print(markdown_table(["category", "turns", "stored", "precision", "recall", "junk"], table))
    jobs = max((r["jobs"] for r in results), default=0)
    print(f"\nextra calls per turn: {jobs / len(results):.2f}; "
          f"empty answers: {sum(not r['answered'] for r in results)}; "
          f"median seconds per turn: {sorted(r['seconds'] for r in results)[len(results) // 2]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get(URL_ENV),
                        help=f"OpenAI-compatible base URL of a running server (or ${URL_ENV})")
    parser.add_argument("--gguf", default=os.environ.get(GGUF_ENV),
                        help=f"GGUF file to serve with llama_cpp.server (or ${GGUF_ENV})")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", type=int, default=0,
                        help="Only N turns, sampled evenly over the corpus (0: all)")
    parser.add_argument("--turn-timeout", type=float, default=1800)
    parser.add_argument("--json", help="Also write the per-turn results to this file")
    args = parser.parse_args()
    if not args.url and not args.gguf:
        print(f"local_model.py: skipped, no model given (--url or ${URL_ENV}, "
              f"--gguf or ${GGUF_ENV})")
        return
    server = None
    if not args.url:
        try:
            import llama_cpp.server  # noqa: F401
        except ImportError:
            print("local_model.py: skipped, llama-cpp-python[server] is not installed")
            return
        if not Path(args.gguf).is_file():
            sys.exit(f"No such GGUF file: {args.gguf}")
        server, args.url = start_server(args.gguf, args.threads)
    try:
        rows = load()
        if args.limit:  # an even sample across the categories, not the first ones
            rows = rows[:: max(1, len(rows) // args.limit)][: args.limit]
        results = run(args.url, rows, args.turn_timeout)
    finally:
        if server:
            server.terminate()
            server.wait(30)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
