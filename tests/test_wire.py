"""What reaches the provider: the real SDK clients, through llm, against
loopback fakes of Anthropic Messages, OpenAI Chat Completions and OpenAI
Responses (tests/fake_providers.py), streaming and not.

Each test runs a three-turn chat with a system prompt through a memory model
and reads the request bodies the fake server received.
"""

import json

import pytest
import sqlite_utils
from llm.cli import cli

from fake_providers import REASONING, SIGNATURE, FakeProviders

HEADING = "## About the user"
SYSTEM = "You are terse."
TURNS = ["Which tea should I buy?", "Is Porto nice in winter?", "I am vegetarian. What should I cook tonight?"]
FACTS = ["User likes green tea", "User drinks tea daily", "User lives in Porto",
         "User is vegetarian", "User cooks dinner every night"]

PROVIDERS = {
    # name: (memory model, endpoint)
    "anthropic": ("memory-claude", "/messages"),
    "chat": ("memory-wire-chat", "/chat/completions"),
    "responses": ("memory-wire-responses", "/responses"),
}


@pytest.fixture
def server(user_path, settings, monkeypatch):
    with FakeProviders() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        (user_path / "extra-openai-models.yaml").write_text(
            f"- model_id: wire-chat\n  model_name: gpt-wire\n  api_base: {server.url}/v1\n"
            f"- model_id: wire-responses\n  model_name: gpt-wire-r\n  api_base: {server.url}/v1\n"
            "  responses: true\n  reasoning: true\n"
        )
        settings(claude_model="claude-sonnet-4.6", wrapped_models=["wire-chat", "wire-responses"])
        yield server


def run_chat(runner, model_id, *extra):
    results = []
    for number, text in enumerate(TURNS):
        args = ["prompt", *extra, text]
        args[1:1] = ["-m", model_id, "-s", SYSTEM] if number == 0 else ["-c"]
        result = runner.invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        results.append(result)
    return results


def conversation_items(name: str, body: dict) -> list:
    "The part of a request that grows turn by turn: messages, or input items."
    return body["input"] if name == "responses" else body["messages"]


def without_cache_control(value):
    if isinstance(value, dict):
        return {k: without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_control(v) for v in value]
    return value


def texts_of(content) -> list[str]:
    "Each text block of a message's (or input item's) content, in order."
    if isinstance(content, str):
        return [content]
    return [block.get("text", "") for block in content if isinstance(block, dict)]


def user_texts(name: str, body: dict) -> list[list[str]]:
    "[texts of each user message] in request order."
    return [texts_of(m["content"]) for m in conversation_items(name, body)
            if m.get("role") == "user"]


def system_of(name: str, body: dict):
    if name == "anthropic":
        return body.get("system")
    if name == "chat":
        return [m for m in body["messages"] if m["role"] in ("system", "developer")]
    return body.get("instructions")


@pytest.fixture(params=["anthropic", "chat", "responses"])
def provider(request):
    return request.param


@pytest.fixture(params=["stream", "no-stream"])
def stream_flag(request):
    return [] if request.param == "stream" else ["--no-stream"]


def test_the_wire(runner, store, server, provider, stream_flag, user_path):
    for fact in FACTS:
        store.add(fact)
    model_id, endpoint = PROVIDERS[provider]
    results = run_chat(runner, model_id, *stream_flag)
    requests = server.chat_requests(endpoint)
    assert len(requests) == len(TURNS)

    # Each answer reached the user.
    assert [r.stdout.strip() for r in results] == ["Answer 1", "Answer 2", "Answer 3"]

    for turn, body in enumerate(requests):
        users = user_texts(provider, body)
        # The user's own message is sent as it was typed, a block of its own before it.
        assert users[-1][-1] == TURNS[turn]
        blocks = [text for message in users for text in message if text.startswith(HEADING)]
        assert blocks, f"turn {turn + 1} carried no block"
        assert all(text.startswith(HEADING) or HEADING not in text
                   for message in users for text in message)
        # The system prompt is untouched.
        assert HEADING not in json.dumps(system_of(provider, body))
    systems = [json.dumps(system_of(provider, body)) for body in requests]
    assert systems[0] == systems[1] == systems[2] and SYSTEM in systems[0]

    # Sticky injection: every request is a prefix of the next.
    for before, after in zip(requests, requests[1:]):
        earlier = without_cache_control(conversation_items(provider, before))
        later = without_cache_control(conversation_items(provider, after))
        assert later[: len(earlier)] == earlier

    if provider == "anthropic":
        for body in requests:
            # The cache option is on by default: one breakpoint, on the newest user turn.
            marked = [block for message in body["messages"] for block in message["content"]
                      if isinstance(block, dict) and "cache_control" in block]
            assert len(marked) == 1 and marked[0] is body["messages"][-1]["content"][-1]
        # Thinking comes back in the history, signed, as the API requires.
        replayed = [block for m in requests[1]["messages"] if m["role"] == "assistant"
                    for block in m["content"]]
        assert {"type": "thinking", "thinking": REASONING, "signature": SIGNATURE} in replayed

    # Reasoning reaches the user where the API carries it: llm shows it on
    # stderr when streaming, and logs it either way.
    db = sqlite_utils.Database(user_path / "logs.db")
    if provider in ("anthropic", "responses"):
        logged = [row["text"] for row in db["parts"].rows_where("type = 'reasoning'")]
        assert logged.count(REASONING) == len(TURNS)
        if not stream_flag:
            assert all(REASONING in r.stderr for r in results)

    # Extraction is a request of its own, with no memory block and no chat history.
    extractions = server.extraction_requests()
    assert extractions
    for _, body in extractions:
        assert HEADING not in json.dumps(body)

    # logs.db never holds a block.
    assert not any(HEADING in line for line in db.conn.iterdump())


def test_an_explicit_cache_option_wins(runner, store, server):
    for fact in FACTS:
        store.add(fact)
    result = runner.invoke(cli, ["prompt", "-m", "memory-claude", "-o", "cache", "0", TURNS[0]],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [body] = server.chat_requests("/messages")
    assert "cache_control" not in json.dumps(body)


def test_with_recall_tool_setting_claude_thinking_is_shown_and_logged(runner, store, server, settings, user_path):
    settings(recall_tool=True)
    store.add("User likes green tea")
    result = runner.invoke(cli, ["prompt", "-m", "memory-claude", TURNS[0]], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [body] = server.chat_requests("/messages")
    assert [tool["name"] for tool in body["tools"]] == ["recall_memory"]
    assert result.stdout.strip() == "Answer 1" and REASONING in result.stderr
    db = sqlite_utils.Database(user_path / "logs.db")
    assert [row["text"] for row in db["parts"].rows_where("type = 'reasoning'")] == [REASONING]
