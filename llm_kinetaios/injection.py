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
    recorded = RecordedTurns.load(store, conversation_id, prints)
    newest_index, newest_print = prints[-1]
    if newest_print in recorded.rows:  # this turn again: re-send exactly what it was sent
        again = recorded.resent(prints, newest_index)
        if again is not None:
            return again

    earlier = recorded.since_reset(prints[:-1])
    valid, blocks = recorded.blocks_of(earlier)
    recalled = recall_memories()
    new, retracted = [], []
    if valid:
        new, retracted = _new_since(store, recorded, earlier, recalled, chosen, full)
    sent = recorded.shown_ids(earlier) | {m.id for m in new}
    reset = not valid or len(sent) > STICKY_CAP_FACTOR * max(recall_limit, 1)
    if reset:
        blocks, new, retracted = {}, recalled, []
    block = format_block(new, retracted)
    earlier_count = len(blocks)
    entries = recorded.entries_of(earlier, blocks) if not reset else []
    if block:
        blocks[newest_index] = block
        entries.append((newest_index, new, retracted, chosen, None))
    record = None
    if block or reset:  # a reset is recorded even when empty: later turns start from it
        record = _record(conversation_id, newest_print, new, retracted, block, reset, chosen)
    return Injection(blocks, record, earlier_count, len(new) if block else 0, reset,
                     shown_in_blocks(entries))


Turns = list[tuple[int, dict]]  # (message index, recorded kinetaios_injections row)


@dataclass
class RecordedTurns:
    """What earlier turns of a conversation sent: their recorded rows by
    fingerprint, and the memories those rows name, by id."""

    rows: dict[str, dict]
    by_id: dict

    @classmethod
    def load(cls, store, conversation_id: str | None, prints: list[tuple[int, str]]) -> "RecordedTurns":
        rows = store.injections(conversation_id, [fp for _, fp in prints])
        wanted = {i for row in rows.values() for i in (*row["memory_ids"], *row["retracted_ids"])}
        return cls(rows, {m.id: m for m in store.get_many(sorted(wanted))})

    def since_reset(self, turns: list[tuple[int, str]]) -> Turns:
        "The recorded turns among ``turns`` (message index, fingerprint) from the latest reset on."
        found: Turns = []
        for index, fingerprint in turns:
            row = self.rows.get(fingerprint)
            if row is not None:
                if row["reset"]:
                    found = []
                found.append((index, row))
        return found

    def rebuilt(self, row: dict) -> tuple[bool, str | None]:
        "(still reads as it did when sent, the block)."
        memories = [self.by_id.get(i) for i in row["memory_ids"]]
        retracted = [self.by_id.get(i) for i in row["retracted_ids"]]
        if any(m is None for m in memories + retracted):
            return False, None
        block = format_block(memories, retracted)
        return block_sha(block) == row["block_sha"], block

    def blocks_of(self, turns: Turns) -> tuple[bool, dict[int, str]]:
        "(every block still reads as it did, the blocks by message index)."
        blocks, valid = {}, True
        for index, row in turns:
            ok, block = self.rebuilt(row)
            valid = valid and ok
            if block:
                blocks[index] = block
        return valid, blocks

    def entries_of(self, turns: Turns, blocks: dict[int, str]) -> list:
        "shown_in_blocks entries of the recorded ``turns`` whose block is sent."
        return [
            (index, [self.by_id[i] for i in row["memory_ids"]],
             [self.by_id[i] for i in row["retracted_ids"]],
             {i: tuple(m) for i, m in zip(row["memory_ids"], row["methods"])}, row.get("response_id"))
            for index, row in turns if index in blocks
        ]

    @staticmethod
    def shown_ids(turns: Turns) -> set[str]:
        return {i for _, row in turns for i in row["memory_ids"]}

    def resent(self, prints: list[tuple[int, str]], newest_index: int) -> Injection | None:
        """The Injection that re-sends a turn answered before exactly as it
        was sent; None when one of its blocks no longer reads so."""
        turns = self.since_reset(prints)
        valid, blocks = self.blocks_of(turns)
        if not valid:
            return None
        return Injection(blocks, earlier=len(blocks) - (newest_index in blocks),
                         shown=shown_in_blocks(self.entries_of(turns, blocks)))


def _new_since(store, recorded: RecordedTurns, earlier: Turns, recalled: list,
               chosen: Chosen, full: bool) -> tuple[list, list]:
    """(new, retracted) for this turn's block, when the earlier blocks are
    re-sent: the newer facts of memories superseded since an earlier block
    showed them, then the recalled memories no earlier block showed; and
    those superseded memories, to be marked no longer true."""
    shown = list(dict.fromkeys(i for _, row in earlier for i in row["memory_ids"]))
    retracted = _superseded_since(recorded, earlier, shown)
    replacements = [r for r in (current_replacement(store, m) for m in retracted) if r is not None]
    for replacement in replacements:
        chosen.setdefault(replacement.id, ("update", None))
    offered = set(shown)
    new = []
    for memory in [*replacements, *recalled]:
        if memory.id not in offered:
            offered.add(memory.id)
            new.append(memory)
    if full:
        recalled_ids = {r.id for r in recalled}
        new = recalled + [m for m in new if m.id not in recalled_ids]
    return new, retracted


def _superseded_since(recorded: RecordedTurns, earlier: Turns, shown: list[str]) -> list:
    "The memories earlier blocks showed that are no longer current and no block has retracted yet."
    already_retracted = {i for _, row in earlier for i in row["retracted_ids"]}
    return [recorded.by_id[i] for i in shown
            if not recorded.by_id[i].current and i not in already_retracted]


def _record(conversation_id, fingerprint: str, new: list, retracted: list, block: str | None,
            reset: bool, chosen: Chosen) -> dict:
    "MemoryStore.record_injection arguments for this turn's block."
    return dict(
        conversation_id=conversation_id,
        fingerprint=fingerprint,
        memory_ids=[m.id for m in new],
        retracted_ids=[m.id for m in retracted],
        block_sha=block_sha(block),
        reset=reset,
        methods=[chosen.get(m.id, ("unknown", None)) for m in new],
    )


def current_replacement(store, memory, max_hops: int = 20):
    "The current memory that (through a chain of updates) superseded ``memory``, if any."
    seen = set()
    while memory is not None and not memory.current and memory.id not in seen and len(seen) < max_hops:
        seen.add(memory.id)
        found = store.get_many([memory.superseded_by])
        memory = found[0] if found else None
    return memory if memory is not None and memory.current else None
