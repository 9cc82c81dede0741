#!/usr/bin/env python3
"""How much of each memory-model request a provider's prefix cache can reuse.

Run from the repository root:

    python benchmarks/prompt_cache.py            # e5 recall, 150-word answers
    python benchmarks/prompt_cache.py --quick    # keyword recall, 60-word answers

A scripted 10-turn ``llm chat -m memory-fake`` (fake_models.CHAT_SCRIPT: facts,
an update of one, plain questions) runs in-process through click's CliRunner,
with the plugin and a recording fake model registered on llm's plugin manager
as llm's own tests do. LLM_KINETAIOS_WORKER=inline, so extraction adds
memories between turns and what recall injects changes from turn to turn. The
store starts with 30 typical memories (real e5 vectors), so recall has
something to choose from on turn 1.

Every request the inner model receives is serialised canonically, in the
order providers cache: tool definitions, then the system prompt, then each
message as one JSON line [role, text]. For each turn, the score is the share
of that request that is a byte-identical prefix of the next turn's request:
what the next turn could read from a cache the current one wrote.

Placements compared, over the same recorded run:

  ours    as recorded: the block is a user message just before the newest
          user message (the package's current code)
  seed    the seed design: the block as the first message of the history,
          right after the system prompt. Made by post-processing each recorded
          request: the block message is moved from its place to index 0 of
          the messages; nothing else changes (same blocks, same history).
  sticky  a possible alternative, for comparison: each turn's block stays in
          the history where it was injected (as if logged), so later requests
          carry earlier blocks unchanged. Built from the recorded requests by
          re-inserting turn j's block before user message j.
  sticky-delta  the same, but turn j's block keeps only the bullets that no
          earlier block of the chat showed (no block when nothing is new).

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


def setup(user: Path, embedding: str, answer_words: int, seed_memories: int) -> None:
    """Environment first (llm reads LLM_LOAD_PLUGINS at import), then the
    plugin and the recording fake on llm's plugin manager, as tests/conftest.py
    does: no installed plugin's entry point is loaded."""
    os.environ.pop("LLM_LOAD_PLUGINS", None)
    os.environ["LLM_USER_PATH"] = str(user)
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
    (user / "default_model.txt").write_text("fake")
    (user / "kinetaios.json").write_text(json.dumps({
        "wrapped_models": ["fake"],
        "embedding_model": "multilingual-e5-small" if embedding == "e5" else None,
    }))
    if seed_memories:
        from llm_kinetaios.store import MemoryStore

        texts = [f"{fact[:-1]} (item {i})." if i >= len(fake_models.TYPICAL_MEMORIES) else fact
                 for i, fact in enumerate((fake_models.TYPICAL_MEMORIES * 10)[:seed_memories])]
        vectors = [None] * len(texts)
        if embedding == "e5":
            from llm_kinetaios.embeddings import MultilingualE5Small, embed_passages, to_blob

            vectors = [to_blob(v) for v in embed_passages(MultilingualE5Small(), texts)]
        store = MemoryStore.open(user / "logs.db")
        try:
            store.add_many([{"content": t, "source": "import", "embedding": v,
                             "embedding_model": "multilingual-e5-small" if v else None}
                            for t, v in zip(texts, vectors)])
        finally:
            store.close()


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


# --------------------------------------------------------------------------- placements


def block_index(messages) -> int | None:
    found = [i for i, (role, text) in enumerate(messages)
             if role == "user" and text.startswith(BLOCK_HEADING)]
    return found[-1] if found else None


def seed_placement(messages):
    "Move the block message to the front of the messages (after any system message)."
    i = block_index(messages)
    if i is None:
        return list(messages)
    rest = messages[:i] + messages[i + 1:]
    head = 0
    while head < len(rest) and rest[head][0] == "system":
        head += 1
    return rest[:head] + [messages[i]] + rest[head:]


def delta_blocks(requests) -> list:
    """Turn j's block reduced to the bullets no earlier block of this chat
    showed (None when nothing is new): the "delta" variant of sticky."""
    seen: set[str] = set()
    out = []
    for request in requests:
        i = block_index(request["messages"])
        if i is None:
            out.append(None)
            continue
        head, _, bullets = request["messages"][i][1].partition("\n- ")
        lines = ["- " + line for line in bullets.split("\n- ")] if bullets else []
        lines = [line if line.startswith("- ") else "- " + line for line in lines]
        new = [line for line in lines if line not in seen]
        seen.update(new)
        out.append(("user", head + "\n" + "\n".join(new)) if new else None)
    return out


def sticky_placements(requests, blocks=None) -> list[list]:
    """Each turn's block kept where it was injected: before turn j's user
    message in every later request. Built from the recorded requests."""
    if blocks is None:
        blocks = []
        for request in requests:
            i = block_index(request["messages"])
            blocks.append(request["messages"][i] if i is not None else None)
    out = []
    for n, request in enumerate(requests):
        messages = [m for m in request["messages"] if not (
            m[0] == "user" and m[1].startswith(BLOCK_HEADING))]
        rebuilt, user_turn = [], 0
        for role, text in messages:
            if role == "user":
                if user_turn <= n and blocks[user_turn] is not None:
                    rebuilt.append(blocks[user_turn])
                user_turn += 1
            rebuilt.append((role, text))
        out.append(rebuilt)
    return out


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
    parser.add_argument("--json", metavar="PATH", help="also write the recorded requests here")
    parser.add_argument("--quick", action="store_true",
                        help="keyword recall (no model load), 60-word answers")
    args = parser.parse_args()
    if args.quick:
        args.embedding, args.answer_words = "none", 60

    with tempfile.TemporaryDirectory(prefix="kinetaios-cache-") as tmp:
        setup(Path(tmp), args.embedding, args.answer_words, args.seed_memories)
        requests = run_chat()
        from llm_kinetaios.store import MemoryStore

        store = MemoryStore.open()
        memories = store.count()
        store.close()

    ours = [serialise(r, r["messages"]) for r in requests]
    seed = [serialise(r, seed_placement(r["messages"])) for r in requests]
    sticky = [serialise(r, m) for r, m in zip(requests, sticky_placements(requests))]
    delta = [serialise(r, m) for r, m in
             zip(requests, sticky_placements(requests, delta_blocks(requests)))]
    s_ours, s_seed, s_sticky, s_delta = shares(ours), shares(seed), shares(sticky), shares(delta)

    blocks = []
    for r in requests:
        i = block_index(r["messages"])
        blocks.append(r["messages"][i][1] if i is not None else "")

    print(f"# Prefix reuse over a {len(requests)}-turn `llm chat -m memory-fake` "
          f"(recall: {args.embedding}, answers ~{args.answer_words} words, "
          f"{args.seed_memories} seed memories, {memories} after the chat)\n")
    rows = []
    for n in range(len(requests) - 1):
        changed = "yes" if blocks[n] != blocks[n + 1] else "no"
        rows.append([n + 1, len(ours[n]), len(blocks[n]), changed,
                     f"{100 * s_ours[n]:.1f}%", f"{100 * s_seed[n]:.1f}%",
                     f"{100 * s_sticky[n]:.1f}%", len(sticky[n]), f"{100 * s_delta[n]:.1f}%",
                     len(delta[n]), "met" if s_ours[n] >= TARGET else "NOT met"])
    rows.append(["mean", f"{statistics.mean(len(x) for x in ours[:-1]):.0f}",
                 f"{statistics.mean(len(b) for b in blocks[:-1]):.0f}", "",
                 f"{100 * statistics.mean(s_ours):.1f}%", f"{100 * statistics.mean(s_seed):.1f}%",
                 f"{100 * statistics.mean(s_sticky):.1f}%",
                 f"{statistics.mean(len(x) for x in sticky[:-1]):.0f}",
                 f"{100 * statistics.mean(s_delta):.1f}%",
                 f"{statistics.mean(len(x) for x in delta[:-1]):.0f}", ""])
    print(markdown_table(["turn", "request bytes (ours)", "block bytes", "block differs next turn",
                 "ours: prefix of next", "seed: prefix of next", "sticky: prefix of next",
                 "sticky bytes", "sticky-delta: prefix of next", "sticky-delta bytes",
                 f">= {TARGET:.0%} (ours)"], rows))
    first_ok = next((n + 1 for n, s in enumerate(s_ours) if s >= TARGET), None)
    print(f"\nTarget >= {TARGET:.0%} every turn for ours: "
          f"{'met' if min(s_ours) >= TARGET else 'NOT met'} "
          f"(min {100 * min(s_ours):.1f}%, first turn at or above it: {first_ok}).")
    print("ours: the unreusable tail of request n is its block + newest user message; "
          "seed: everything after the first differing byte of the block, whenever the "
          "block changes; sticky: nothing, at the cost of carrying old blocks; "
          "sticky-delta: nothing, and each memory is sent once per conversation.")
    if args.json:
        Path(args.json).write_text(json.dumps(requests, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
