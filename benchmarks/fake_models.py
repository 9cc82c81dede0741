"""The benchmarks' fake chat model, and the plumbing to expose it to a real
``llm`` subprocess.

The fake models live in tests/kinetaios_fakes.py; BenchFakeChat is its
FakeChat with the rules the benchmarks' measurements rely on: only "I ..."
sentences become facts, a new "User live(s) in X" updates a known fact that
places the user elsewhere, the judge keeps every close pair, answers can be
padded to a realistic length, and every call is logged (below). The model
never touches the network.

* In-process: ``pm.register(fake_models, name=...)``, as llm's test suite does.
* In a subprocess: ``plugin_dir()`` writes a dist-info with an ``llm`` entry
  point pointing at this module; ``subprocess_env()`` puts it, this folder
  and tests/ on PYTHONPATH and names it in LLM_LOAD_PLUGINS.

Every call the model receives is recorded in ``CALLS`` and, if the
``KINETAIOS_BENCH_CALL_LOG`` variable names a file, appended to it as one JSON
line, so calls made in other processes (the background worker) are counted.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import llm

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"  # home of the fake models (kinetaios_fakes)
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import kinetaios_fakes  # noqa: E402
from kinetaios_fakes import FakeChat, extraction_user_text, message_texts, request_kind, streamed  # noqa: E402

DIST_NAME = "kinetaios-bench-fakes"
CALL_LOG_ENV = "KINETAIOS_BENCH_CALL_LOG"
ANSWER_WORDS_ENV = "KINETAIOS_BENCH_ANSWER_WORDS"

# A scripted conversation: durable facts ("I ..." sentences, which the fake
# extractor turns into memories), an update of an earlier fact, and plain
# questions. Used by prompt_cache.py (one llm chat) and turn_overhead.py
# (one-shot turns, to count model calls).
# 15 typical extracted memories: third person, 10-15 words, as extraction writes them.
TYPICAL_MEMORIES = [
    "The user is vegetarian and avoids fish, but eats eggs and dairy products.",
    "The user lives in Porto, Portugal, and works remotely for a Berlin startup.",
    "The user is a backend engineer who mostly writes Python and some Go.",
    "The user prefers concise answers with code examples rather than long explanations.",
    "The user uses Neovim on a Linux laptop with an AMD Ryzen processor.",
    "The user is allergic to peanuts and carries an epinephrine auto-injector when travelling.",
    "The user is training for the Lisbon half marathon in October this year.",
    "The user has two cats named Miso and Tofu, adopted from a local shelter.",
    "The user is learning Japanese and practises with flashcards for twenty minutes daily.",
    "The user's time zone is Europe/Lisbon and they usually work from nine to five.",
    "The user wants to move their side project from SQLite to PostgreSQL next quarter.",
    "The user has a monthly budget of about 300 euros for eating out.",
    "The user prefers metric units and dates written in the ISO 8601 format.",
    "The user plays classical guitar and is working through the Carcassi études.",
    "The user's partner is a nurse who works night shifts at the São João hospital.",
]

CHAT_SCRIPT = [
    "Hi! I live in Porto. I work as a backend engineer. Can you suggest a weekend plan?",
    "I am vegetarian. What could I cook for dinner tonight with chickpeas?",
    "I prefer concise answers. How do I reverse a list in Python?",
    "What is a good way to learn Go quickly?",
    "I have two cats named Miso and Tofu. Are lilies dangerous for cats?",
    "I am training for a half marathon in October. How long should my long runs be?",
    "Can you recommend a book about distributed systems?",
    "I moved to Lisbon last month. I live in Lisbon now. Any neighbourhoods to explore?",
    "I am allergic to peanuts. Is satay sauce safe for me?",
    "Summarise what you would suggest for my weekend, given everything I told you.",
]

# Filler for longer answers: a real assistant answer is a few hundred tokens,
# and the answer length changes how much of a chat request is history.
_FILLER = (
    "Here is a considered answer with a few practical suggestions, some context "
    "on the trade-offs involved, and a short summary at the end so that the reply "
    "reads like a typical assistant response of moderate length."
).split()

PYCACHE = Path(tempfile.gettempdir()) / "kinetaios-bench-pycache"

CALLS: list[dict] = []  # every call in this process, oldest first

# When llm loaded this plugin: after llm's own imports and every plugin's, so
# times measured from here leave out start-up, the noisiest part of a run.
LOADED_AT = time.perf_counter()


def facts_from(user_text: str) -> list[str]:
    """The benchmarks' extractor rule: each sentence "I ..." becomes "User
    ..." (the tests' other kinds of fact, project and instruction, left out)."""
    return [fact for fact, mark in kinetaios_fakes.marked_facts_from(user_text) if mark is None]


def updates_for(facts: list[str], extraction_prompt: str) -> list[dict]:
    """The fake extractor's update rule: a new "User live(s) in X" replaces the
    first known fact that places the user somewhere else, as a real model
    answers "I moved to Lisbon" (1-based numbers, as the prompt asks)."""
    block = re.search(r"<known_facts>\n(.*?)\n</known_facts>", extraction_prompt, re.S)
    known = re.findall(r"^\[(\d+)\] (.*)$", block.group(1), re.M) if block else []
    updates = []
    for n, fact in enumerate(facts, 1):
        place = re.match(r"User lives? in (\w+)", fact)
        if not place:
            continue
        for number, text in known:
            if re.search(r"\blives? in\b", text) and place.group(1) not in text:
                updates.append({"fact": n, "known": int(number)})
                break
    return updates


def _record(entry: dict) -> None:
    CALLS.append(entry)
    path = os.environ.get(CALL_LOG_ENV)
    if path:
        with open(path, "a") as fp:
            fp.write(json.dumps(entry) + "\n")


class BenchFakeChat(FakeChat):
    """Streams "echo: <last user text>" (plus optional filler words) at once;
    answers extraction calls with {"facts": [...], "updates": [...]}, and the
    judge with no decision (close facts are kept side by side)."""

    supports_tools = True  # as Claude does: memory models then offer recall_memory

    def _answer(self, prompt, stream, response):
        _record({
            "kind": request_kind(prompt),
            "pid": os.getpid(),
            "t": time.time(),
            "system": prompt.system,
            "tools": [{"name": t.name, "description": t.description,
                       "input_schema": t.input_schema} for t in (prompt.tools or [])],
            "messages": message_texts(prompt.messages),
        })
        yield from super()._answer(prompt, stream, response)

    def judge_answer(self, prompt) -> str:
        return json.dumps({"decisions": []})  # every close pair is unrelated: keep both facts

    def extraction_answer(self, prompt):
        facts = facts_from(extraction_user_text(prompt))
        yield json.dumps({"facts": facts, "updates": updates_for(facts, prompt.prompt or "")})

    def chat_answer(self, prompt, stream, response):
        last_user = [t for role, t in message_texts(prompt.messages) if role == "user"][-1]
        words = int(os.environ.get(ANSWER_WORDS_ENV) or 0)
        filler = " ".join((_FILLER * (words // len(_FILLER) + 1))[:words])
        answer = f"echo: {last_user}" + (f"\n\n{filler}" if filler else "")
        _record_timing("first_token")
        yield from streamed(answer, stream)


def _record_timing(kind: str) -> None:
    "ms since plugin load, to the call log only (subprocess measurements)."
    path = os.environ.get(CALL_LOG_ENV)
    if path:
        with open(path, "a") as fp:
            fp.write(json.dumps({"kind": kind, "pid": os.getpid(),
                                 "ms": (time.perf_counter() - LOADED_AT) * 1000}) + "\n")


if os.environ.get(CALL_LOG_ENV):
    # The command's end as seen from inside: after the answer, enqueue,
    # worker spawn and llm's own logging.
    atexit.register(_record_timing, "exit")


FAKE_CHAT = BenchFakeChat()


@llm.hookimpl
def register_models(register):
    register(FAKE_CHAT)


# Subprocess plumbing ------------------------------------------------------


def plugin_dir(parent: Path) -> Path:
    "A folder holding a dist-info whose ``llm`` entry point is this module."
    return kinetaios_fakes.plugin_dir(parent, DIST_NAME, "fake_models")


def subprocess_env(user_path: Path, plugins: Path | None, load_plugins: str, **extra) -> dict:
    """os.environ for an ``llm`` subprocess: its own LLM_USER_PATH, only the
    named plugins, no inherited plugin settings, and no network use by the
    embedding stack."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LLM_KINETAIOS", "KINETAIOS_BENCH"))
           and k != "PYTHONDONTWRITEBYTECODE"}
    paths = [str(HERE), str(TESTS)] + ([str(plugins)] if plugins else [])
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env.update(
        LLM_USER_PATH=str(user_path),
        PYTHONPATH=os.pathsep.join(paths),
        LLM_LOAD_PLUGINS=load_plugins,
        HF_HUB_OFFLINE="1",
        # Compiled .pyc files, kept outside the checkout: an installed wheel
        # has them, and without them every run would re-compile the plugin
        # (~20 ms), which a benchmark of start-up must not count.
        PYTHONPYCACHEPREFIX=str(PYCACHE),
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


def llm_command() -> list[str]:
    "The ``llm`` console script of this interpreter's environment, else ``python -m llm``."
    script = Path(sys.executable).with_name("llm")
    return [str(script)] if script.exists() else [sys.executable, "-m", "llm"]


def read_call_log(path: Path) -> list[dict]:
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
