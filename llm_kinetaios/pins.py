"""Pinned memories: standing preferences ("answer in French", "call me
Dhravya") sent on every conversation whatever the question, first in the
block, within the ``pinned_tokens`` budget. Recall fills the rest.

With sticky injection a pinned memory is sent once per conversation, like
any other, and stays in the cached prefix from then on.
"""

from __future__ import annotations

from typing import Iterable

from .store import Memory, MemoryStore

# Close enough to a BPE tokenizer's count for English prose, and it needs no
# tokenizer: the budget is a guard against a runaway list, not an exact bill.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


def pinned_for_turn(store: MemoryStore, budget: int, out_of_scope: Iterable[str] = ()) -> list[Memory]:
    """The pinned memories to send, first pinned first, as many as fit in
    ``budget`` tokens (one too long to fit is skipped, not the rest)."""
    chosen, used = [], 0
    for memory in store.pinned(out_of_scope):
        cost = estimate_tokens(memory.content)
        if used + cost <= budget:
            chosen.append(memory)
            used += cost
    return chosen


def over_budget(store: MemoryStore, budget: int) -> list[Memory]:
    "Pinned memories that do not fit the budget in their own scope (for warnings)."
    missing = []
    scopes = {m.project for m in store.pinned()}
    for project in scopes:
        skip = store.other_projects_ids(project)
        fits = {m.id for m in pinned_for_turn(store, budget, skip)}
        missing += [m for m in store.pinned(skip) if m.id not in fits and m.project == project]
    return missing
