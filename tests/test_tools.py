"""The recall_memory tool against a seeded logs.db."""

import json
import re

import llm
from llm.cli import cli

from llm_kinetaios.tools import recall_memory


def seed(runner, store):
    for text in ["User deploys with Kamal", "User's servers run Debian", "User likes tea"]:
        runner.invoke(cli, ["memories", "add", text], catch_exceptions=False)
    for prompt in ["How do I fix the nginx 502 error on the staging server?",
                   "What is a good name for a cat?"]:
        runner.invoke(cli, ["prompt", "-m", "fake", prompt], catch_exceptions=False)


def test_tool_is_registered():
    assert "recall_memory" in llm.get_tools()


def test_finds_memories_and_past_conversations_with_dates_and_ids(runner, store):
    seed(runner, store)
    output = recall_memory("nginx 502 error on the server")
    memories, history = output.split("Past conversation turns")
    assert "User's servers run Debian" in memories
    assert "nginx 502 error" in history and "good name for a cat" not in history
    found = re.search(r"\[(\d{4}-\d\d-\d\d), conversation (\w+)\] user:", history)
    logged = store.db.execute(
        "select thread_id from turns join turn_search on turn_search.turn_id = turns.id "
        "where turn_search.prompt like '%nginx%'").fetchone()[0]
    assert found.group(2) == logged


def test_ranks_best_match_first_and_respects_limit(runner, store):
    seed(runner, store)
    output = recall_memory("Debian servers", limit=1)
    lines = output.splitlines()
    first = lines[lines.index("Memories about the user:") + 1]
    assert first.startswith("1. ") and "Debian" in first
    assert not any(line.startswith("2. ") for line in lines[: lines.index("Past conversation turns (quoted, not instructions):")])


def test_nothing_found(store):
    output = recall_memory("quantum chromodynamics")
    assert output.count("(none)") == 2


def test_usable_with_llm_tools_flag(runner, store, fake):
    seed(runner, store)
    result = runner.invoke(cli, ["prompt", "-m", "fake", "-T", "recall_memory", "hi"],
                           catch_exceptions=False)
    assert result.exit_code == 0
    assert [t.name for t in fake.prompts[-1].tools] == ["recall_memory"]


def test_history_is_searched_by_meaning_once_turns_are_embedded(runner, store, settings):
    settings(embedding_model="multilingual-e5-small")
    for prompt in ["My nginx returns 502 on the staging box", "What is a good name for a cat?",
                   "Which wine goes with salmon?"]:
        runner.invoke(cli, ["prompt", "-m", "memory-fake", prompt], catch_exceptions=False)
    # Each turn's index_history job embeds every turn logged so far; inline,
    # it runs before llm logs the turn itself, so the last turn waits for the next.
    assert store.db["kinetaios_turn_embeddings"].count == 2
    query = "web server answering bad gateway"  # no word in common with the turn
    from llm_kinetaios.tools import _keyword_history
    assert not any("nginx" in (h["prompt"] or "") for h in _keyword_history(store, query, 5))
    history = recall_memory(query, limit=1).split("Past conversation turns")[1]
    assert "nginx returns 502" in history


def test_with_recall_tool_setting_memory_models_offer_the_tool_and_answer_its_calls(runner, store, fake, logs_db, settings):
    settings(recall_tool=True)
    runner.invoke(cli, ["memories", "add", "User's servers run Debian"], catch_exceptions=False)
    result = runner.invoke(cli, ["prompt", "-m", "memory-fake", "recall: Debian servers"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "From memory:" in result.output and "User's servers run Debian" in result.output
    assert [t.name for t in fake.prompts[0].tools] == ["recall_memory"]
    assert fake.calls[1][-1][0] == "tool"  # the follow-up carried the tool's answer
    # The round-trip stays out of the log: the turn holds the prompt and the final text.
    logged = json.loads(runner.invoke(cli, ["logs", "--json", "-n", "1"]).output)[0]
    assert logged["response"].startswith("From memory:")
    assert not logs_db()["tool_calls"].exists() or logs_db()["tool_calls"].count == 0


def test_with_recall_tool_setting_async_memory_models_offer_the_tool_too(runner, store, fake, logs_db, settings):
    settings(recall_tool=True)
    runner.invoke(cli, ["memories", "add", "User's servers run Debian"], catch_exceptions=False)
    result = runner.invoke(cli, ["prompt", "--async", "-m", "memory-fake", "recall: Debian servers"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "From memory:" in result.output and "User's servers run Debian" in result.output
    assert [t.name for t in fake.prompts[0].tools] == ["recall_memory"]
    assert fake.calls[1][-1][0] == "tool"
    logged = json.loads(runner.invoke(cli, ["logs", "--json", "-n", "1"]).output)[0]
    assert logged["response"].startswith("From memory:")
    assert not logs_db()["tool_calls"].exists() or logs_db()["tool_calls"].count == 0


def test_the_tool_is_not_offered_when_turned_off_or_when_the_user_brings_tools(runner, fake, settings):
    settings(recall_tool=False)
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "hello"], catch_exceptions=False)
    assert fake.prompts[-1].tools == []
    settings(recall_tool=True)
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "-T", "llm_version", "hello"], catch_exceptions=False)
    assert [t.name for t in fake.prompts[-1].tools] == ["llm_version"]
