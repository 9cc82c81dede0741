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
text instead. Other models' prompts are watched (_ObservedPrompt): a plugin
that reads the prompt text before the message chain gets the block prefixed
on that turn, and joins ``prefix_models`` (docs/compatibility.md).

Memory models wrapping llm-anthropic models turn its ``cache`` option on
unless the user set it. With the ``recall_tool`` setting on (off by default),
the wrapper offers recall_memory and answers its calls in a private loop.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import os
import sys
from dataclasses import dataclass
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


def resolve_model(model_id: str | None, *, async_model: bool = False):
    """llm.get_model (``async_model``: llm.get_async_model), cached per
    process, unwrapping a memory model.

    ``memory`` follows the user's default model; if that default is itself a
    memory model, its inner model is used, never a wrapper of a wrapper.
    """
    key = ("async:" if async_model else "") + (model_id or "")
    if key not in _INNER_CACHE:
        get_model = llm.get_async_model if async_model else llm.get_model
        model = get_model(model_id or llm.get_default_model())
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
    async_inner = False  # the async twin wraps llm's async model of the same id

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
        return resolve_model(self.inner_model_id, async_model=self.async_inner)

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
        if _caches_prompts(inner) and "cache" not in values:
            values["cache"] = True  # the prefix is byte-stable: let the provider cache it
        inner_prompt.options = inner.Options(**values)
        if prompt.options.memory is False:
            return inner_prompt, None
        try:
            use_prefix = self._uses_prefix(inner, settings)
            injection, recalled = self._plan_injection(
                prompt, inner, conversation, settings, full=use_prefix
            )
            if use_prefix:
                if injection.blocks:
                    self._inject(inner_prompt, prompt, injection.blocks, use_prefix=True)
            else:
                # Not known to prefix: send the blocks as messages of their
                # own, and watch which the plugin reads (see _ObservedPrompt).
                self._inject(inner_prompt, prompt, injection.blocks, use_prefix=False)
                _observe(inner_prompt, prompt, recalled)
            return inner_prompt, injection
        except Exception as ex:
            _warn_storage(ex, "recall failed; answering without memories")
            return inner_prompt, None

    def _uses_prefix(self, inner, settings: Settings) -> bool:
        "Whether blocks are prefixed to the user's text instead of sent as messages of their own."
        return (
            not inner.supports_conversation
            or inner.model_id in settings.prefix_models
            or self.model_id in settings.prefix_models
        )

    def _plan_injection(self, prompt, inner, conversation, settings: Settings, full=False):
        """(the Injection, the newest turn's full block or None).

        ``full``: prefixing, so this turn's block holds all it recalled.
        """
        from .embeddings import resolve_embedding_model
        from .injection import Injection, fresh_injection, sticky_injection
        from .pins import pinned_for_turn
        from .projects import current_project, out_of_scope
        from .recall import format_block, recall, recall_query
        from .store import MemoryStore

        query = recall_query(
            prompt.messages, count=settings.query_messages, max_chars=settings.query_chars
        )
        if not query:
            return Injection(), None
        conversation_id = conversation.id if conversation else None
        store = MemoryStore.open()
        seen: list = []
        used: list[str] = []  # marked used after the answer (Injection.used)
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
                    mark_used=False,
                )
                _debug(f"recall: {len(pinned)} pinned, {result.method}, "
                       f"{len(result.memories)} memories")
                chosen.update({m.id: ("pinned", None) for m in pinned})
                scores = result.scores or [None] * len(result.memories)
                for memory, score in zip(result.memories, scores):
                    chosen.setdefault(memory.id, (result.method, score))
                recalled_ids = {m.id for m in result.memories} if result.method != "recent" else set()
                used.extend([*recalled_ids, *(m.id for m in pinned if m.id not in recalled_ids)])
                memories = pinned + [m for m in result.memories if chosen[m.id][0] != "pinned"]
                seen.extend(memories)
                return memories

            if settings.injection == "sticky":
                injection = sticky_injection(
                    store, prompt.messages, conversation_id, recalled, settings.recall_limit,
                    chosen,
                    full=full,
                )
                _debug(
                    f"sticky: {injection.earlier} earlier blocks re-sent, "
                    f"{injection.new_memories} new memories"
                    + (" (reset)" if injection.reset else "")
                )
                injection.used = used
                return injection, format_block(seen) if seen else None
            # A chain (tool calls) sends the same user message several times:
            # reuse the block so the whole chain shares one cacheable prefix.
            cache_key = (conversation_id, hashlib.sha256(query.encode()).hexdigest())
            if cache_key not in self._block_cache:
                memories = recalled()
                self._block_cache = {cache_key: (memories, dict(chosen))}
            memories = self._block_cache[cache_key][0]
            injection = fresh_injection(prompt.messages, *self._block_cache[cache_key])
            injection.used = used
            return injection, format_block(list(memories)) if memories else None
        finally:
            store.close()

    def _inject(self, inner_prompt, prompt, blocks: dict[int, str], use_prefix: bool) -> None:
        "Send each block just before (or, prefixing, inside) the message at its index."
        inner_prompt._explicit_messages = _with_blocks(prompt.messages, blocks, use_prefix)
        newest = _newest_user_index(prompt.messages)
        if use_prefix and newest in blocks:
            inner_prompt._prompt = f"{blocks[newest]}\n\n{prompt._prompt or ''}"

    def _learn_from(self, inner, inner_prompt) -> None:
        """After the inner model ran: if its plugin read the prompt text and
        never the message chain, prefix for it from now on, and say so once.
        Never raises."""
        try:
            observer = getattr(inner_prompt, "_kinetaios_observer", None)
            if observer is None or observer.first != "prompt" or observer.read_messages:
                return
            settings = load_settings()
            if inner.model_id not in settings.prefix_models:
                from .config import save_settings

                settings.prefix_models.append(inner.model_id)
                save_settings(settings)
                print(
                    f"llm-kinetaios: {inner.model_id} builds its requests from the prompt text, "
                    "not the message list, so memories now go at the start of your prompt "
                    f"for it (setting prefix-models; undo: llm memories config prefix-models \"\")",
                    file=sys.stderr,
                )
        except Exception:
            log.debug("could not record the prefix decision", exc_info=True)

    def _start_turn(self, prompt, stream, response, conversation, key) -> "_Turn":
        """Recall and inject, then start the inner model (or, with the
        recall_memory tool offered, the wrapper's tool loop): the turn's
        chunks, not yet iterated."""
        inner = self.inner
        settings = load_settings()  # once per turn: a small JSON file
        inner_prompt, injection = self._inner_prompt(prompt, inner, conversation, settings)
        if _offers_recall_tool(prompt, inner, settings):
            chunks = self._with_recall_tool(inner, inner_prompt, stream, response, conversation, key)
        elif isinstance(inner, (llm.KeyModel, llm.AsyncKeyModel)):
            chunks = inner.execute(inner_prompt, stream, response, conversation, key)
        else:
            chunks = inner.execute(inner_prompt, stream, response, conversation)
        return _Turn(inner, settings, inner_prompt, injection, chunks)

    def _end_turn(self, turn: "_Turn", prompt, response, conversation, text_chunks) -> None:
        "Once the answer is complete: learn how the plugin read the prompt, record and queue the turn's work."
        self._learn_from(turn.inner, turn.inner_prompt)
        self._after_response(prompt, response, conversation, text_chunks, turn.settings,
                             turn.injection)

    def _after_response(
        self, prompt, response, conversation, text_chunks, settings, injection=None
    ) -> None:
        """Record the turn's injection, queue extraction for the turn and start
        the worker. Never raises."""
        try:
            record = injection.record if injection else None
            shown = injection.shown if injection else []
            used = injection.used if injection else []
            extract, index_history = self._work_for(prompt, response, conversation, text_chunks, settings)
            if record is None and not shown and not used and not (extract or index_history):
                return
            from .store import MemoryStore
            from .worker import start_worker

            store = MemoryStore.open()
            try:
                _record_turn(store, response, conversation, record, shown, used)
                _queue_turn_work(store, response, extract, index_history)
            finally:
                store.close()
            if extract or index_history:
                start_worker()
        except Exception as ex:
            _warn_storage(ex, "could not record this turn's memory work")

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


def _record_turn(store, response, conversation, record: dict | None, shown: list[dict],
                 used: list[str]) -> None:
    "The turn's injection, the memories it showed and their use marks, in one commit."
    with store.transaction():
        if record is not None:
            store.record_injection(**record, response_id=response.id)
        if shown:
            store.record_uses(response.id, conversation.id if conversation else None, shown)
        store.mark_used(used)


def _queue_turn_work(store, response, extract: dict | None, index_history: bool) -> None:
    "The turn's extraction job, and a history-indexing job unless one is pending."
    from .jobs import JobQueue

    queue = JobQueue(store)
    if extract:
        queue.enqueue("extract", extract)
    # History vectors: one pending job covers every new turn.
    if index_history and not store.db["memory_jobs"].count_where(
        "kind = 'index_history' and status = 'pending'"
    ):
        queue.enqueue("index_history", {"response_id": response.id})


@dataclass
class _Turn:
    "One turn under way, between _start_turn and _end_turn."

    inner: Any
    settings: Settings
    inner_prompt: Any
    injection: Any  # injection.Injection, or None
    chunks: Any  # the inner model's (or the tool loop's) chunks, sync or async


def _text_of(chunk) -> str:
    if isinstance(chunk, str):
        return chunk
    if getattr(chunk, "type", None) == "text":
        return chunk.chunk or ""
    return ""


def _debug(message: str) -> None:
    if os.environ.get(DEBUG_ENV):
        print(f"[kinetaios] {message}", file=sys.stderr)


_WARNED: set[str] = set()


def _warn_storage(ex: Exception, what: str) -> None:
    """Say once per process, in one line, that memory work failed; the answer
    goes on. A database the user can fix (read-only, full, locked) is named on
    stderr; anything else is a logged warning. Tracebacks only with the debug
    variable set."""
    import sqlite3

    from .store import StoreError, describe_sqlite_error, logs_db_path

    if os.environ.get(DEBUG_ENV):
        log.error(what, exc_info=ex)
    if isinstance(ex, StoreError):
        reason = str(ex)
    elif isinstance(ex, sqlite3.OperationalError) and _user_can_fix(ex):
        reason = describe_sqlite_error(ex, logs_db_path())
    else:
        log.warning("%s: %s", what, ex)
        return
    if reason not in _WARNED:
        _WARNED.add(reason)
        print(f"llm-kinetaios: {reason} ({what})", file=sys.stderr)


def _user_can_fix(ex: Exception) -> bool:
    text = str(ex)
    return any(word in text for word in ("readonly", "read-only", "full", "locked", "unable to open"))


def _caches_prompts(inner) -> bool:
    "An llm-anthropic model, whose ``cache`` option adds prompt-cache breakpoints."
    return type(inner).__module__.startswith("llm_anthropic") and "cache" in getattr(
        inner.Options, "model_fields", {}
    )


def _newest_user_index(messages):
    from .injection import newest_user_index

    return newest_user_index(messages)


def _with_blocks(messages, blocks: dict[int, str], use_prefix: bool) -> list:
    "``messages`` with each block sent just before (or, prefixing, inside) the message at its index."
    from llm.parts import Message, TextPart

    messages = list(messages)
    for index in sorted(blocks, reverse=True):  # from the end: indexes stay valid
        if use_prefix:
            original = messages[index]
            messages[index] = Message(
                role="user", parts=[TextPart(text=blocks[index] + "\n\n"), *original.parts]
            )
        else:
            messages.insert(index, Message(role="user", parts=[TextPart(text=blocks[index])]))
    return messages


class _Observer:
    "What an inner model's execute() read of its prompt, and what it was handed."

    def __init__(self, original_prompt, messages, full_block):
        self.original_prompt = original_prompt  # the user's Prompt
        self.messages = messages  # the chain, blocks as messages of their own
        self.full_block = full_block  # everything recalled for this turn, or None
        self.first = None  # "messages" or "prompt": whichever was read first
        self.read_messages = False

    def prompt_text(self) -> str:
        text = self.original_prompt.prompt
        if self.first == "prompt" and self.full_block:
            return f"{self.full_block}\n\n{text}"
        return text

    def chain(self) -> list:
        if self.first == "prompt" and self.full_block:
            # The block went into the prompt text: the chain carries it the same way.
            newest = _newest_user_index(self.original_prompt.messages)
            if newest is not None:
                return _with_blocks(self.original_prompt.messages, {newest: self.full_block}, True)
        return list(self.messages)


class _ObservedPrompt(llm.Prompt):
    """The inner model's prompt, noting whether its plugin reads the message
    chain (``messages``) or the prompt text (``prompt``).

    A plugin that builds requests from ``prompt.prompt`` and
    ``conversation.responses`` never sees a block sent as a message. So when
    the prompt text is read before the chain, it gets the block prefixed:
    even the turn that finds this out loses nothing.
    """

    @property
    def prompt(self):
        observer = self._kinetaios_observer
        observer.first = observer.first or "prompt"
        return observer.prompt_text()

    @property
    def messages(self):
        observer = self._kinetaios_observer
        observer.first = observer.first or "messages"
        observer.read_messages = True
        return observer.chain()


def _observe(inner_prompt, prompt, recalled_block) -> None:
    inner_prompt._kinetaios_observer = _Observer(
        prompt, inner_prompt._explicit_messages, recalled_block
    )
    inner_prompt.__class__ = _ObservedPrompt


def _plain_prompt(inner_prompt):
    """A plain llm.Prompt with what the inner model was handed, for the tool
    loop's follow-up requests."""
    plain = copy.copy(inner_prompt)
    observer = getattr(inner_prompt, "_kinetaios_observer", None)
    plain.__class__ = llm.Prompt
    if observer is not None:
        del plain._kinetaios_observer
        plain._prompt = observer.prompt_text()
        plain.fragments = []
        plain._explicit_messages = observer.chain()
    return plain


MAX_TOOL_ROUNDS = 3


def _offers_recall_tool(prompt, inner, settings: Settings) -> bool:
    """Whether to give the inner model the recall_memory tool on our own.

    Only with the ``recall-tool`` setting on (it is off by default: the
    round trip cannot be logged as llm's own chain logs ``-T`` tools, see
    docs/compatibility.md), and only when the user passed no tools: then
    every tool call the model makes is ours. Not with a schema, which some
    providers refuse to combine with tools.
    """
    if (
        prompt.tools
        or prompt.schema
        or prompt.options.memory is False
        or not inner.supports_tools
    ):
        return False
    return settings.recall_tool


def _private_conversation(conversation):
    """A copy of the conversation for the tool loop's own requests: the same
    history (plugins that rebuild it from ``conversation.responses`` need it),
    but the loop's requests are recorded in the copy, not the user's."""
    if conversation is None:
        return None
    private = copy.copy(conversation)
    private.responses = list(conversation.responses)
    return private


class _EventRelay:
    """Forwards the tool loop's stream events to the wrapper's response:
    text and reasoning (with the provider data they carry), never the loop's
    own tool calls. Part indexes are shifted so one round's parts do not
    merge with the previous round's."""

    def __init__(self):
        self.offset = 0
        self.top = -1

    def relay(self, event):
        import dataclasses

        if event.type.startswith("tool_"):
            return None
        index = event.part_index if event.part_index is not None else 0
        self.top = max(self.top, index + self.offset)
        return dataclasses.replace(event, part_index=index + self.offset)

    def next_round(self):
        self.offset = self.top + 1


def _follow_up(private, inner_prompt, tool_results):
    "The loop's next request: the previous one, its answer and the tool results."
    from llm.models import _append_tool_results_to_chain

    follow = _plain_prompt(private.prompt)
    chain = list(follow._explicit_messages if follow._explicit_messages is not None
                 else follow.messages)
    chain += list(private._messages_now())
    _append_tool_results_to_chain(
        chain, tool_results, [a for r in tool_results for a in (r.attachments or [])]
    )
    follow._explicit_messages = chain
    follow.tool_results = tool_results
    return follow


class _ToolLoop:
    """The private recall_memory loop's bookkeeping, shared by the sync and
    async wrappers (which differ only in how they run each round): the
    tool offered, the private conversation, the event relay, the rounds and
    the tokens they used."""

    def __init__(self, model, inner, inner_prompt, conversation):
        from .tools import recall_memory

        inner_prompt.tools = [llm.Tool.function(recall_memory)]
        self.model = model
        self.inner = inner
        self.inner_prompt = inner_prompt
        self.conversation = _private_conversation(conversation)
        self.relay = _EventRelay()
        self.rounds = 0
        self.input_tokens = self.output_tokens = 0

    def round_done(self, private) -> bool:
        """Count a finished round; True when the model called the tool and
        another round is due. Past MAX_TOOL_ROUNDS, llm's "Chain limit" error."""
        self.relay.next_round()
        self.input_tokens += private.input_tokens or 0
        self.output_tokens += private.output_tokens or 0
        if not private._tool_calls:
            return False
        if self.rounds == MAX_TOOL_ROUNDS:
            raise ValueError(
                f"Chain limit of {MAX_TOOL_ROUNDS} exceeded: the model kept calling recall_memory "
                "without answering"
            )
        if self.rounds == 0:
            self.model._learn_from(self.inner, self.inner_prompt)
        self.rounds += 1
        _debug(f"recall_memory called: {[c.arguments for c in private._tool_calls]}")
        return True

    def follow_up(self, private, tool_results):
        return _follow_up(private, self.inner_prompt, tool_results)

    def set_usage(self, response) -> None:
        if self.input_tokens or self.output_tokens:
            response.set_usage(input=self.input_tokens, output=self.output_tokens)


class MemoryModel(_MemoryModelMixin, llm.KeyModel):
    "A sync llm model that recalls before and extracts after every turn."

    def execute(self, prompt, stream, response, conversation, key=None):
        from .worker import note_turn

        note_turn(started=True)  # extraction waits while a turn is under way
        try:
            turn = self._start_turn(prompt, stream, response, conversation, key)
            text = []
            for chunk in turn.chunks:
                text.append(_text_of(chunk))
                yield chunk
            self._end_turn(turn, prompt, response, conversation, text)
        finally:
            note_turn(started=False)

    def _with_recall_tool(self, inner, inner_prompt, stream, response, conversation, key):
        """Run the inner model with recall_memory offered, answering its calls
        here. Text and reasoning reach the logged response; the tool round
        trip stays out of the conversation, as the memory block does. A model
        that keeps calling the tool ends in llm's "Chain limit" error."""
        loop = _ToolLoop(self, inner, inner_prompt, conversation)
        request = inner_prompt
        while True:
            private = llm.Response(request, inner, stream, conversation=loop.conversation, key=key)
            for event in private.stream_events():
                forwarded = loop.relay.relay(event)
                if forwarded is not None:
                    yield forwarded
            if not loop.round_done(private):
                break
            request = loop.follow_up(private, private.execute_tool_calls())
        loop.set_usage(response)


class AsyncMemoryModel(_MemoryModelMixin, llm.AsyncKeyModel):
    "The async twin of MemoryModel, for ``llm --async`` and the Python API."

    async_inner = True

    async def execute(self, prompt, stream, response, conversation, key=None):
        from .worker import note_turn

        # Recall and queueing touch SQLite briefly; cheap enough to run inline.
        note_turn(started=True)
        try:
            turn = self._start_turn(prompt, stream, response, conversation, key)
            text = []
            async for chunk in turn.chunks:
                text.append(_text_of(chunk))
                yield chunk
            self._end_turn(turn, prompt, response, conversation, text)
        finally:
            note_turn(started=False)

    async def _with_recall_tool(self, inner, inner_prompt, stream, response, conversation, key):
        "MemoryModel._with_recall_tool, awaiting the inner model."
        loop = _ToolLoop(self, inner, inner_prompt, conversation)
        request = inner_prompt
        while True:
            private = llm.AsyncResponse(
                request, inner, stream, conversation=loop.conversation, key=key)
            async for event in private.astream_events():
                forwarded = loop.relay.relay(event)
                if forwarded is not None:
                    yield forwarded
            if not loop.round_done(private):
                break
            request = loop.follow_up(private, await private.execute_tool_calls())
        loop.set_usage(response)
