"""The memory-aware model: wraps any llm model with recall and extraction.

Before each turn it recalls memories and sends the inner model a copy of the
prompt whose message chain has extra user messages: ``## About the user``
blocks, each just before the user message of the turn that first sent it
(injection.py decides which, from the ``injection`` setting). The Response
llm logs keeps the original prompt, so logs.db never holds a block and the
history llm rebuilds for the next turn has no stale copy of one.

Why there: providers cache a request by its prefix. System prompt and earlier
history come first and stay byte-identical from turn to turn; with sticky
blocks the whole previous request does. A block in the system prompt, or
first in the history, would change the prefix whenever recall changes.

Models that take no message chain (``supports_conversation = False``, or any
listed in the ``prefix_models`` setting) get the block prefixed to the prompt
text instead.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import os
import sys
from typing import Any, Optional

import llm
from pydantic import Field

from .config import Settings, load_settings

log = logging.getLogger("llm_kinetaios")

DEBUG_ENV = "LLM_KINETAIOS_DEBUG"
_OPTION_CLASSES: dict[type, type] = {}
_INNER_CACHE: dict[str, Any] = {}


class InnerModelMissing(llm.UnknownModelError, ValueError):
    "The model a memory model wraps is not installed (a ValueError, so llm's CLI shows it as an error message)."


class MemoryOptions(llm.Options):
    memory: Optional[bool] = Field(
        default=None,
        description="Set to false to turn memory recall and extraction off for this prompt",
    )


def options_with_memory(inner_options: type) -> type:
    "The inner model's Options class plus the ``memory`` switch (cached)."
    if inner_options not in _OPTION_CLASSES:
        _OPTION_CLASSES[inner_options] = type(
            f"Memory{inner_options.__name__}",
            (inner_options,),
            {
                "__annotations__": {"memory": Optional[bool]},
                "memory": MemoryOptions.model_fields["memory"],
                "__module__": __name__,
            },
        )
    return _OPTION_CLASSES[inner_options]


def resolve_model(model_id: str | None):
    """llm.get_model, cached per process, unwrapping a memory model.

    ``memory`` follows the user's default model; if that default is itself a
    memory model, its inner model is used, never a wrapper of a wrapper.
    """
    key = model_id or ""
    if key not in _INNER_CACHE:
        model = llm.get_model(model_id or llm.get_default_model())
        while isinstance(model, _MemoryModelMixin):
            model = model.inner
        _INNER_CACHE[key] = model
    return _INNER_CACHE[key]


def memory_model_specs(settings: Settings) -> list[tuple[str, str | None]]:
    """(model id, id of the model it wraps) of every memory model: the two
    built in, then those added with ``llm memories wrap``. None wraps llm's
    default model, whatever it is when a prompt runs."""
    return [
        ("memory-claude", settings.claude_model),
        ("memory", None),
        *((f"memory-{inner_id}", inner_id) for inner_id in settings.wrapped_models),
    ]


def wrapped_label(inner_model_id: str | None) -> str:
    "What a memory model wraps, in words for ``llm models`` and ``llm memories config``."
    return inner_model_id or f"{llm.get_default_model()}, the default model"


def _delegated(name: str, default):
    "A property reading the inner model's attribute, or ``default`` if it is missing."

    def read(self):
        inner = self._resolved()
        return getattr(inner, name) if inner is not None else default

    return property(read)


class _MemoryModelMixin:
    """What the sync and async wrappers share: delegation and the turn logic."""

    inner_model_id: str | None

    def __init__(self, model_id: str, inner_model_id: str | None):
        self.model_id = model_id
        self.inner_model_id = inner_model_id  # None: follow llm's default model
        self._block_cache: dict[tuple, str | None] = {}

    # Delegation: these properties never raise, so `llm models` works even
    # when the inner model's plugin is missing; execute() then says why.

    def _resolved(self):
        try:
            return self.inner
        except Exception:
            return None

    @property
    def inner(self):
        try:
            return self._resolve_inner()
        except llm.UnknownModelError:
            wanted = self.inner_model_id or llm.get_default_model()
            hint = " (install it with: llm install llm-anthropic)" if "claude" in wanted else ""
            raise InnerModelMissing(
                f"{self.model_id} wraps {wanted}, which is not an installed model{hint}"
            )

    def _resolve_inner(self):
        return resolve_model(self.inner_model_id)

    @property
    def Options(self):  # noqa: N802 - llm reads model.Options
        inner = self._resolved()
        return options_with_memory(inner.Options if inner else llm.Options)

    can_stream = _delegated("can_stream", False)
    # A model that takes no history refuses -c wrapped as it does unwrapped.
    supports_conversation = _delegated("supports_conversation", True)
    supports_tools = _delegated("supports_tools", False)
    supports_schema = _delegated("supports_schema", False)
    attachment_types = _delegated("attachment_types", frozenset())
    supported_server_side_tools = _delegated("supported_server_side_tools", ())

    def get_key(self, explicit_key: str | None = None) -> str | None:
        inner = self.inner
        if isinstance(inner, (llm.KeyModel, llm.AsyncKeyModel)):
            return inner.get_key(explicit_key)
        return None

    def __str__(self):
        return f"Memory: {self.model_id} (wraps {wrapped_label(self.inner_model_id)})"

    # The turn ---------------------------------------------------------------

    def _inner_prompt(self, prompt, inner, conversation, settings: Settings):
        """Recall, then (the prompt the inner model is sent, the Injection
        made, or None). Never raises."""
        inner_prompt = copy.copy(prompt)
        inner_prompt.model = inner
        values = prompt.options.model_dump(exclude_unset=True)
        values.pop("memory", None)
        inner_prompt.options = inner.Options(**values)
        if prompt.options.memory is False:
            return inner_prompt, None
        try:
            use_prefix = self._uses_prefix(inner, settings)
            injection = self._plan_injection(prompt, inner, conversation, settings)
            if injection.blocks:
                self._inject(inner_prompt, prompt, injection.blocks, use_prefix)
            return inner_prompt, injection
        except Exception:
            log.exception("recall failed; answering without memories")
            return inner_prompt, None

    def _uses_prefix(self, inner, settings: Settings) -> bool:
        "Whether blocks are prefixed to the user's text instead of sent as messages of their own."
        return (
            not inner.supports_conversation
            or inner.model_id in settings.prefix_models
            or self.model_id in settings.prefix_models
        )

    def _plan_injection(self, prompt, inner, conversation, settings: Settings):
        from .embeddings import resolve_embedding_model
        from .injection import Injection, fresh_injection, sticky_injection
        from .pins import pinned_for_turn
        from .projects import current_project, out_of_scope
        from .recall import recall, recall_query
        from .store import MemoryStore

        query = recall_query(
            prompt.messages, count=settings.query_messages, max_chars=settings.query_chars
        )
        if not query:
            return Injection()
        conversation_id = conversation.id if conversation else None
        store = MemoryStore.open()
        try:
            chosen: dict = {}  # memory id -> (method, score)

            def recalled():
                "Pinned memories first, then recall's."
                excluded = out_of_scope(store, settings, current_project())
                pinned = pinned_for_turn(store, settings.pinned_tokens, excluded)
                result = recall(
                    store,
                    query,
                    settings,
                    conversation_id=conversation_id,
                    embedding_model=resolve_embedding_model(settings),
                    excluded=excluded,
                )
                _debug(f"recall: {len(pinned)} pinned, {result.method}, "
                       f"{len(result.memories)} memories")
                chosen.update({m.id: ("pinned", None) for m in pinned})
                scores = result.scores or [None] * len(result.memories)
                for memory, score in zip(result.memories, scores):
                    chosen.setdefault(memory.id, (result.method, score))
                recalled_ids = {m.id for m in result.memories} if result.method != "recent" else set()
                store.mark_used([m.id for m in pinned if m.id not in recalled_ids])
                return pinned + [m for m in result.memories if chosen[m.id][0] != "pinned"]

            if settings.injection == "sticky":
                injection = sticky_injection(
                    store, prompt.messages, conversation_id, recalled, settings.recall_limit,
                    chosen,
                )
                _debug(
                    f"sticky: {injection.earlier} earlier blocks re-sent, "
                    f"{injection.new_memories} new memories"
                    + (" (reset)" if injection.reset else "")
                )
                return injection
            # A chain (tool calls) sends the same user message several times:
            # reuse the block so the whole chain shares one cacheable prefix.
            cache_key = (conversation_id, hashlib.sha256(query.encode()).hexdigest())
            if cache_key not in self._block_cache:
                memories = recalled()
                self._block_cache = {cache_key: (memories, dict(chosen))}
            return fresh_injection(prompt.messages, *self._block_cache[cache_key])
        finally:
            store.close()

    def _inject(self, inner_prompt, prompt, blocks: dict[int, str], use_prefix: bool) -> None:
        "Send each block just before (or, prefixing, inside) the message at its index."
        from llm.parts import Message, TextPart

        from .injection import newest_user_index

        messages = list(prompt.messages)
        newest = newest_user_index(messages)
        for index in sorted(blocks, reverse=True):  # from the end: indexes stay valid
            if use_prefix:
                original = messages[index]
                messages[index] = Message(
                    role="user", parts=[TextPart(text=blocks[index] + "\n\n"), *original.parts]
                )
            else:
                messages.insert(index, Message(role="user", parts=[TextPart(text=blocks[index])]))
        if use_prefix and newest in blocks:
            inner_prompt._prompt = f"{blocks[newest]}\n\n{prompt._prompt or ''}"
        inner_prompt._explicit_messages = messages

    def _after_response(
        self, prompt, response, conversation, text_chunks, settings, injection=None
    ) -> None:
        """Record the turn's injection, queue extraction for the turn and start
        the worker. Never raises."""
        try:
            record = injection.record if injection else None
            shown = injection.shown if injection else []
            extract, index_history = self._work_for(prompt, response, conversation, text_chunks, settings)
            if record is None and not shown and not (extract or index_history):
                return
            from .store import MemoryStore
            from .worker import start_worker

            store = MemoryStore.open()
            try:
                with store.transaction():  # one commit for both records
                    if record is not None:
                        store.record_injection(**record, response_id=response.id)
                    if shown:
                        store.record_uses(response.id, conversation.id if conversation else None, shown)
                if extract:
                    store.enqueue_job("extract", extract)
                # History vectors: one pending job covers every new turn.
                if index_history and not store.db["memory_jobs"].count_where(
                    "kind = 'index_history' and status = 'pending'"
                ):
                    store.enqueue_job("index_history", {"response_id": response.id})
            finally:
                store.close()
            if extract or index_history:
                start_worker()
        except Exception:
            log.exception("could not record this turn's memory work")

    def _work_for(self, prompt, response, conversation, text_chunks, settings):
        """(the extraction job's payload or None, whether to index history)."""
        if prompt.options.memory is False or getattr(response, "_tool_calls", None):
            return None, False  # off, or a tool call: extract once the chain's answer is in
        if settings.paused:
            return None, False
        from .extraction import worth_extracting
        from .projects import current_project
        from .recall import message_text
        from .store import now_ms

        user_messages = [m for m in prompt.messages if m.role == "user"]
        if not user_messages:
            return None, False
        payload = {
            "conversation_id": conversation.id if conversation else None,
            "response_id": response.id,
            "model_id": self.inner.model_id,
            "user": message_text(user_messages[-1]),
            "assistant": "".join(text_chunks),
            "created_at": now_ms(),
        }
        extract = bool(payload["user"]) and worth_extracting(payload["user"])
        if extract:
            payload["project"] = current_project()
        if not extract:
            _debug("extraction skipped: nothing to learn from this turn")
        return (payload if extract else None), bool(settings.embedding_model)


def _text_of(chunk) -> str:
    if isinstance(chunk, str):
        return chunk
    if getattr(chunk, "type", None) == "text":
        return chunk.chunk or ""
    return ""


def _debug(message: str) -> None:
    if os.environ.get(DEBUG_ENV):
        print(f"[kinetaios] {message}", file=sys.stderr)


MAX_TOOL_ROUNDS = 3


def _offers_recall_tool(prompt, inner, settings: Settings) -> bool:
    """Whether to give the inner model the recall_memory tool on our own.

    Only when the user passed no tools: then every tool call the model makes
    is ours, and the wrapper can answer it without llm's chain machinery. Not
    with a schema, which some providers refuse to combine with tools.
    """
    if (
        prompt.tools
        or prompt.schema
        or prompt.options.memory is False
        or not inner.supports_tools
    ):
        return False
    return settings.recall_tool


class MemoryModel(_MemoryModelMixin, llm.KeyModel):
    "A sync llm model that recalls before and extracts after every turn."

    def execute(self, prompt, stream, response, conversation, key=None):
        inner = self.inner
        settings = load_settings()  # once per turn: a small JSON file
        inner_prompt, injection = self._inner_prompt(prompt, inner, conversation, settings)
        text = []
        if _offers_recall_tool(prompt, inner, settings):
            chunks = self._with_recall_tool(inner, inner_prompt, stream, response, key)
        elif isinstance(inner, llm.KeyModel):
            chunks = inner.execute(inner_prompt, stream, response, conversation, key)
        else:
            chunks = inner.execute(inner_prompt, stream, response, conversation)
        for chunk in chunks:
            text.append(_text_of(chunk))
            yield chunk
        self._after_response(prompt, response, conversation, text, settings, injection)

    def _with_recall_tool(self, inner, inner_prompt, stream, response, key):
        """Run the inner model with recall_memory offered, answering its calls
        here. Only the text reaches the logged response: the tool round-trip
        stays out of the conversation, as the memory block does."""
        from .tools import recall_memory

        inner_prompt.tools = [llm.Tool.function(recall_memory)]
        options = inner_prompt.options.model_dump(exclude_unset=True)
        private = llm.Response(inner_prompt, inner, stream, key=key)
        input_tokens = output_tokens = 0
        for round_number in range(MAX_TOOL_ROUNDS + 1):
            for event in private.stream_events():
                if event.type == "text" and event.chunk:
                    yield event.chunk
            input_tokens += private.input_tokens or 0
            output_tokens += private.output_tokens or 0
            if not private._tool_calls or round_number == MAX_TOOL_ROUNDS:
                break
            _debug(f"recall_memory called: {[c.arguments for c in private._tool_calls]}")
            private = private.reply(stream=stream, options=options, key=key)
        if input_tokens or output_tokens:
            response.set_usage(input=input_tokens, output=output_tokens)


class AsyncMemoryModel(_MemoryModelMixin, llm.AsyncKeyModel):
    "The async twin of MemoryModel, for ``llm --async`` and the Python API."

    def _resolve_inner(self):
        model_id = self.inner_model_id or llm.get_default_model()
        key = f"async:{model_id}"
        if key not in _INNER_CACHE:
            model = llm.get_async_model(model_id)
            while isinstance(model, _MemoryModelMixin):
                model = model.inner
            _INNER_CACHE[key] = model
        return _INNER_CACHE[key]

    async def execute(self, prompt, stream, response, conversation, key=None):
        inner = self.inner
        # Recall and queueing touch SQLite briefly; cheap enough to run inline.
        settings = load_settings()
        inner_prompt, injection = self._inner_prompt(prompt, inner, conversation, settings)
        if _offers_recall_tool(prompt, inner, settings):
            chunks = self._with_recall_tool(inner, inner_prompt, stream, response, key)
        elif isinstance(inner, llm.AsyncKeyModel):
            chunks = inner.execute(inner_prompt, stream, response, conversation, key)
        else:
            chunks = inner.execute(inner_prompt, stream, response, conversation)
        text = []
        async for chunk in chunks:
            text.append(_text_of(chunk))
            yield chunk
        self._after_response(prompt, response, conversation, text, settings, injection)

    async def _with_recall_tool(self, inner, inner_prompt, stream, response, key):
        "MemoryModel._with_recall_tool, awaiting the inner model."
        from .tools import recall_memory

        inner_prompt.tools = [llm.Tool.function(recall_memory)]
        options = inner_prompt.options.model_dump(exclude_unset=True)
        private = llm.AsyncResponse(inner_prompt, inner, stream, key=key)
        input_tokens = output_tokens = 0
        for round_number in range(MAX_TOOL_ROUNDS + 1):
            async for event in private.astream_events():
                if event.type == "text" and event.chunk:
                    yield event.chunk
            input_tokens += private.input_tokens or 0
            output_tokens += private.output_tokens or 0
            if not private._tool_calls or round_number == MAX_TOOL_ROUNDS:
                break
            _debug(f"recall_memory called: {[c.arguments for c in private._tool_calls]}")
            private = await private.reply(stream=stream, options=options, key=key)
        if input_tokens or output_tokens:
            response.set_usage(input=input_tokens, output=output_tokens)
