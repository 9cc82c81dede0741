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

Either way the Injection lists every memory the request shows (``shown``):
in which block, how it was chosen (pinned, cosine, hybrid, keyword, recent,
update, retracted) and with what score, recorded against the response it
served for ``llm memories used``.

Prefixing (wrapper.py), a sticky turn's block holds everything recalled for
it (``full``): a plugin that rebuilds history from the logged prompts sees
only the newest turn's block.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .recall import block_items, format_block, message_text

STICKY_CAP_FACTOR = 3


@dataclass
class Injection:
    "The blocks to send with one request, and what to record once it is answered."

    blocks: dict[int, str] = field(default_factory=dict)  # message index -> block sent just before it
    record: dict | None = None  # MemoryStore.record_injection arguments; None: nothing to record
    earlier: int = 0  # how many of ``blocks`` are earlier turns' blocks, re-sent
    new_memories: int = 0  # memories this turn's own block shows
    reset: bool = False
    # One dict per memory the request shows, in request order: memory_id,
    # block (1-based), position (in the block), method, score, sent_by (the
    # response whose turn first sent the block; None: this turn's).
    shown: list[dict] = field(default_factory=list)
    # Ids recall chose for this turn: marked used (MemoryStore.mark_used) once
    # the answer is in, with the records, not in the time before it.
    used: list[str] = field(default_factory=list)


Chosen = dict  # memory id -> (method, score): how recall picked each memory


def shown_in_blocks(entries) -> list[dict]:
    """``Injection.shown`` for blocks given as (message index, memories,
    retracted, Chosen, sent_by), in any order."""
    shown = []
    for number, (_, memories, retracted, chosen, sent_by) in enumerate(
        sorted(entries, key=lambda entry: entry[0]), 1
    ):
        for position, (memory, _, is_retracted) in enumerate(block_items(memories, retracted), 1):
            method, score = ("retracted", None) if is_retracted else chosen.get(memory.id, ("unknown", None))
            shown.append(dict(memory_id=memory.id, block=number, position=position,
                              method=method, score=score, sent_by=sent_by))
    return shown


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


def fresh_injection(messages, memories: Sequence, chosen: Chosen | None = None) -> Injection:
    "The ``fresh`` placement: a block of ``memories`` just before the newest user message."
    newest = newest_user_index(messages)
    block = format_block(list(memories))
    if newest is None or not block:
        return Injection()
    shown = shown_in_blocks([(newest, memories, (), chosen or {}, None)])
    return Injection({newest: block}, new_memories=len(memories), shown=shown)


def sticky_injection(
    store,
    messages: Sequence,
    conversation_id: str | None,
    recall_memories: Callable[[], list],
    recall_limit: int,
    chosen: Chosen | None = None,
    full: bool = False,
) -> Injection:
    """The ``sticky`` placement; see the module docstring.

    ``full``: this turn's block holds everything recalled for it, not only
    what earlier blocks did not show. For prefixing, where a plugin that
    rebuilds history from the logged prompts sees only the newest block.

    ``recall_memories()`` runs recall for this turn; it is not called when
    this very turn was answered before (a tool-call chain sends the same user
    message again), whose recorded block is re-sent as it was. It fills
    ``chosen`` with how it picked each memory.
    """
    chosen = chosen if chosen is not None else {}
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

    def entries_of(turns, blocks) -> list:
        "shown_in_blocks entries of the recorded ``turns`` whose block is sent."
        return [
            (index, [by_id[i] for i in row["memory_ids"]], [by_id[i] for i in row["retracted_ids"]],
             {i: tuple(m) for i, m in zip(row["memory_ids"], row["methods"])}, row.get("response_id"))
            for index, row in turns if index in blocks
        ]

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
        turns = since_reset(prints)
        valid, blocks = blocks_of(turns)
        if valid:
            return Injection(blocks, earlier=len(blocks) - (newest_index in blocks),
                             shown=shown_in_blocks(entries_of(turns, blocks)))

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
        for replacement in replacements:
            if replacement is not None:
                chosen.setdefault(replacement.id, ("update", None))
        offered = set(shown)
        for memory in [*(r for r in replacements if r is not None), *recalled]:
            if memory.id not in offered:
                offered.add(memory.id)
                new.append(memory)
        if full:
            new = recalled + [m for m in new if m.id not in {r.id for r in recalled}]
    sent = set(shown) | {m.id for m in new}
    reset = not valid or len(sent) > STICKY_CAP_FACTOR * max(recall_limit, 1)
    if reset:
        blocks, new, retracted = {}, recalled, []
    block = format_block(new, retracted)
    earlier_count = len(blocks)
    if block:
        blocks[newest_index] = block
    entries = entries_of(earlier, blocks) if not reset else []
    if block:
        entries.append((newest_index, new, retracted, chosen, None))
    record = None
    if block or reset:  # a reset is recorded even when empty: later turns start from it
        record = dict(
            conversation_id=conversation_id,
            fingerprint=newest_print,
            memory_ids=[m.id for m in new],
            retracted_ids=[m.id for m in retracted],
            block_sha=block_sha(block),
            reset=reset,
            methods=[chosen.get(m.id, ("unknown", None)) for m in new],
        )
    return Injection(blocks, record, earlier_count, len(new) if block else 0, reset,
                     shown_in_blocks(entries))


def current_replacement(store, memory, max_hops: int = 20):
    "The current memory that (through a chain of updates) superseded ``memory``, if any."
    seen = set()
    while memory is not None and not memory.current and memory.id not in seen and len(seen) < max_hops:
        seen.add(memory.id)
        found = store.get_many([memory.superseded_by])
        memory = found[0] if found else None
    return memory if memory is not None and memory.current else None
