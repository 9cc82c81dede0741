"""Where the ``## About the user`` blocks go in a request, turn after turn.

Providers cache a request by its prefix: a turn is cheap when it starts with
the previous turn's request, byte for byte. Two placements (the
``injection`` setting):

sticky (the default)
    Each turn's block is sent just before that turn's user message, and every
    later turn re-sends it in the same place, rebuilt from the memories it
    named. A turn's own block holds only memories no earlier block of the
    conversation showed, or nothing. So request n is a prefix of request n+1
    and each memory is sent once per conversation. logs.db still never holds
    a block: ``kinetaios_injections`` records which memory ids each turn
    showed, keyed by a fingerprint of the conversation's user messages up to
    that turn.

    An earlier block is only re-sent if it would read exactly as it did.
    When a memory it showed has been superseded since (an update: "I moved
    to Lisbon"), it still reads so, and this turn's block carries the newer
    fact and a ``No longer true: ...`` bullet for the old one: the prefix
    stays, and the model reads the correction after the outdated fact, as it
    would in the conversation itself. When a memory it showed was deleted or
    edited (the user's own correction, which may be about privacy), or the
    conversation has been shown more than ``STICKY_CAP_FACTOR`` times
    ``recall_limit`` memories, the earlier blocks are dropped and this turn
    sends one full block (a "reset", recorded so later turns start from it).
    Deleted and edited facts never linger; the cache misses once.

fresh
    One new block per turn just before the newest user message, nothing of
    earlier turns: the request's tail (block + message) changes every turn.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .recall import format_block, message_text

STICKY_CAP_FACTOR = 3


@dataclass
class Injection:
    "The blocks to send with one request, and what to record once it is answered."

    blocks: dict[int, str] = field(default_factory=dict)  # message index -> block sent just before it
    record: dict | None = None  # MemoryStore.record_injection arguments; None: nothing to record
    earlier: int = 0  # how many of ``blocks`` are earlier turns' blocks, re-sent
    new_memories: int = 0  # memories this turn's own block shows
    reset: bool = False


def newest_user_index(messages) -> int | None:
    return max((i for i, m in enumerate(messages) if m.role == "user"), default=None)


def user_fingerprints(messages) -> list[tuple[int, str]]:
    """(message index, fingerprint) of each user message: a hash of its text
    and the text of every user message before it. Assistant text is left
    out, so the fingerprint is the same whether llm rebuilds the history
    from logs.db (``-c``) or keeps it in memory (``llm chat``)."""
    digest = hashlib.sha256()
    found = []
    for index, message in enumerate(messages):
        if message.role == "user":
            digest.update(" ".join(message_text(message).split()).encode())
            digest.update(b"\x1e")
            found.append((index, digest.copy().hexdigest()))
    return found


def block_sha(block: str | None) -> str:
    return hashlib.sha256((block or "").encode()).hexdigest()


def fresh_injection(messages, block: str | None, memory_count: int) -> Injection:
    "The ``fresh`` placement: ``block`` (of ``memory_count`` memories) just before the newest user message."
    newest = newest_user_index(messages)
    if newest is None or not block:
        return Injection()
    return Injection({newest: block}, new_memories=memory_count)


def sticky_injection(
    store,
    messages: Sequence,
    conversation_id: str | None,
    recall_memories: Callable[[], list],
    recall_limit: int,
) -> Injection:
    """The ``sticky`` placement; see the module docstring.

    ``recall_memories()`` runs recall for this turn; it is not called when
    this very turn was answered before (a tool-call chain sends the same user
    message again), whose recorded block is re-sent as it was.
    """
    prints = user_fingerprints(messages)
    if not prints:
        return Injection()
    rows = store.injections(conversation_id, [fp for _, fp in prints])
    wanted = {i for row in rows.values() for i in (*row["memory_ids"], *row["retracted_ids"])}
    by_id = {m.id: m for m in store.get_many(sorted(wanted))}

    def rebuilt(row) -> tuple[bool, str | None]:
        "(still reads as it did when sent, the block)."
        memories = [by_id.get(i) for i in row["memory_ids"]]
        retracted = [by_id.get(i) for i in row["retracted_ids"]]
        if any(m is None for m in memories + retracted):
            return False, None
        block = format_block(memories, retracted)
        return block_sha(block) == row["block_sha"], block

    def since_reset(turns) -> list[tuple[int, dict]]:
        "The recorded turns among ``turns`` from the latest reset on."
        chosen: list[tuple[int, dict]] = []
        for index, fingerprint in turns:
            row = rows.get(fingerprint)
            if row is not None:
                if row["reset"]:
                    chosen = []
                chosen.append((index, row))
        return chosen

    def blocks_of(turns) -> tuple[bool, dict[int, str]]:
        blocks, valid = {}, True
        for index, row in turns:
            ok, block = rebuilt(row)
            valid = valid and ok
            if block:
                blocks[index] = block
        return valid, blocks

    newest_index, newest_print = prints[-1]
    if newest_print in rows:  # this turn again: re-send exactly what it was sent
        valid, blocks = blocks_of(since_reset(prints))
        if valid:
            return Injection(blocks, earlier=len(blocks) - (newest_index in blocks))

    earlier = since_reset(prints[:-1])
    valid, blocks = blocks_of(earlier)
    shown = list(dict.fromkeys(i for _, row in earlier for i in row["memory_ids"]))
    already_retracted = {i for _, row in earlier for i in row["retracted_ids"]}
    recalled = recall_memories()
    retracted: list = []
    new: list = []
    if valid:
        retracted = [by_id[i] for i in shown if not by_id[i].current and i not in already_retracted]
        replacements = [current_replacement(store, m) for m in retracted]
        offered = set(shown)
        for memory in [*(r for r in replacements if r is not None), *recalled]:
            if memory.id not in offered:
                offered.add(memory.id)
                new.append(memory)
    reset = not valid or len(shown) + len(new) > STICKY_CAP_FACTOR * max(recall_limit, 1)
    if reset:
        blocks, new, retracted = {}, recalled, []
    block = format_block(new, retracted)
    earlier_count = len(blocks)
    if block:
        blocks[newest_index] = block
    record = None
    if block or reset:  # a reset is recorded even when empty: later turns start from it
        record = dict(
            conversation_id=conversation_id,
            fingerprint=newest_print,
            memory_ids=[m.id for m in new],
            retracted_ids=[m.id for m in retracted],
            block_sha=block_sha(block),
            reset=reset,
        )
    return Injection(blocks, record, earlier_count, len(new) if block else 0, reset)


def current_replacement(store, memory, max_hops: int = 20):
    "The current memory that (through a chain of updates) superseded ``memory``, if any."
    seen = set()
    while memory is not None and not memory.current and memory.id not in seen and len(seen) < max_hops:
        seen.add(memory.id)
        found = store.get_many([memory.superseded_by])
        memory = found[0] if found else None
    return memory if memory is not None and memory.current else None
