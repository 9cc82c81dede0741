"""Sticky injection: earlier blocks re-sent in place, each memory sent once
per conversation, updates retracted in a later block, and nothing deleted or
edited ever re-sent."""

import re

import llm
from llm.cli import cli

from llm_kinetaios.recall import BLOCK_HEADING
from test_wrapper import add_memories, all_text_outside_plugin_tables, prompt

TEA = ["User likes green tea", "User drinks tea daily", "User likes tea cakes"]
PORTO = ["User lives in Porto", "User walks along the Porto riverside", "User rents a flat in Porto"]


def blocks_in(request):
    "[(index, text)] of the memory blocks in one recorded request."
    return [(i, text) for i, (_, text) in enumerate(request) if text.startswith(BLOCK_HEADING)]


def chat(runner, *lines):
    result = runner.invoke(cli, ["chat", "-m", "memory-fake"], input="\n".join(lines) + "\nquit\n",
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_each_request_is_a_prefix_of_the_next(runner, store, fake, logs_db):
    add_memories(store, *TEA, *PORTO)
    chat(runner, "Which tea should I buy?", "Is Porto nice in winter?", "And tea in Porto?")
    assert len(fake.calls) == 3
    for earlier, later in zip(fake.calls, fake.calls[1:]):
        assert later[: len(earlier)] == earlier
    # Turn 2 adds only what turn 1 did not show; turn 3 has nothing new to add.
    first, second, third = (blocks_in(call) for call in fake.calls)
    assert len(first) == 1 and all(fact in first[0][1] for fact in TEA)
    assert len(second) == 2 and second[0] == first[0]
    assert all(fact in second[1][1] for fact in PORTO)
    assert not any(fact in second[1][1] for fact in TEA)
    assert third == second
    # Every memory is in the last request exactly once, and in no logged row.
    sent = "\n".join(text for _, text in fake.calls[-1])
    # Each bullet ends with the memory's date (issue 14), the same in every re-built block.
    assert all(len(re.findall(rf"^- {re.escape(fact)} \(\d{{4}}-\d\d-\d\d\)$", sent, re.M)) == 1
               for fact in TEA + PORTO)
    assert [t for t, text in all_text_outside_plugin_tables(logs_db()) if BLOCK_HEADING in text] == []


def test_continuing_with_c_re_sends_the_first_turns_block(runner, store, fake):
    add_memories(store, *TEA)
    prompt(runner, "-m", "memory-fake", "-s", "You are terse", "Which tea should I buy?")
    prompt(runner, "-c", "And a teapot for tea?")
    first, second = fake.calls
    assert second[: len(first)] == first
    assert second[len(first):] == [("assistant", "echo: Which tea should I buy?"),
                                   ("user", "And a teapot for tea?")]


def test_an_edited_memory_is_never_re_sent_in_its_old_words(runner, store, fake):
    add_memories(store, *TEA)
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    green = next(m for m in store.list() if m.content == "User likes green tea")
    runner.invoke(cli, ["memories", "edit", green.id, "User likes black tea"], catch_exceptions=False)
    prompt(runner, "-c", "Any more tea tips?")
    second = fake.calls[1]
    [(index, block)] = blocks_in(second)  # the old block is gone: one full block instead
    assert index == len(second) - 2
    assert "User likes black tea" in block and "User drinks tea daily" in block
    assert not any("green tea" in text for _, text in second)
    # The reset is remembered: a third turn re-sends the second turn's block.
    prompt(runner, "-c", "Tea with milk?")
    assert fake.calls[2][: len(second)] == second


def test_a_deleted_memory_is_not_re_sent(runner, store, fake):
    add_memories(store, *TEA)
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    cakes = next(m for m in store.list() if m.content == "User likes tea cakes")
    runner.invoke(cli, ["memories", "delete", cakes.id, "-y"], catch_exceptions=False)
    prompt(runner, "-c", "Any more tea tips?")
    second = fake.calls[1]
    assert not any("tea cakes" in text for _, text in second)
    [(index, block)] = blocks_in(second)
    assert index == len(second) - 2 and "User likes green tea" in block


def test_a_superseded_memory_is_retracted_without_breaking_the_prefix(runner, store, fake):
    add_memories(store, *TEA)
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    daily = next(m for m in store.list() if m.content == "User drinks tea daily")
    newer = store.add("User drinks only coffee now")  # not something recall would find for "tea"
    store.supersede(daily.id, newer.id)
    prompt(runner, "-c", "Any more tea tips?")
    first, second = fake.calls
    assert second[: len(first)] == first  # the first block is re-sent as it was
    [_, (index, block)] = blocks_in(second)
    assert index == len(second) - 2
    assert "- User drinks only coffee now" in block  # the replacement, though not recalled
    assert "- No longer true: User drinks tea daily" in block
    assert "User likes green tea" not in block  # shown already
    # The retraction is sent once: the next turn re-sends it in place and adds nothing.
    prompt(runner, "-c", "Tea with milk?")
    third = fake.calls[2]
    assert third[: len(second)] == second
    assert blocks_in(third) == blocks_in(second)
    # Deleting the old row (history) later is a change like any other: one full block.
    store.delete([daily.id])
    prompt(runner, "-c", "Green tea or black?")
    [(index, block)] = blocks_in(fake.calls[3])
    assert "No longer true" not in block and "drinks tea daily" not in block


def test_too_many_memories_shown_starts_over_with_one_block(runner, store, fake, settings):
    settings(recall_limit=1, query_messages=1, min_keyword_hits=1)  # at most 3 memories before a reset
    add_memories(store, "User likes green tea", "User lives in Porto", "User plays the cello",
                 "User grows tomatoes")
    prompts = ["Which tea is best?", "Is Porto sunny?", "Is the cello hard?", "Do tomatoes need sun?"]
    chat(runner, *prompts)
    counts = [len(blocks_in(call)) for call in fake.calls]
    assert counts == [1, 2, 3, 1]
    [(index, block)] = blocks_in(fake.calls[3])
    assert index == len(fake.calls[3]) - 2 and "tomatoes" in block


def test_the_same_turn_sent_again_gets_the_same_block(runner, store, fake):
    "A tool-call chain (or a retry) repeats the user's message: same request prefix each time."
    from llm.parts import Message, TextPart

    add_memories(store, *TEA)
    model = llm.get_model("memory-fake")
    messages = [Message(role="user", parts=[TextPart(text="Which tea should I buy?")])]
    model.prompt(messages=messages).text()
    add_memories(store, "User likes tea with lemon")  # would be recalled by a new turn
    model.prompt(messages=messages).text()
    first, second = fake.calls
    assert first == second


def test_fresh_injection_sends_one_full_block_per_turn(runner, store, fake, settings):
    settings(injection="fresh")
    add_memories(store, *TEA, *PORTO)
    chat(runner, "Which tea should I buy?", "Is Porto nice in winter?")
    for call in fake.calls:
        assert [i for i, _ in blocks_in(call)] == [len(call) - 2]
    assert all(fact in blocks_in(fake.calls[1])[0][1] for fact in TEA + PORTO)


def test_prefixing_puts_each_block_inside_its_own_turn(runner, store, fake, settings):
    settings(prefix_models=["fake"])
    add_memories(store, *TEA, *PORTO)
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    prompt(runner, "-c", "Is Porto nice in winter?")
    first, second = fake.calls
    assert second[: len(first)] == first
    [(_, turn_one)] = first
    assert turn_one.startswith(BLOCK_HEADING) and turn_one.endswith("Which tea should I buy?")
    assert second[-1][1].startswith(BLOCK_HEADING) and "User lives in Porto" in second[-1][1]
    # Prefixing, each turn's block holds everything recalled for it (a plugin
    # that rebuilds history from logged prompts sees only the newest block).
    assert "User likes green tea" in second[-1][1]


def test_a_model_without_history_refuses_to_continue_wrapped_as_unwrapped(runner, store, settings,
                                                                          fake_legacy):
    settings(wrapped_models=["fake", "fake-legacy"])
    add_memories(store, *TEA)
    prompt(runner, "-m", "memory-fake-legacy", "Which tea?")
    result = runner.invoke(cli, ["prompt", "-c", "More tea?"])
    assert result.exit_code == 1 and "does not support conversations" in result.output
    assert len(fake_legacy.calls) == 1  # refused before the model was called


def test_injection_setting_is_checked(runner):
    result = runner.invoke(cli, ["memories", "config", "injection", "fresh"])
    assert result.exit_code == 0 and "injection: \"fresh\"" in result.output
    result = runner.invoke(cli, ["memories", "config", "injection", "sideways"])
    assert result.exit_code == 1 and "injection must be one of: sticky, fresh" in result.output


def test_each_bullet_ends_with_the_day_its_memory_was_noted_not_today():
    import datetime

    from llm_kinetaios.recall import format_block
    from llm_kinetaios.store import Memory

    noted = datetime.datetime(2026, 12, 2, 12, 0)
    memory = Memory(id="m1", content="User starts a new job next month", conversation_id=None,
                    source="extracted", source_response_id=None,
                    created_at=int(noted.timestamp() * 1000), updated_at=None, last_used_at=None,
                    use_count=0, embedding_model=None)
    block = format_block([memory])
    assert block.endswith("\n- User starts a new job next month (2026-12-02)")
    assert format_block([memory]) == block  # the same text whenever it is re-built
