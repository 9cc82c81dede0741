"""Deterministic stand-ins for a chat model and an embedding model: the one
home of the project's fake models.

Used in-process by the tests (registered with llm's plugin manager, as llm's
own test suite does) and, through a generated entry point (``plugin_dir``),
by the tests that run ``llm`` as a real subprocess. The benchmarks'
fake (benchmarks/fake_models.py) is a subclass of FakeChat that changes only
what its measurements rely on. No network, no API key.

The models registered are those of ``FAKES``; the tests' conftest puts a
fresh ``Fakes`` there for every test, so no record outlives its test.
"""

import datetime
import hashlib
import json
import os
import re
import time
from pathlib import Path

import llm
from llm.parts import TextPart

EXTRACTION_MARKER = "You maintain a long-term memory"
JUDGE_MARKER = "You keep a memory of facts"


def judge_pairs(text: str) -> list[dict]:
    """The fake judge's rule: same first three words ("User lives in") means
    the new fact updates the old one; otherwise they are unrelated."""
    decisions = []
    for number, new, old in re.findall(r"(\d+)\. NEW: (.*)\n   OLD: (.*)", text):
        same_start = new.split()[:3] == old.split()[:3]
        decisions.append({"pair": int(number), "relation": "updates" if same_start else "unrelated"})
    return decisions


def message_texts(messages):
    "[(role, text)] for a prompt's message chain."
    return [
        (m.role, "".join(p.text for p in m.parts if isinstance(p, TextPart)))
        for m in messages
    ]


def facts_from(user_text: str) -> list[str]:
    """The fake extractor's rule: each sentence "I ..." becomes "User ...",
    "Our project ..." becomes "The project ..." and "Always ..." becomes
    "User asks: always ..."."""
    return [fact for fact, _ in marked_facts_from(user_text)]


def marked_facts_from(user_text: str, turn_date: str | None = None) -> list[tuple[str, str | None]]:
    """(fact, mark) per fact: mark "project" for a fact about the current
    project, "instruction" for a standing instruction, else None. Given the
    turn's date (YYYY-MM-DD), "next month" becomes "in <Month> <year>", as
    the extraction prompt asks of a real model."""
    if turn_date:
        year, month = int(turn_date[:4]), int(turn_date[5:7])
        following = datetime.date(year + month // 12, month % 12 + 1, 1)
        user_text = user_text.replace(" next month", following.strftime(" in %B %Y"))
    facts = []
    for sentence in re.split(r"(?<=[.!?])\s+", user_text.strip()):
        sentence = sentence.strip().rstrip(".!?")
        if sentence.startswith("I "):
            facts.append(("User " + sentence[2:], None))
        elif sentence.startswith("Our project "):
            facts.append(("The project " + sentence[len("Our project "):], "project"))
        elif sentence.startswith("Always "):
            facts.append(("User asks: always " + sentence[len("Always "):], "instruction"))
    return facts


class FakeChat(llm.Model):
    """Answers "echo: <last user text>"; answers extraction calls with JSON.

    Records every request (the exact messages it was sent) in ``calls``, and
    extraction requests in ``extraction_calls``.
    """

    model_id = "fake"
    can_stream = True
    supports_schema = True
    supports_tools = True
    attachment_types = {"image/png"}

    class Options(llm.Options):
        temperature: float | None = None

    def __init__(self):
        self.calls = []
        self.prompts = []  # the Prompt objects of non-extraction calls
        self.extraction_calls = []
        self.extraction_schemas = []
        self.judge_calls = []
        self.fail_extraction = None  # an exception to raise, or "garbage"

    def execute(self, prompt, stream, response, conversation):
        yield from self._answer(prompt, stream, response)

    def _answer(self, prompt, stream, response):
        "The request's kind, by its system prompt, decides the answer."
        kind = request_kind(prompt)
        if kind == "judge":
            yield self.judge_answer(prompt)
        elif kind == "extraction":
            yield from self.extraction_answer(prompt)
        else:
            yield from self.chat_answer(prompt, stream, response)

    def judge_answer(self, prompt) -> str:
        self.judge_calls.append(prompt.prompt)
        return json.dumps({"decisions": judge_pairs(prompt.prompt)})

    def extraction_answer(self, prompt):
        self.extraction_calls.append(message_texts(prompt.messages))
        self.extraction_schemas.append(prompt.schema)
        gate = os.environ.get("KINETAIOS_FAKE_GATE")
        if gate:  # wait until the test opens the gate
            deadline = time.monotonic() + 60
            while not Path(gate).exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        if isinstance(self.fail_extraction, Exception):
            raise self.fail_extraction
        if self.fail_extraction == "garbage" or os.environ.get("KINETAIOS_FAKE_GARBAGE"):
            yield "Sure! Here is what I found: <<<nothing useful>>>"
            return
        turn_date = re.search(r"<turn_date>\n(\d{4}-\d\d-\d\d)", prompt.prompt)
        marked = marked_facts_from(extraction_user_text(prompt),
                                   turn_date.group(1) if turn_date else None)
        facts = [fact for fact, _ in marked]
        known = re.findall(r"^\[(\d+)\] (.*)$", prompt.prompt, re.M)
        # Same rule as the fake judge: same first three words = an update.
        updates = [{"fact": i, "known": int(n)} for i, fact in enumerate(facts, 1)
                   for n, old in known if fact.split()[:3] == old.split()[:3] and fact != old]
        yield json.dumps({
            "facts": facts, "updates": updates,
            "project": [i for i, (_, mark) in enumerate(marked, 1) if mark == "project"],
            "instructions": [i for i, (_, mark) in enumerate(marked, 1) if mark == "instruction"],
        })

    def chat_answer(self, prompt, stream, response):
        texts = message_texts(prompt.messages)
        self.calls.append(texts)
        self.prompts.append(prompt)
        first_user = next((t for role, t in texts if role == "user" and not t.startswith("## ")), "")
        if first_user.startswith("recall-forever:") and prompt.tools:  # never answers
            response.add_tool_call(llm.ToolCall(
                name="recall_memory", arguments={"query": "again"}, tool_call_id=f"call-{len(texts)}"))
            return
        if texts and texts[-1][0] == "tool":  # answer from the tool's output
            yield "From memory: " + " ".join(p.output for p in prompt.messages[-1].parts)
            return
        last_user = [t for role, t in texts if role == "user"][-1]
        if last_user.startswith("recall:") and any(t.name == "recall_memory" for t in prompt.tools):
            response.add_tool_call(llm.ToolCall(
                name="recall_memory", arguments={"query": last_user[7:].strip()}, tool_call_id="call-1"))
            return
        answer = f"echo: {last_user}"
        response.set_usage(input=len(last_user.split()), output=len(answer.split()))
        if prompt.schema:
            answer = json.dumps({"echo": last_user})
        yield from streamed(answer, stream)


def request_kind(prompt) -> str:
    "\"judge\", \"extraction\" or \"answer\": which of the plugin's calls (or the user's turn) this is."
    system = prompt.system or ""
    if system.startswith(JUDGE_MARKER):
        return "judge"
    if system.startswith(EXTRACTION_MARKER):
        return "extraction"
    return "answer"


def extraction_user_text(prompt) -> str:
    "The user messages an extraction request asks about (a batch holds several turns)."
    return "\n".join(re.findall(r"<user_message>\n(.*?)\n</user_message>", prompt.prompt or "", re.S))


def streamed(answer: str, stream: bool):
    "The answer word by word when streaming, else at once."
    if stream:
        yield from re.findall(r"\S+\s*", answer)
    else:
        yield answer


class FakeAsyncChat(llm.AsyncModel):
    "The async twin of FakeChat, sharing its records."

    model_id = "fake"
    can_stream = True
    supports_schema = True
    supports_tools = True

    def __init__(self, sync):
        self.sync = sync
        self.Options = sync.Options

    async def execute(self, prompt, stream, response, conversation):
        for chunk in self.sync._answer(prompt, stream, response):
            yield chunk


class FakeLegacyChat(FakeChat):
    "A model that takes no message chain: memory must be prefixed to the prompt."

    model_id = "fake-legacy"
    supports_conversation = False

    def execute(self, prompt, stream, response, conversation):
        if prompt.system and prompt.system.startswith(EXTRACTION_MARKER):
            yield from super().execute(prompt, stream, response, conversation)
            return
        self.calls.append([("prompt", prompt.prompt)])
        yield f"legacy: {prompt.prompt}"


class FakeHistoryChat(llm.Model):
    """A plugin in the older style: it builds its request from ``prompt.prompt``
    and ``conversation.responses`` and never reads ``prompt.messages``.

    Answers with the request it built, as JSON: [[role, text], ...]. With
    tools, "recall: X" calls recall_memory once and answers from its output.
    """

    model_id = "fake-history"
    can_stream = True
    supports_tools = True

    def __init__(self):
        self.calls = []

    def execute(self, prompt, stream, response, conversation):
        if prompt.system and prompt.system.startswith(EXTRACTION_MARKER):
            yield json.dumps({"facts": [], "updates": []})
            return
        request = []
        for earlier in conversation.responses if conversation else []:
            request.append(["user", earlier.prompt.prompt])
            request.append(["assistant", earlier.text()])
        request.append(["user", prompt.prompt])
        for result in prompt.tool_results:
            request.append(["tool", result.output])
        self.calls.append(request)
        own_words = prompt.prompt.rsplit("\n\n", 1)[-1]  # after any memory block
        if own_words.startswith("recall:") and prompt.tools and not prompt.tool_results:
            response.add_tool_call(llm.ToolCall(
                name="recall_memory", arguments={"query": own_words[7:].strip()}, tool_call_id="h-1"))
            return
        yield json.dumps(request)


class FakeEmbed(llm.EmbeddingModel):
    """Bag of words hashed into 1024 dimensions: texts sharing words score high."""

    model_id = "fake-embed"
    dimensions = 1024
    # Bag-of-words cosines: "User lives in Berlin" / "User lives in Lisbon" ~0.58.
    related_similarity = 0.5

    def embed_batch(self, items):
        for item in items:
            vector = [0.0] * self.dimensions
            for word in re.findall(r"\w+", item.lower()):
                if len(word) > 2:
                    h = int(hashlib.md5(word.encode()).hexdigest(), 16)
                    vector[h % self.dimensions] += 1.0
            yield vector


class Fakes:
    "One set of the fake chat models (the embedding model keeps no record)."

    def __init__(self):
        self.chat = FakeChat()
        self.async_chat = FakeAsyncChat(self.chat)
        self.legacy = FakeLegacyChat()
        self.history = FakeHistoryChat()


FAKES = Fakes()  # the set registered; conftest replaces it for every test


@llm.hookimpl
def register_models(register):
    register(FAKES.chat, FAKES.async_chat)
    register(FAKES.legacy)
    register(FAKES.history)


@llm.hookimpl
def register_embedding_models(register):
    register(FakeEmbed())


def plugin_dir(parent: Path, dist_name: str, module: str) -> Path:
    """A folder holding a dist-info whose ``llm`` entry point is ``module``:
    with it on PYTHONPATH and ``dist_name`` in LLM_LOAD_PLUGINS, an ``llm``
    subprocess loads that module as a plugin (llm finds plugins by
    distribution name)."""
    folder = Path(parent) / "plugins"
    dist = folder / f"{dist_name.replace('-', '_')}-0.1.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[llm]\n{module} = {module}\n")
    return folder
