"""The ``recall_memory`` tool: lets a model search memories itself."""

from __future__ import annotations


def recall_memory(query: str, limit: int = 10) -> str:
    """Search what is remembered about the user and from past conversations.

    Use it to answer "what do you know about me?" or "how did we solve X
    before?". Returns a ranked list of memories with their dates and the
    conversation each came from.
    """
    import datetime

    from .config import load_settings
    from .embeddings import resolve_embedding_model
    from .recall import recall
    from .safety import sanitize_memory
    from .store import MemoryStore

    settings = load_settings()
    settings.recall_limit = max(1, min(int(limit), 50))
    store = MemoryStore.open()
    try:
        result = recall(store, query, settings, embedding_model=resolve_embedding_model(settings))
    finally:
        store.close()
    lines = []
    for rank, memory in enumerate(result.memories, 1):
        text = sanitize_memory(memory.content)
        if not text:
            continue
        date = datetime.datetime.fromtimestamp(
            memory.created_at / 1000, datetime.timezone.utc
        ).strftime("%Y-%m-%d")
        where = memory.conversation_id or "global"
        lines.append(f"{rank}. [{date}, conversation {where}] {text}")
    if not lines:
        return "No memories found."
    return f"Memories matching {query!r} (by {result.method}):\n" + "\n".join(lines)
