#!/usr/bin/env python3
"""How much of each memory-model request a provider's prefix cache can reuse.

Run from the repository root:

    python benchmarks/prompt_cache.py            # e5 recall, 150-word answers
    python benchmarks/prompt_cache.py --quick    # keyword recall, 60-word answers

A scripted 10-turn ``llm chat -m memory-fake`` (fake_models.CHAT_SCRIPT: facts,
an update of one, plain questions) runs in-process through click's CliRunner,
with the plugin and a recording fake model registered on llm's plugin manager
as llm's own tests do. LLM_KINETAIOS_WORKER=inline, so extraction adds
memories between turns and what recall finds changes from turn to turn. The
store starts with 30 typical memories (real e5 vectors), so recall has
something to choose from on turn 1.

The chat runs twice, from the same starting store, once per ``injection``
setting, and every request the inner model receives is recorded:

  sticky  the default: each turn's block stays where it was first sent and a
          turn adds a block only of memories the conversation has not seen
  fresh   ``llm memories config injection fresh``: one fresh block per turn,
          just before the newest user message, and none of the earlier ones
  seed    the seed design: the fresh run's block moved to the first message
          of the history, right after the system prompt (post-processed from
          the recorded fresh requests; nothing else changes)

Each request is serialised canonically, in the order providers cache: tool
definitions, then the system prompt, then each message as one JSON line
[role, text]. For each turn the score is the share of that request that is a
byte-identical prefix of the next turn's request: what the next turn could
read from a cache the current one wrote. "Uncached bytes" sums, over the
chat, what each request does not share with the one before it: what a
provider would bill at the full price.

A provider caches at explicit breakpoints and at a minimum size (Anthropic:
1,024 tokens for Sonnet), so these shares are an upper bound on what is
billed as cached; they show what the placement allows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import markdown_table  # noqa: E402

HERE = Path(__file__).resolve().parent
TARGET = 0.90
SYSTEM_PROMPT = "You are a helpful assistant. Answer clearly and accurately."
BLOCK_HEADING = "## About the user"  # recall.BLOCK_HEADING


def register_plugins(embedding: str, answer_words: int) -> None:
    """Environment first (llm reads LLM_LOAD_PLUGINS at import), then the
    plugin and the recording fake on llm's plugin manager, as tests/conftest.py
    does: no installed plugin's entry point is loaded."""
    os.environ.pop("LLM_LOAD_PLUGINS", None)
    os.environ["LLM_KINETAIOS_WORKER"] = "inline"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["KINETAIOS_BENCH_ANSWER_WORDS"] = str(answer_words)
    sys._called_from_test = True  # llm: do not load setuptools entry points
    sys.path.insert(0, str(HERE))
    import fake_models
    import llm_kinetaios
    from llm.plugins import pm

    pm.register(llm_kinetaios, name="kinetaios")
    pm.register(fake_models, name="bench-fakes")


def seed_rows(embedding: str, count: int) -> list[dict]:
    "The starting store's memories, embedded once and shared by both runs."
    import fake_models

    texts = [f"{fact[:-1]} (item {i})." if i >= len(fake_models.TYPICAL_MEMORIES) else fact
             for i, fact in enumerate((fake_models.TYPICAL_MEMORIES * 10)[:count])]
    vectors = [None] * len(texts)
    if embedding == "e5" and texts:
        from llm_kinetaios.embeddings import MultilingualE5Small, embed_passages, to_blob

        vectors = [to_blob(v) for v in embed_passages(MultilingualE5Small(), texts)]
    return [{"content": t, "source": "import", "embedding": v,
             "embedding_model": "multilingual-e5-small" if v else None}
            for t, v in zip(texts, vectors)]


def prepare_user(user: Path, embedding: str, injection: str, rows: list[dict]) -> None:
    "A fresh LLM_USER_PATH: settings for this run and the seed memories."
    os.environ["LLM_USER_PATH"] = str(user)
    (user / "default_model.txt").write_text("fake")
    (user / "kinetaios.json").write_text(json.dumps({
        "wrapped_models": ["fake"],
        "embedding_model": "multilingual-e5-small" if embedding == "e5" else None,
        "injection": injection,
    }))
    if rows:
        from llm_kinetaios.store import MemoryStore

        store = MemoryStore.open(user / "logs.db")
        try:
            store.add_many([dict(row) for row in rows])
        finally:
            store.close()


def delete_during(turn: int) -> None:
    """Make the fake delete the first memory turn 1's block showed while it
    answers turn ``turn``: as if the user ran ``llm memories delete`` in
    another terminal mid-chat. The next sticky turn must then reset."""
    import fake_models
    from llm_kinetaios.store import MemoryStore

    original = fake_models.BenchFakeChat.execute

    def execute(self, prompt, stream, response, conversation):
        chunks = original(self, prompt, stream, response, conversation)
        first = next(chunks, None)  # the call is recorded before its first chunk
        answers = [c for c in fake_models.CALLS if c["kind"] == "answer"]
        if len(answers) == turn and fake_models.CALLS[-1]["kind"] == "answer":
            block = next(t for _, t in answers[0]["messages"] if t.startswith(BLOCK_HEADING))
            doomed = bullets(block)[0][2:]
            store = MemoryStore.open()
            try:
                store.delete([m.id for m in store.list(limit=None) if m.content == doomed])
            finally:
                store.close()
        if first is not None:
            yield first
        yield from chunks

    fake_models.BenchFakeChat.execute = execute


def run_chat() -> list[dict]:
    "The scripted chat; returns the answer requests the inner model received."
    import fake_models
    from click.testing import CliRunner
    from llm.cli import cli

    fake_models.CALLS.clear()
    result = CliRunner().invoke(
        cli, ["chat", "-m", "memory-fake", "-s", SYSTEM_PROMPT],
        input="\n".join(fake_models.CHAT_SCRIPT) + "\nquit\n")
    if result.exit_code != 0:
        raise SystemExit(f"llm chat failed: {result.output[-1000:]}\n{result.exception!r}")
    answers = [c for c in fake_models.CALLS if c["kind"] == "answer"]
    if len(answers) != len(fake_models.CHAT_SCRIPT):
        raise SystemExit(f"expected {len(fake_models.CHAT_SCRIPT)} answer calls, got "
                         f"{len(answers)}: {result.output[-800:]}")
    return answers


def recorded_run(embedding: str, injection: str, rows: list[dict]) -> tuple[list[dict], int]:
    "The chat in its own user directory; (requests, memories after the chat)."
    from llm_kinetaios.store import MemoryStore

    with tempfile.TemporaryDirectory(prefix=f"kinetaios-cache-{injection}-") as tmp:
        prepare_user(Path(tmp), embedding, injection, rows)
        requests = run_chat()
        store = MemoryStore.open()
        try:
            memories = store.count()
        finally:
            store.close()
    return requests, memories


# --------------------------------------------------------------------------- placements


def block_indexes(messages) -> list[int]:
    return [i for i, (role, text) in enumerate(messages)
            if role == "user" and text.startswith(BLOCK_HEADING)]


def seed_placement(messages):
    "Move the (fresh) block message to the front of the messages, after any system message."
    found = block_indexes(messages)
    if not found:
        return list(messages)
    i = found[-1]
    rest = messages[:i] + messages[i + 1:]
    head = 0
    while head < len(rest) and rest[head][0] == "system":
        head += 1
    return rest[:head] + [messages[i]] + rest[head:]


def bullets(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.startswith("- ")]


def serialise(request: dict, messages) -> bytes:
    "Tools, system, then one JSON line per message: the order a provider caches in."
    lines = [json.dumps(["tools", request.get("tools") or []], sort_keys=True)]
    if request.get("system") and not any(role == "system" for role, _ in messages):
        lines.append(json.dumps(["system", request["system"]], ensure_ascii=False))
    lines += [json.dumps([role, text], ensure_ascii=False) for role, text in messages]
    return ("\n".join(lines) + "\n").encode()


def common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n  # binary search on prefix equality: fast for long requests
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def shares(serialised: list[bytes]) -> list[float]:
    return [common_prefix(a, b) / len(a) for a, b in zip(serialised, serialised[1:])]


def uncached_bytes(serialised: list[bytes]) -> int:
    "Bytes of each request not shared with the request before it, summed over the chat."
    total = len(serialised[0])
    for before, after in zip(serialised, serialised[1:]):
        total += len(after) - common_prefix(before, after)
    return total


# --------------------------------------------------------------------------- report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedding", choices=("e5", "none"), default="e5",
                        help="recall with multilingual-e5-small (default) or keywords only")
    parser.add_argument("--answer-words", type=int, default=150,
                        help="words of filler in each fake answer (default 150, about "
                             "200 tokens: a typical reply)")
    parser.add_argument("--seed-memories", type=int, default=30,
                        help="memories in the store before the chat (default 30)")
    parser.add_argument("--delete-at", type=int, default=0, metavar="TURN",
                        help="delete a memory turn 1 showed while turn TURN is answered "
                             "(the cost of a reset); default: never")
    parser.add_argument("--json", metavar="PATH", help="also write the recorded requests here")
    parser.add_argument("--quick", action="store_true",
                        help="keyword recall (no model load), 60-word answers")
    args = parser.parse_args()
    if args.quick:
        args.embedding, args.answer_words = "none", 60

    register_plugins(args.embedding, args.answer_words)
    if args.delete_at:
        delete_during(args.delete_at)
    rows = seed_rows(args.embedding, args.seed_memories)
    sticky_requests, memories = recorded_run(args.embedding, "sticky", rows)
    fresh_requests, fresh_memories = recorded_run(args.embedding, "fresh", rows)

    placements = {
        "sticky": [serialise(r, r["messages"]) for r in sticky_requests],
        "fresh": [serialise(r, r["messages"]) for r in fresh_requests],
        "seed": [serialise(r, seed_placement(r["messages"])) for r in fresh_requests],
    }
    share = {name: shares(requests) for name, requests in placements.items()}
    uncached = {name: uncached_bytes(requests) for name, requests in placements.items()}
    sent = {name: sum(len(r) for r in requests) for name, requests in placements.items()}
    # Cache reads cost a tenth of the base input price at Anthropic (and at
    # OpenAI for current models); writes are billed here at the base price.
    cost = {name: uncached[name] + 0.1 * (sent[name] - uncached[name]) for name in placements}

    print(f"# Prefix reuse over a {len(sticky_requests)}-turn `llm chat -m memory-fake` "
          f"(recall: {args.embedding}, answers ~{args.answer_words} words, "
          f"{args.seed_memories} seed memories, {memories} after the chat"
          + ("" if memories == fresh_memories else f"; {fresh_memories} in the fresh run")
          + (f"; a memory turn 1 showed deleted during turn {args.delete_at}"
             if args.delete_at else "")
          + ")\n")
    rows_out, seen = [], set()
    for n, request in enumerate(sticky_requests[:-1]):
        blocks = [request["messages"][i][1] for i in block_indexes(request["messages"])]
        new = [b for block in blocks for b in bullets(block) if b not in seen]
        seen.update(new)
        fresh_block = [fresh_requests[n]["messages"][i][1]
                       for i in block_indexes(fresh_requests[n]["messages"])]
        rows_out.append([
            n + 1, len(placements["sticky"][n]), len(blocks), len(new),
            f"{100 * share['sticky'][n]:.1f}%",
            len(placements["fresh"][n]), len(bullets(fresh_block[-1])) if fresh_block else 0,
            f"{100 * share['fresh'][n]:.1f}%", f"{100 * share['seed'][n]:.1f}%",
            "met" if share["sticky"][n] >= TARGET else "NOT met"])
    rows_out.append([
        "mean", f"{statistics.mean(len(x) for x in placements['sticky'][:-1]):.0f}", "", "",
        f"**{100 * statistics.mean(share['sticky']):.1f}%**",
        f"{statistics.mean(len(x) for x in placements['fresh'][:-1]):.0f}", "",
        f"{100 * statistics.mean(share['fresh']):.1f}%",
        f"{100 * statistics.mean(share['seed']):.1f}%", ""])
    print(markdown_table([
        "turn", "sticky: request bytes", "sticky: blocks", "sticky: memories never sent before",
        "sticky: prefix of next", "fresh: request bytes", "fresh: memories in block",
        "fresh: prefix of next", "seed: prefix of next", f">= {TARGET:.0%} (sticky)"], rows_out))
    print()
    print(markdown_table(
        ["over the chat", "sticky", "fresh", "seed", "sticky / fresh"],
        [["bytes sent (all 10 requests)", sent["sticky"], sent["fresh"], sent["seed"],
          f"{sent['sticky'] / sent['fresh']:.2f}x"],
         ["uncached bytes (not a prefix of the request before)", uncached["sticky"],
          uncached["fresh"], uncached["seed"], f"{uncached['sticky'] / uncached['fresh']:.2f}x"],
         ["input cost in bytes, cached bytes at 0.1x", *(f"{cost[k]:.0f}" for k in placements),
          f"{cost['sticky'] / cost['fresh']:.2f}x"]]))
    low = min(share["sticky"])
    print(f"\nTarget >= {TARGET:.0%} every turn (sticky, the default): "
          f"{'met' if low >= TARGET else 'NOT met'} (min {100 * low:.1f}%).")
    print("sticky: a request is the previous one plus the answer, any new memories and "
          "the newest message, unless a memory it showed was edited or deleted (then one "
          "fresh block replaces the old ones); fresh: the block + newest message are never "
          "reusable; seed: everything after the first differing byte of the block, "
          "whenever the block changes.")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"sticky": sticky_requests, "fresh": fresh_requests}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
