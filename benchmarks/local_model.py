"""Extraction with a real local model: the labelled corpus, then a scripted
multi-session chat through the real ``llm`` CLI.

Two parts, one command:

1. Corpus. Every turn of the chosen split of the labelled corpus
   (``benchmarks/data/extraction_turns.jsonl``, the one ``skip_heuristic.py``
   reads, split by a hash of the text into tune and held-out) goes through
   what the worker does with a turn: the skip heuristic, then, for the turns
   it lets through, the real extraction call (``extract_facts``: the
   plugin's prompt, the model's answer, the strict parse) and the write
   path's check (``check_memory``). The answer call is left out: it is not
   what is measured, and on one CPU thread it would cost most of the run.
   The assistant reply given to extraction is empty.
2. Scenario. A short scripted chat in three sessions (a new conversation
   each) through the real ``llm -m memory-local-bench`` CLI, answers capped
   with ``-o max_tokens 64``, extraction inline after each answer. Its user
   turns hold six durable facts (among them "I'm vegetarian."), a question
   whose answer is the assistant's opinion, a one-off task and a
   hypothetical.

Reported, per split and for the scenario:

- precision: stored memories that are a true durable user fact (the turn
  states a fact and the memory names its expected word), and the looser share
  of memories that come from a turn stating a fact (a second fact of the turn,
  or one translated into English, counts there);
- recall per category: turns with a fact whose expected word is in a stored
  memory;
- junk: stored memories of under three words or naming an answer key, and
  (scenario) memories naming what only the assistant or a hypothetical said;
- extraction calls per turn and seconds per turn (extraction call; the
  scenario's whole turn, answer included).

Give the model as an option or an environment variable (nothing of this
machine is assumed):

    python benchmarks/local_model.py --url http://127.0.0.1:8080/v1 --split tune
    KINETAIOS_LOCAL_GGUF=model.gguf python benchmarks/local_model.py
    python benchmarks/local_model.py --gguf model.gguf --split held-out --no-scenario
    python benchmarks/local_model.py --report results.json   # a saved run's report again
    python benchmarks/local_model.py --report results.json --reparse   # its answers, today's parse

With a GGUF file it starts ``python -m llama_cpp.server`` on 127.0.0.1 (needs
``llama-cpp-python[server]``), one thread, as a busy 2-core machine needs.
Without a model it prints why and exits 0: it is a benchmark, not a test.
The model is registered through ``extra-openai-models.yaml`` in a temporary
LLM_USER_PATH, so the user's own llm set-up is never touched. Tune prompts on
the tune split only; run held-out once, for the report.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
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
# The corpus turns' date, so relative phrases have something to count from.
TURN_DATE = datetime.datetime(2026, 12, 2, 10, 0)

# (user turn, expected word when it states a durable fact, else None).
# A new list is a new session (a new conversation).
SCENARIO = [
    [("Hi! I live in Porto and I work as a nurse.", "Porto"),
     ("I'm vegetarian.", "vegetarian"),
     ("What should I cook tonight?", None)],
    [("My daughter is called Ana and she is 7 years old.", "Ana"),
     ("Which language should I use for my script?", None),
     ("Write me a haiku about rain.", None)],
    [("I use Neovim for all my coding.", "Neovim"),
     ("I'm allergic to peanuts, so keep them out of recipes.", "peanut"),
     ("Should I try Obsidian for my notes?", None)],
]
# The nurse fact shares a turn with Porto; counted as its own scripted fact.
SCENARIO_FACTS = ["Porto", "nurse", "vegetarian", "Ana", "Neovim", "peanut"]
# Words only the assistant's answers or a hypothetical put forward: a memory
# naming one is an opinion or a guess stored as a user fact.
NOT_USER_FACTS = ["Python", "Obsidian", "haiku", "rain", "Bash", "JavaScript"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(gguf: str, threads: int) -> tuple[subprocess.Popen, str]:
    "llama-cpp-python's OpenAI-compatible server for ``gguf``, on a free loopback port."
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1",
         "--port", str(port), "--n_threads", str(threads), "--n_threads_batch", str(threads),
         "--n_ctx", "4096"],
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
    "A temporary LLM_USER_PATH with the server registered."
    path = Path(tempfile.mkdtemp(prefix="kinetaios-local-model-"))
    (path / "extra-openai-models.yaml").write_text(
        f"- model_id: {MODEL_ID}\n  model_name: {MODEL_ID}\n  api_base: \"{url}\"\n")
    return path


def is_junk(text: str) -> bool:
    "A fragment or a key name stored as a memory."
    return len(text.split()) < 3 or text.strip(" .:\"'").lower() in ANSWER_KEYS


def names(memory: str, word: str) -> bool:
    return word.lower() in memory.lower()


def extract_corpus(rows: list[dict], log) -> list[dict]:
    """What the worker would store from each turn, extraction call and all,
    without the answer call. Needs LLM_USER_PATH set to ``user_dir``'s."""
    import llm

    from llm_kinetaios.extraction import Turn, extract_facts, worth_extracting
    from llm_kinetaios.write import check_memory

    model = llm.get_model(MODEL_ID)
    created_at = int(TURN_DATE.timestamp() * 1000)
    results = []
    for n, row in enumerate(rows, 1):
        result = {**row, "called": worth_extracting(row["text"]), "stored": [], "rejected": [],
                  "answer": "", "error": None, "seconds": 0.0}
        if result["called"]:
            started = time.monotonic()
            try:
                extracted = extract_facts(model, Turn(row["text"], "", created_at=created_at))
                result["answer"], result["rejected"] = extracted.answer, extracted.rejected
                checks = [check_memory(fact) for fact in extracted.facts]
                result["stored"] = [c.text for c in checks if not c.refused]
            except Exception as ex:  # a failed job stores nothing; the run goes on
                result["error"] = f"{type(ex).__name__}: {ex}"[:200]
                result["answer"] = getattr(ex, "answer", "")
            result["seconds"] = time.monotonic() - started
        results.append(result)
        log(f"[{n}/{len(rows)}] {result['seconds']:5.1f}s {len(result['stored'])} stored: "
            f"{row['text'][:50]!r} -> {result['stored'] or result['error'] or '-'}")
    return results


def reparse(results: list[dict]) -> None:
    "What today's parse and write check store from each saved raw answer."
    from llm_kinetaios.extraction import ExtractionError, Turn, parse_answer
    from llm_kinetaios.write import check_memory

    for result in results:
        if not result["called"]:
            continue
        try:
            extracted = parse_answer(result["answer"], Turn(result["text"], ""))
        except ExtractionError as ex:
            result.update(stored=[], rejected=[], error=str(ex)[:200])
            continue
        checks = [check_memory(fact) for fact in extracted.facts]
        result.update(stored=[c.text for c in checks if not c.refused],
                      rejected=extracted.rejected, error=None)


def corpus_report(results: list[dict], split: str) -> None:
    part = [r for r in results if r["split"] == split]
    if not part:
        return
    by_category = defaultdict(list)
    for r in part:
        by_category[r["category"]].append(r)
    table = []
    for category, rows in sorted(by_category.items()) + [("all", part)]:
        stored = [(r, m) for r in rows for m in r["stored"]]
        true = [1 for r, m in stored if r["learn"] and names(m, r["expect"])]
        # Looser: any memory from a turn that states a fact. Counts a second true
        # fact of the turn ("User's daughter is 7") and a translated one ("User
        # is a teacher" for "Lehrerin"), and also a wrong fact from such a turn.
        from_fact_turns = [1 for r, m in stored if r["learn"]]
        learn = [r for r in rows if r["learn"]]
        found = [r for r in learn if any(names(m, r["expect"]) for m in r["stored"])]
        table.append([
            category, len(rows), len(stored),
            f"{len(true) / len(stored):.0%}" if stored else "-",
            f"{len(from_fact_turns) / len(stored):.0%}" if stored else "-",
            f"{len(found)}/{len(learn)}" if learn else "-",
            sum(is_junk(m) for _, m in stored),
            sum(bool(r["error"]) for r in rows),
        ])
    calls = [r for r in part if r["called"]]
    seconds = sorted(r["seconds"] for r in calls)
    print(f"\n{split} split: {len(part)} corpus turns\n")
    print(markdown_table(["category", "turns", "stored", "precision", "from a fact turn",
                          "recall", "junk", "failed calls"], table))
    print(f"\nextraction calls per turn: {len(calls) / len(part):.2f}; median seconds per "
          f"extraction call: {seconds[len(seconds) // 2] if seconds else 0:.1f}")


def llm_run(env: dict, *args: str, timeout: float) -> subprocess.CompletedProcess:
    from fake_models import llm_command

    return subprocess.run([*llm_command(), *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def run_scenario(user: Path, timeout: float, log) -> dict:
    env = {**os.environ, "LLM_USER_PATH": str(user), "LLM_KINETAIOS_WORKER": "inline"}
    wrapped = llm_run(env, "memories", "wrap", MODEL_ID, timeout=120)
    if wrapped.returncode:
        sys.exit(f"llm memories wrap failed: {wrapped.stderr.strip()}")
    turns = []
    for session in SCENARIO:
        for i, (text, _) in enumerate(session):
            started = time.monotonic()
            answer = llm_run(env, "-m", f"memory-{MODEL_ID}", "--no-stream",
                             "-o", "max_tokens", "64", *(["-c"] if i else []), text,
                             timeout=timeout)
            seconds = time.monotonic() - started
            turns.append({"text": text, "seconds": seconds, "exit": answer.returncode,
                          "answer": answer.stdout.strip(), "error": answer.stderr.strip()[-300:]})
            log(f"[scenario] {seconds:5.1f}s exit {answer.returncode}: {text!r} -> "
                f"{answer.stdout.strip()[:60]!r}")
    with sqlite3.connect(user / "logs.db") as db:
        memories = [r[0] for r in db.execute(
            "select content from memories order by seq")]
        jobs = db.execute("select count(*) from memory_jobs where kind = 'extract'").fetchone()[0]
        answers = [r[0] for r in db.execute(
            "select result from memory_jobs where kind = 'extract' order by rowid")]
    return {"turns": turns, "memories": memories, "jobs": jobs, "answers": answers}


def scenario_report(result: dict) -> None:
    memories, turns = result["memories"], result["turns"]
    learned = [w for w in SCENARIO_FACTS if any(names(m, w) for m in memories)]
    opinions = [m for m in memories if any(names(m, w) for w in NOT_USER_FACTS)]
    true = [m for m in memories if any(names(m, w) for w in SCENARIO_FACTS)]
    print(f"\nscenario: {len(turns)} turns in {len(SCENARIO)} sessions through the llm CLI\n")
    print(markdown_table(["measure", "value"], [
        ["scripted durable facts stored", f"{len(learned)}/{len(SCENARIO_FACTS)} "
                                          f"({len(learned) / len(SCENARIO_FACTS):.0%})"],
        ["\"I'm vegetarian.\" learned", "yes" if "vegetarian" in learned else "no"],
        ["memories stored", len(memories)],
        ["precision", f"{len(true) / len(memories):.0%}" if memories else "-"],
        ["junk (fragments, key names)", sum(is_junk(m) for m in memories)],
        ["assistant opinions or guesses", len(opinions)],
        ["extraction calls per turn", f"{result['jobs'] / len(turns):.2f}"],
        ["median seconds per turn (answer + extraction)",
         f"{sorted(t['seconds'] for t in turns)[len(turns) // 2]:.1f}"],
        ["empty answers or failed turns", sum(bool(t["exit"] or not t["answer"]) for t in turns)],
    ]))
    print("\nstored:\n" + "\n".join(f"- {m}" for m in memories))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get(URL_ENV),
                        help=f"OpenAI-compatible base URL of a running server (or ${URL_ENV})")
    parser.add_argument("--gguf", default=os.environ.get(GGUF_ENV),
                        help=f"GGUF file to serve with llama_cpp.server (or ${GGUF_ENV})")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--split", choices=[*SPLITS, "both", "none"], default="tune",
                        help="Corpus split to run (tune by default; held-out once, for the report)")
    parser.add_argument("--no-scenario", action="store_true", help="Skip the scripted CLI chat")
    parser.add_argument("--turn-timeout", type=float, default=1800)
    parser.add_argument("--json", help="Also write every turn's result and raw answer here")
    parser.add_argument("-q", "--quiet", action="store_true", help="No per-turn progress")
    parser.add_argument("--report", metavar="JSON",
                        help="Print the report of a run saved with --json, without a model")
    parser.add_argument("--reparse", action="store_true",
                        help="With --report: read the saved raw answers with today's parse")
    args = parser.parse_args()
    if args.report:
        saved = json.loads(Path(args.report).read_text())
        if args.reparse:
            reparse(saved["corpus"])
        for split in SPLITS:
            corpus_report(saved["corpus"], split)
        if saved["scenario"]:
            scenario_report(saved["scenario"])
        return
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

    def log(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    user = user_dir(args.url)
    os.environ["LLM_USER_PATH"] = str(user)
    results, scenario = [], None
    try:
        rows = [r for r in load() if args.split in (r["split"], "both")]
        results = extract_corpus(rows, log)
        if not args.no_scenario:
            scenario = run_scenario(user, args.turn_timeout, log)
    finally:
        if server:
            server.terminate()
            server.wait(30)
        shutil.rmtree(user, ignore_errors=True)  # --json keeps what is worth keeping
    for split in SPLITS:
        corpus_report(results, split)
    if scenario:
        scenario_report(scenario)
    if args.json:
        Path(args.json).write_text(json.dumps({"corpus": results, "scenario": scenario},
                                              indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
