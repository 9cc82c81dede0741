"""When extraction runs: extra model calls per turn, and how long any user
turn waited for extraction, on a 20-turn scripted chat through the real
``llm`` CLI against a one-slot local server.

    python benchmarks/extraction_schedule.py                 # fake server, time scale 0.25
    python benchmarks/extraction_schedule.py --time-scale 1  # real time, default settings
    python benchmarks/extraction_schedule.py --url http://127.0.0.1:8080/v1 --time-scale 1

By default it starts a fake OpenAI-compatible server of its own on 127.0.0.1
with ONE slot, as llama.cpp's server has: a request that arrives while
another runs waits for it. Answers take ``--answer-seconds``, extraction
calls ``--extraction-seconds`` (a small model on a slow machine). The model is
registered through ``extra-openai-models.yaml`` in a temporary LLM_USER_PATH
(so it is recognised as local by its loopback api_base) and wrapped as
``memory-sched-bench``; the background worker runs as it does for a user.
The script types 20 turns into one conversation (``llm -c``) with think
times between them and a coffee break after turn 10.

Two configurations run in the same session, on the same script and server:

- ``extract after each turn``: setting ``extraction_idle_seconds 0``, the way
  extraction ran before it waited for the user (the baseline);
- ``default``: the plugin's defaults for a local model (idle wait 120 s),
  scaled by ``--time-scale`` like every other duration (below 1 the idle
  setting is set to the scaled value, so the proportions stay). Start-up of
  each ``llm`` process is not scaled, and the idle clock runs during it, so
  a small scale on a busy machine understates the wait the defaults give.

Reported per configuration: extraction calls per turn (goal <= 0.3), the
longest and total time a user turn waited behind an extraction call (goal 0;
measured by the fake server as time queued for its slot, or, with ``--url``,
as the overlap of each turn with the extraction jobs' recorded run times),
and the facts stored. ``--url`` points it at a real server instead (nothing
is started; durations are the server's own).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import _common  # noqa: F401  (puts the checkout on sys.path)
from _common import markdown_table
from fake_models import facts_from, llm_command

MODEL_ID = "sched-bench"
EXTRACTION_MARKER = "You maintain a long-term memory"
LOCAL_IDLE_SECONDS = 120  # worker.LOCAL_IDLE_SECONDS, the default being measured

# (what the user types, seconds they then think before the next turn)
SCRIPT = [
    ("I'm planning a trip to Japan in spring. I live in Lisbon.", 25),
    ("Which cities should I see in ten days?", 40),
    ("I prefer trains to planes.", 20),
    ("How does the JR pass work?", 35),
    ("Is it worth it for my route?", 15),
    ("I am vegetarian. What should I eat there?", 45),
    ("Give me three dishes to try.", 20),
    ("Thanks! What about Kyoto temples?", 30),
    ("I have a bad knee, so no long hikes.", 25),
    ("Which temples are flat and easy to reach?", 240),  # coffee break
    ("Back. Now help me with my budget.", 30),
    ("I earn in euros and I don't want to spend more than 3000.", 35),
    ("Split that by week, please.", 20),
    ("Which areas of Tokyo are cheap to stay in?", 40),
    ("I like quiet neighbourhoods.", 25),
    ("Write me a short packing list.", 30),
    ("Add an umbrella.", 15),
    ("I always travel with my camera.", 30),
    ("Any tips for photographing temples?", 20),
    ("Great, that's all for today.", 0),
]


class OneSlotServer(ThreadingHTTPServer):
    """An OpenAI-compatible chat endpoint that serves one request at a time.
    Records (kind, arrived, started, ended) per request, in seconds."""

    daemon_threads = True

    def __init__(self, answer_seconds: float, extraction_seconds: float):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.slot = threading.Lock()
        self.answer_seconds = answer_seconds
        self.extraction_seconds = extraction_seconds
        self.requests: list[dict] = []
        self.record_lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: OneSlotServer

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 - /v1/models, for a client that asks
        self._json({"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]})

    def do_POST(self):  # noqa: N802
        arrived = time.monotonic()
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        messages = body.get("messages", [])
        system = "".join(m["content"] for m in messages
                         if m.get("role") == "system" and isinstance(m.get("content"), str))
        extraction = EXTRACTION_MARKER in system
        with self.server.slot:
            started = time.monotonic()
            time.sleep(self.server.extraction_seconds if extraction else self.server.answer_seconds)
            if extraction:
                prompt = messages[-1]["content"] if messages else ""
                users = re.findall(r"<user_message>\n(.*?)\n</user_message>", prompt, re.S)
                text = json.dumps({"facts": facts_from("\n".join(users)), "updates": [],
                                   "project": [], "instructions": []})
            else:
                text = "Noted."
            ended = time.monotonic()
        with self.server.record_lock:
            self.server.requests.append({"kind": "extract" if extraction else "answer",
                                         "arrived": arrived, "started": started, "ended": ended})
        try:
            self._json({"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                        "model": body.get("model", MODEL_ID),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
        except OSError:
            pass  # the client gave up (a timed-out extraction)

    def _json(self, data):
        payload = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def llm_run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*llm_command(), *args], env=env, capture_output=True, text=True,
                          timeout=3600)


def run_chat(url: str, idle_seconds: int | None, scale: float, turns: int) -> dict:
    """The scripted chat through ``llm``, then a wait for the worker to drain
    the queue. Returns each turn's (start, end) and the database path."""
    user = Path(tempfile.mkdtemp(prefix="kinetaios-schedule-"))
    (user / "extra-openai-models.yaml").write_text(
        f"- model_id: {MODEL_ID}\n  model_name: {MODEL_ID}\n  api_base: \"{url}\"\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_KINETAIOS")}
    env.update(LLM_USER_PATH=str(user), LLM_KINETAIOS_WORKER="background")
    for args in (["memories", "wrap", MODEL_ID], ["memories", "config", "embedding-model", "none"]) + (
        (["memories", "config", "extraction-idle-seconds", str(idle_seconds)],)
        if idle_seconds is not None else ()
    ):
        done = llm_run(env, *args)
        if done.returncode:
            raise SystemExit(f"llm {' '.join(args)} failed: {done.stderr.strip()}")
    spans = []
    for n, (text, think) in enumerate(SCRIPT[:turns]):
        started = time.monotonic()
        done = llm_run(env, "-m", f"memory-{MODEL_ID}", "--no-stream", *(["-c"] if n else []), text)
        spans.append((started, time.monotonic(), time.time()))
        if done.returncode or not done.stdout.strip():
            print(f"turn {n + 1}: exit {done.returncode}, answer {done.stdout.strip()!r}: "
                  f"{done.stderr.strip()[:200]}")
        time.sleep(think * scale)
    db = user / "logs.db"
    deadline = time.monotonic() + LOCAL_IDLE_SECONDS * 2 + 600
    while time.monotonic() < deadline:  # the last batch runs once the user is idle
        with sqlite3.connect(db) as conn:
            left = conn.execute("select count(*) from memory_jobs where kind = 'extract' "
                                "and status in ('pending', 'running')").fetchone()[0]
        if not left:
            break
        time.sleep(0.5)
    return {"spans": spans, "db": db}


def summarise(name: str, chat: dict, server: OneSlotServer | None, since: float,
              turns: int) -> list:
    with sqlite3.connect(chat["db"]) as conn:
        jobs = conn.execute("select started_at, finished_at, status from memory_jobs "
                            "where kind = 'extract'").fetchall()
        stored = conn.execute("select count(*) from memories").fetchone()[0]
    if server is not None:
        mine = [r for r in server.requests if r["arrived"] >= since]
        calls = sum(r["kind"] == "extract" for r in mine)
        waits = [r["started"] - r["arrived"] for r in mine if r["kind"] == "answer"]
    else:
        # Calls: one per distinct attempt start; wait: each turn's overlap
        # with a running extraction call (wall clock, ms in the database).
        attempts = sorted({(s, f) for s, f, _ in jobs if s})
        calls = len(attempts)
        waits = []
        for start, end, wall in chat["spans"]:
            turn_start_ms = wall * 1000 - (end - start) * 1000
            waits.append(sum(max(0.0, min(f or wall * 1000, wall * 1000) - max(s, turn_start_ms))
                             for s, f in attempts) / 1000)
    pending = sum(status != "done" for _, _, status in jobs)
    return [name, calls, f"{calls / turns:.2f}", f"{max(waits, default=0):.1f}",
            f"{sum(waits):.1f}", sum(w > 0.05 for w in waits), stored, pending]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="A real OpenAI-compatible server instead of the fake one")
    parser.add_argument("--time-scale", type=float, default=0.25,
                        help="Multiply think times, server times and the idle wait (1: real time)")
    parser.add_argument("--answer-seconds", type=float, default=8.0,
                        help="Fake server: seconds per answer (before scaling)")
    parser.add_argument("--extraction-seconds", type=float, default=60.0,
                        help="Fake server: seconds per extraction call (before scaling)")
    parser.add_argument("--turns", type=int, default=len(SCRIPT))
    args = parser.parse_args()
    scale = args.time_scale
    server = None
    if not args.url:
        server = OneSlotServer(args.answer_seconds * scale, args.extraction_seconds * scale)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    url = args.url or server.url
    # Below real time the default wait is scaled like everything else.
    default_idle = None if scale == 1 else max(1, round(LOCAL_IDLE_SECONDS * scale))
    rows = []
    try:
        for name, idle in (("extract after each turn (baseline)", 0), ("default", default_idle)):
            since = time.monotonic()
            chat = run_chat(url, idle, scale, args.turns)
            rows.append(summarise(name, chat, server, since, args.turns))
            print(f"{name}: done", flush=True)
    finally:
        if server:
            server.shutdown()
    print(f"\n{args.turns} turns, time scale {scale}"
          + (f", fake one-slot server: answers {args.answer_seconds * scale:.1f} s, "
             f"extraction {args.extraction_seconds * scale:.1f} s" if server else f", server {url}")
          + (f"; default idle wait scaled to {default_idle} s" if default_idle else "") + "\n")
    print(markdown_table(
        ["configuration", "extraction calls", "calls per turn (goal <= 0.3)",
         "longest wait s (goal 0)", "total wait s", "turns that waited", "facts stored",
         "jobs not done"], rows))
    base, new = rows
    if float(base[2]):
        print(f"\ncalls per turn: {float(new[2]) / float(base[2]):.2f}x the baseline's")


if __name__ == "__main__":
    main()
