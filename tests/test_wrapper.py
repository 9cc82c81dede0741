"""The memory loop through llm's own CLI: recall, injection, logging, extraction."""

import json

import llm
from llm.cli import cli

from llm_kinetaios.recall import BLOCK_HEADING
from llm_kinetaios.jobs import JobQueue

HEADING = BLOCK_HEADING


def add_memories(store, *texts, **kwargs):
    from llm_kinetaios.embeddings import embed_passages, to_blob

    model = llm.get_embedding_model("fake-embed")
    for text, vector in zip(texts, embed_passages(model, list(texts))):
        store.add(text, embedding=to_blob(vector), embedding_model="fake-embed", **kwargs)


def prompt(runner, *args):
    result = runner.invoke(cli, ["prompt", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def all_text_outside_plugin_tables(db):
    "Every text value in logs.db, except in the plugin's own tables."
    ours = {"memories", "memory_jobs", "_kinetaios_migrations"}
    for table in db.table_names():
        if table in ours or table.startswith("memories_fts"):
            continue
        for row in db[table].rows:
            for value in row.values():
                if isinstance(value, str):
                    yield table, value
                elif isinstance(value, bytes):
                    yield table, value.decode("utf-8", "replace")


def test_block_reaches_inner_model_as_its_own_message(runner, store, fake):
    add_memories(store, "User cooks vegetarian food", "User lives in Porto",
                 "User cooks with a wok", "User prefers spicy food")
    result = prompt(runner, "-m", "memory-fake", "-s", "Be brief", "What food should I cook?")
    assert result.output.strip() == "echo: What food should I cook?"
    messages = fake.calls[0]
    roles = [role for role, _ in messages]
    assert roles == ["system", "user", "user"]
    system, block, question = (text for _, text in messages)
    assert HEADING not in system
    assert block.startswith(HEADING)
    assert "User cooks vegetarian food" in block and "User prefers spicy food" in block
    assert question == "What food should I cook?"


def test_block_is_never_logged_and_llm_logs_still_works(runner, store, fake, logs_db):
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    assert HEADING in fake.calls[0][-2][1]
    leaked = [table for table, text in all_text_outside_plugin_tables(logs_db()) if HEADING in text]
    assert leaked == []
    logs = runner.invoke(cli, ["logs", "--json"], catch_exceptions=False)
    assert logs.exit_code == 0
    assert "Which tea should I buy?" in logs.output
    assert HEADING not in logs.output


def test_fresh_continuation_sees_one_fresh_block_and_clean_history(runner, store, fake, settings):
    settings(injection="fresh")
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    prompt(runner, "-c", "Is tea healthy?")
    second = fake.calls[1]
    blocks = [i for i, (_, text) in enumerate(second) if HEADING in text]
    assert blocks == [len(second) - 2]  # exactly one, right before the new message
    assert second[0] == ("user", "Which tea should I buy?")
    assert second[1] == ("assistant", "echo: Which tea should I buy?")
    assert second[-1] == ("user", "Is tea healthy?")


def test_fresh_history_prefix_is_byte_identical_across_turns(runner, store, fake, settings):
    settings(injection="fresh")
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    prompt(runner, "-m", "memory-fake", "-s", "You are terse", "Which tea should I buy?")
    prompt(runner, "-c", "And a teapot?")
    first, second = fake.calls
    # Everything before the first request's block is the start of the second.
    prefix = first[: len(first) - 2]
    assert second[: len(prefix)] == prefix
    assert second[len(prefix)] == first[-1]


def test_fresh_chat_gets_a_fresh_block_every_turn(runner, store, fake, settings):
    settings(injection="fresh")
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    result = runner.invoke(
        cli, ["chat", "-m", "memory-fake"], input="Tea for breakfast?\nTea at night?\nquit\n",
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "echo: Tea at night?" in result.output
    assert len(fake.calls) == 2
    for call in fake.calls:
        assert [i for i, (_, t) in enumerate(call) if HEADING in t] == [len(call) - 2]


def test_memory_option_false_turns_recall_and_extraction_off(runner, store, fake):
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    prompt(runner, "-m", "memory-fake", "-o", "memory", "false", "I love tea.")
    assert all(HEADING not in text for _, text in fake.calls[0])
    assert fake.extraction_calls == []
    assert store.count() == 3


def test_inner_options_pass_through(runner, fake):
    result = runner.invoke(cli, ["prompt", "-m", "memory-fake", "-o", "nonsense", "1", "hi"])
    assert result.exit_code == 1
    assert "nonsense" in result.output


def test_extraction_stores_facts_with_conversation_and_skips_duplicates(runner, store, fake):
    prompt(runner, "-m", "memory-fake", "I love hiking. I work as a nurse. What boots fit?")
    conversation_id = json.loads(
        runner.invoke(cli, ["logs", "--json", "-n", "1"]).output
    )[0]["conversation_id"]
    memories = store.list()
    assert sorted(m.content for m in memories) == ["User love hiking", "User work as a nurse"]
    assert {m.conversation_id for m in memories} == {conversation_id}
    assert {m.source for m in memories} == {"extracted"}
    assert all(m.embedding_model == "fake-embed" for m in memories)
    # The extraction call saw the user's words, never the injected block.
    assert all(HEADING not in text for call in fake.extraction_calls for _, text in call)
    prompt(runner, "-c", "I love hiking. I work as a nurse.")
    assert store.count() == 2
    jobs = JobQueue(store).recent(kind="extract")
    assert jobs[0]["status"] == "done" and jobs[0]["result"]["skipped"] == 2


def test_extraction_reads_the_user_message_not_the_recalled_block(runner, store, fake):
    import re

    add_memories(store, "User owns a cat", "User cat is named Tom", "User feeds the cat")
    prompt(runner, "-m", "memory-fake", "My cat is bored, any cat toys?")
    assert HEADING in fake.calls[0][-2][1]  # the answer did get the block
    extraction_input = fake.extraction_calls[0][-1][1]
    assert HEADING not in extraction_input
    user_part = re.search(r"<user_message>\n(.*?)\n</user_message>", extraction_input, re.S).group(1)
    assert user_part == "My cat is bored, any cat toys?"
    # Related memories are shown only as facts already known, not to restate.
    known = re.search(r"<known_facts>\n(.*?)\n</known_facts>", extraction_input, re.S).group(1)
    assert "[1] User owns a cat" in known


def test_a_crashing_extractor_leaves_the_answer_and_the_store_intact(runner, store, fake):
    fake.fail_extraction = RuntimeError("network unreachable")
    result = prompt(runner, "-m", "memory-fake", "I love sailing.")
    assert result.output.strip() == "echo: I love sailing."
    assert store.count() == 0
    log = runner.invoke(cli, ["memories", "log"], catch_exceptions=False)
    assert "network unreachable" in log.output


def test_garbage_from_the_extractor_is_recorded_not_stored(runner, store, fake):
    fake.fail_extraction = "garbage"
    prompt(runner, "-m", "memory-fake", "I love sailing.")
    assert store.count() == 0
    [job] = JobQueue(store).recent(kind="extract")
    assert job["status"] == "failed" and "Unparseable" in job["error"]


def test_pause_stops_extraction_but_not_recall(runner, store, fake):
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    runner.invoke(cli, ["memories", "pause"], catch_exceptions=False)
    prompt(runner, "-m", "memory-fake", "I love tea.")
    assert fake.extraction_calls == []
    assert HEADING in fake.calls[0][-2][1]
    runner.invoke(cli, ["memories", "resume"], catch_exceptions=False)
    prompt(runner, "-m", "memory-fake", "I love coffee.")
    assert "User love coffee" in [m.content for m in store.list()]


def test_a_broken_memory_store_never_breaks_the_answer(runner, store, fake):
    # Our tables replaced by ones of the wrong shape: every recall query and
    # every extraction write fails.
    store.db.executescript(
        "drop table memories; create table memories (nonsense text);"
        "drop table memory_jobs; create table memory_jobs (nonsense text);"
    )
    result = runner.invoke(cli, ["prompt", "-m", "memory-fake", "I love tea."])
    assert result.exit_code == 0
    assert result.output.strip() == "echo: I love tea."
    assert fake.calls[0] == [("user", "I love tea.")]


def test_model_without_message_chain_gets_the_block_as_prefix(runner, store, settings, fake_legacy):
    settings(wrapped_models=["fake", "fake-legacy"])
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    result = prompt(runner, "-m", "memory-fake-legacy", "Which tea?")
    [[(_, sent)]] = fake_legacy.calls
    assert sent.startswith(HEADING) and sent.endswith("Which tea?")
    assert "User likes green tea" in sent
    assert result.output.startswith("legacy: ")


def test_memory_follows_the_default_model(runner, fake):
    result = prompt(runner, "-m", "memory", "Hi there")
    assert result.output.strip() == "echo: Hi there"


def test_unknown_inner_model_is_a_clear_error(runner, settings):
    settings(claude_model="claude-not-installed")
    result = runner.invoke(cli, ["prompt", "-m", "memory-claude", "hi"])
    assert result.exit_code == 1
    assert "claude-not-installed" in result.output and "llm install llm-anthropic" in result.output


def test_python_api(store, fake):
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    model = llm.get_model("memory-fake")
    assert model.prompt("Which tea?").text() == "echo: Which tea?"
    assert HEADING in fake.calls[-1][-2][1]
    assert "memory" in model.Options.model_fields
    assert model.supports_schema is True and model.can_stream is True


def test_schema_tools_fragments_attachments_usage_and_options_pass_through(runner, fake, tmp_path):
    fragment = tmp_path / "notes.txt"
    fragment.write_text("Fragment text")
    image = tmp_path / "pixel.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16)
    result = runner.invoke(cli, [
        "prompt", "-m", "memory-fake", "--schema", "echo str", "-f", str(fragment),
        "-a", str(image), "-o", "temperature", "0.5", "-u", "Question",
    ], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip()) == {"echo": "Fragment text\nQuestion"}
    sent = fake.prompts[0]
    assert sent.schema["properties"] == {"echo": {"type": "string"}}
    assert sent.tools == []  # recall_memory is not offered beside a schema
    assert sent.options.temperature == 0.5 and not hasattr(sent.options, "memory")
    assert [a.path for a in sent.attachments] == [str(image)]
    assert "Token usage: 3 input, 4 output" in result.stderr
    tools = runner.invoke(cli, ["prompt", "-m", "memory-fake", "-T", "llm_version", "hi"],
                          catch_exceptions=False)
    assert tools.exit_code == 0, tools.output
    assert [t.name for t in fake.prompts[1].tools] == ["llm_version"]


def test_extraction_asks_for_structured_output(runner, fake):
    prompt(runner, "-m", "memory-fake", "I love tea.")
    assert fake.extraction_schemas[0]["properties"]["facts"]["type"] == "array"


def test_async_wrapper(runner, store, fake):
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    result = runner.invoke(cli, ["prompt", "--async", "-m", "memory-fake", "I love tea."],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "echo: I love tea."
    assert HEADING in fake.calls[0][-2][1]
    assert "User love tea" in [m.content for m in store.list()]
