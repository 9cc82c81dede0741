"""Memory models wrapping plugins that work differently from the fake one.

llm-echo (from PyPI) and FakeHistoryChat build their requests from
``prompt.prompt`` and ``conversation.responses``, never ``prompt.messages``;
llm-echo also streams reasoning. The recall tool loop is driven with the
``recall_tool`` setting on, where a test says so in its name.
"""

import json

import llm
import pytest
from llm.cli import cli


HEADING = "## About the user"
TEA = ["User likes green tea", "User drinks tea daily", "User likes tea cakes"]


@pytest.fixture(autouse=True)
def wrapped(settings):
    settings(wrapped_models=["fake", "echo", "fake-history"])


def add(store, *facts):
    for fact in facts:
        store.add(fact)


def prompt(runner, *args):
    result = runner.invoke(cli, ["prompt", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def echoed(result) -> dict:
    return json.loads(result.stdout)


def prefix_models(user_path):
    return json.loads((user_path / "kinetaios.json").read_text()).get("prefix_models", [])


# No silent loss -----------------------------------------------------------


def test_llm_echo_gets_the_block_on_the_very_first_turn_and_every_later_one(runner, store, user_path, capsys):
    add(store, *TEA)
    first = prompt(runner, "-m", "memory-echo", "Which tea should I buy?")
    sent = echoed(first)["prompt"]
    assert sent.startswith(HEADING) and all(fact in sent for fact in TEA)
    assert sent.endswith("Which tea should I buy?")
    # The user is told once, and the decision is remembered.
    assert first.stderr.count("echo builds its requests from the prompt text") == 1
    assert prefix_models(user_path) == ["echo"]
    second = prompt(runner, "-c", "And which tea cakes?")
    assert second.stderr == ""
    # Turn 2 carries its full block, not only what turn 1 did not show.
    sent = echoed(second)["prompt"]
    assert sent.startswith(HEADING) and all(fact in sent for fact in TEA)
    # llm-echo reads history from conversation.responses: a conversation
    # kept in memory (llm chat, the Python API) has it; the user's own words.
    conversation = llm.get_model("memory-echo").conversation()
    conversation.prompt("Which tea should I buy?").text()
    data = json.loads(conversation.prompt("And which tea cakes?").text())
    assert data["previous"] == [{"prompt": "Which tea should I buy?"}]
    assert data["prompt"].startswith(HEADING)
    assert capsys.readouterr().err == ""  # said once, not again


def test_a_conversation_responses_plugin_gets_the_block_and_its_history(runner, store, user_path,
                                                                       fake_history):
    add(store, *TEA)
    first = prompt(runner, "-m", "memory-fake-history", "Which tea should I buy?")
    [[role, sent]] = fake_history.calls[0]
    assert role == "user" and sent.startswith(HEADING) and "User likes green tea" in sent
    assert "fake-history builds its requests from the prompt text" in first.stderr
    conversation = llm.get_model("memory-fake-history").conversation()
    conversation.prompt("Which tea should I buy?").text()
    conversation.prompt("And which tea cakes?").text()
    request = fake_history.calls[2]
    assert request[0] == ["user", "Which tea should I buy?"]
    assert request[-1][1].startswith(HEADING) and request[-1][1].endswith("And which tea cakes?")
    assert all(fact in request[-1][1] for fact in TEA)


def test_a_plugin_reading_messages_is_left_in_message_mode(runner, store, fake, user_path):
    add(store, *TEA)
    result = prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    assert result.stderr == "" and prefix_models(user_path) == []
    role, block = fake.calls[0][-2]
    assert role == "user" and block.startswith(HEADING)
    assert fake.calls[0][-1] == ("user", "Which tea should I buy?")


def test_python_api_with_llm_echo_gets_the_block(store):
    add(store, *TEA)
    response = llm.get_model("memory-echo").prompt("Which tea should I buy?")
    assert json.loads(response.text())["prompt"].startswith(HEADING)
    assert response.prompt.prompt == "Which tea should I buy?"  # what llm logs


async def _async_text(model, text, **options):
    response = model.prompt(text, **options)
    return await response.text()


def test_async_llm_echo_gets_the_block(store):
    import asyncio

    add(store, *TEA)
    text = asyncio.run(_async_text(llm.get_async_model("memory-echo"), "Which tea should I buy?"))
    assert json.loads(text)["prompt"].startswith(HEADING)


# The recall tool ----------------------------------------------------------


def test_memory_models_offer_no_tool_by_default_and_recall_memory_is_logged_with_T(
    runner, store, fake, logs_db
):
    add(store, "User's servers run Debian")
    prompt(runner, "-m", "memory-fake", "recall: Debian servers")
    assert fake.prompts[0].tools == []
    result = prompt(runner, "-m", "memory-fake", "-T", "recall_memory", "recall: Debian servers")
    assert "User's servers run Debian" in result.stdout
    kinds = [row["type"] for row in logs_db()["parts"].rows]
    assert kinds.count("tool_call") == 1 and kinds.count("tool_result") == 1


def _echo_history(model_id):
    conversation = llm.get_model(model_id).conversation()
    conversation.prompt("My first question").text()
    return json.loads(conversation.prompt("My second question").text())["previous"]


def test_with_recall_tool_setting_llm_echo_keeps_its_history(store, settings):
    settings(recall_tool=True, prefix_models=["echo"])
    assert _echo_history("memory-echo") == _echo_history("echo") == [{"prompt": "My first question"}]


def test_with_recall_tool_setting_a_history_plugin_keeps_history_across_a_tool_call(
    runner, store, settings
):
    settings(recall_tool=True)
    add(store, "User's servers run Debian")
    conversation = llm.get_model("memory-fake-history").conversation()
    conversation.prompt("My first question").text()
    request = json.loads(conversation.prompt("recall: Debian servers").text())
    assert len(conversation.responses) == 2  # the loop's own requests are not the user's history
    assert request[0] == ["user", "My first question"]
    assert request[-1][0] == "tool" and "User's servers run Debian" in request[-1][1]


@pytest.mark.parametrize("recall_tool", [False, True])
def test_reasoning_passes_through_with_and_without_recall_tool_setting(runner, store, settings, recall_tool):
    settings(recall_tool=recall_tool)
    response = llm.get_model("memory-echo").prompt("Think first", thinking=True)
    events = list(response.stream_events())
    reasoning = "".join(e.chunk for e in events if e.type == "reasoning")
    assert reasoning == "First I consider the prompt, then I decide what to say."
    assert json.loads(response.text())["prompt"].endswith("Think first")
    [message] = response.messages()
    assert [type(p).__name__ for p in message.parts] == ["ReasoningPart", "TextPart"]


def test_with_recall_tool_setting_a_model_that_keeps_calling_the_tool_hits_the_chain_limit(
    runner, store, fake, settings
):
    settings(recall_tool=True)
    result = runner.invoke(cli, ["prompt", "-m", "memory-fake", "recall-forever: anything"])
    assert result.exit_code == 1
    assert "Chain limit of 3 exceeded" in result.output and "Traceback" not in result.output
    assert len(fake.calls) == 4


# Caching ----------------------------------------------------------------


def test_anthropic_models_get_the_cache_option_unless_the_user_says_otherwise(settings):
    from llm_kinetaios.config import load_settings
    from llm_kinetaios.wrapper import MemoryModel

    model = MemoryModel("memory-claude-test", "claude-sonnet-4.6")
    inner = model.inner
    on = llm.Prompt("hi", model, options=model.Options())
    off = llm.Prompt("hi", model, options=model.Options(cache=False))
    assert model._inner_prompt(on, inner, None, load_settings())[0].options.cache is True
    assert model._inner_prompt(off, inner, None, load_settings())[0].options.cache is False


def _tool_chat(runner, *tool_args):
    prompt(runner, "-m", "memory-fake", *tool_args, "recall: Debian servers")
    prompt(runner, "-c", *tool_args, "Thanks, and which release?")


def _tool_parts(logs_db):
    kinds = [row["type"] for row in logs_db()["parts"].rows]
    return kinds.count("tool_call"), kinds.count("tool_result")


def test_with_recall_tool_setting_the_round_trip_is_neither_logged_nor_a_cached_prefix(
    runner, store, fake, logs_db, settings
):
    """Why the setting is off by default: llm's chain (-T recall_memory) logs
    the tool round trip and the next turn extends the request before it; the
    wrapper's own loop can do neither."""
    add(store, "User's servers run Debian")
    _tool_chat(runner, "-T", "recall_memory")
    assert _tool_parts(logs_db) == (1, 1)
    tool_turn, next_turn = fake.calls[1], fake.calls[2]
    assert next_turn[: len(tool_turn)] == tool_turn

    fake.calls.clear()
    settings(recall_tool=True)
    _tool_chat(runner)
    assert _tool_parts(logs_db) == (1, 1)  # nothing added: the loop's calls are in no log
    tool_turn, next_turn = fake.calls[1], fake.calls[2]
    assert tool_turn[-1][0] == "tool" and next_turn[: len(tool_turn)] != tool_turn
