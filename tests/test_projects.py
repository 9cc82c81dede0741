"""Project scope, pinned memories, ``llm memories used`` and forgetting by use."""

import json
import re
import shutil
import subprocess

import pytest
from llm.cli import cli

from llm_kinetaios.config import Settings
from llm_kinetaios.projects import current_project, normalise_remote, remote_url
from llm_kinetaios.recall import BLOCK_HEADING, recall
from test_wrapper import add_memories, prompt


def git_repo(path, remote=None):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


def memories_cmd(runner, *args, input=None, code=0):
    result = runner.invoke(cli, ["memories", *args], input=input, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def sent_bullets(request):
    "The memory bullets of every block in one recorded request, in order."
    return [re.sub(r" \(\d{4}-\d\d-\d\d\)$", "", line[2:])  # without its date (issue 14)
            for _, text in request if text.startswith(BLOCK_HEADING)
            for line in text.splitlines() if line.startswith("- ")]


@pytest.fixture
def repos(tmp_path):
    "Two checkouts: one with a GitHub remote, one with none (named by its path)."
    return git_repo(tmp_path / "webapp", "git@github.com:example/webapp.git"), git_repo(tmp_path / "cli-tool")


# Project identity ---------------------------------------------------------


@pytest.mark.parametrize("url, expected", [
    ("git@github.com:example/webapp.git", "github.com/example/webapp"),
    ("https://github.com/example/webapp", "github.com/example/webapp"),
    ("https://user:token@GitHub.com/example/webapp.git/", "github.com/example/webapp"),
    ("ssh://git@gitlab.example.org:2222/team/app.git", "gitlab.example.org/team/app"),
    ("/srv/git/app.git", "/srv/git/app.git"),
])
def test_remote_urls_name_one_project_whatever_the_protocol(url, expected):
    assert normalise_remote(url) == expected


def test_remote_url_prefers_origin():
    config = '[core]\n\tbare = false\n[remote "upstream"]\n\turl = https://a.org/x\n' \
             '[remote "origin"]\n\turl = git@b.org:me/y.git\n\tfetch = +refs/heads/*\n'
    assert remote_url(config) == "git@b.org:me/y.git"
    assert remote_url('[remote "fork"]\n\turl = https://a.org/x\n') == "https://a.org/x"
    assert remote_url("[core]\n\tbare = false\n") is None


def test_project_is_the_remote_else_the_checkout_else_the_directory(repos, tmp_path):
    webapp, tool = repos
    (webapp / "src" / "deep").mkdir(parents=True)
    assert current_project(webapp / "src" / "deep") == "github.com/example/webapp"
    assert current_project(tool) == str(tool.resolve())
    elsewhere = tmp_path / "notes"
    elsewhere.mkdir()
    assert current_project(elsewhere) == str(elsewhere.resolve())


def test_a_linked_worktree_is_the_same_project(repos, tmp_path):
    webapp, _ = repos
    subprocess.run(["git", "-C", str(webapp), "-c", "user.email=a@b", "-c", "user.name=a",
                    "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    linked = tmp_path / "webapp-feature"
    subprocess.run(["git", "-C", str(webapp), "worktree", "add", "-q", str(linked)], check=True)
    assert current_project(linked) == "github.com/example/webapp"


# Scope in recall ------------------------------------------------------------


def test_a_project_fact_stays_in_its_project_and_a_global_fact_goes_everywhere(
        runner, store, fake, repos, monkeypatch):
    webapp, tool = repos
    monkeypatch.chdir(webapp)
    prompt(runner, "-m", "memory-fake", "I deploy everything on Fridays. Our project deploys with fly.io.")
    by_content = {m.content: m for m in store.list()}
    assert by_content["The project deploys with fly.io"].project == "github.com/example/webapp"
    assert by_content["User deploy everything on Fridays"].project is None
    question = "How do deploys work, fly.io or Fridays?"
    prompt(runner, "-m", "memory-fake", question)
    assert set(sent_bullets(fake.calls[-1])) == {"The project deploys with fly.io",
                                                 "User deploy everything on Fridays"}
    monkeypatch.chdir(tool)
    prompt(runner, "-m", "memory-fake", question)
    assert sent_bullets(fake.calls[-1]) == ["User deploy everything on Fridays"]
    assert not any("fly.io deploys" in text or "deploys with fly.io" in text
                   for call in fake.calls[2:] for _, text in call if text.startswith(BLOCK_HEADING))
    # Learned in the other project: never sent back to the first.
    prompt(runner, "-m", "memory-fake", "Our project deploys with Heroku.")
    monkeypatch.chdir(webapp)
    prompt(runner, "-m", "memory-fake", "Which deploys: Heroku or fly.io?")
    assert "The project deploys with Heroku" not in sent_bullets(fake.calls[-1])
    assert "The project deploys with fly.io" in sent_bullets(fake.calls[-1])


def test_the_extraction_call_names_the_project_and_marks_facts_in_one_field(runner, store, fake, repos, monkeypatch):
    monkeypatch.chdir(repos[0])
    prompt(runner, "-m", "memory-fake", "Our project uses tabs.")
    [call] = fake.extraction_calls
    assert "<current_project>\ngithub.com/example/webapp\n</current_project>" in call[-1][1]
    assert set(fake.extraction_schemas[0]["properties"]) == {"facts", "updates", "project", "instructions"}
    [memory] = store.list()
    assert memory.project == "github.com/example/webapp"


def test_a_project_named_by_its_path_reaches_the_model_by_its_last_part_only(
        runner, store, fake, repos, monkeypatch):
    monkeypatch.chdir(repos[1])
    prompt(runner, "-m", "memory-fake", "Our project uses tabs.")
    [call] = fake.extraction_calls
    assert "<current_project>\ncli-tool\n</current_project>" in call[-1][1]
    assert str(repos[1].parent) not in call[-1][1]
    assert store.list()[0].project == str(repos[1].resolve())


def test_the_same_words_may_be_remembered_in_two_projects(runner, store, repos, monkeypatch):
    for repo in repos:
        monkeypatch.chdir(repo)
        prompt(runner, "-m", "memory-fake", "Our project uses tabs for indentation.")
    assert sorted(m.project for m in store.list()) == sorted(current_project(r) for r in repos)


def test_a_project_fact_a_global_memory_states_already_is_not_stored_again(runner, store, repos, monkeypatch):
    from llm_kinetaios.write import write_memories

    memories_cmd(runner, "add", "The project uses tabs for indentation")  # global
    report = write_memories(store, [{"content": "The project uses tabs for indentation.",
                                     "project": "github.com/example/webapp"}])
    assert report.duplicates == 1 and not report.added
    # The other way round a global fact is stored: the project's copy is not seen elsewhere.
    monkeypatch.chdir(repos[0])
    project_id = memories_cmd(runner, "add", "The project lints with ruff", "--project").output.strip()
    report = write_memories(store, [{"content": "The project lints with ruff"}])
    assert [m.project for m in report.added] == [None]
    assert store.get(project_id).project == "github.com/example/webapp"


def test_scope_all_setting_recalls_every_project(store, settings, repos):
    add_memories(store, "The project uses tabs", project="github.com/other/repo")
    add_memories(store, "User likes tabs")
    found = recall(store, "tabs", Settings(min_cosine_hits=1), project="github.com/example/webapp",
                   embedding_model=None)
    assert [m.content for m in found.memories] == ["User likes tabs"]
    everything = recall(store, "tabs", Settings(scope="all", min_cosine_hits=1),
                        project="github.com/example/webapp", embedding_model=None)
    assert {m.content for m in everything.memories} == {"User likes tabs", "The project uses tabs"}


def test_other_projects_are_masked_in_every_recall_method(store):
    import llm

    embed = llm.get_embedding_model("fake-embed")
    add_memories(store, "The project uses tabs", "The project uses tabs widely", "The project tabs rule",
                 project="elsewhere")
    add_memories(store, "User likes tabs in editors")
    for settings in (Settings(min_cosine_hits=1), Settings(min_cosine_hits=1, ranking="cosine"),
                     Settings(min_cosine_hits=99, min_keyword_hits=1),
                     Settings(min_cosine_hits=99, min_keyword_hits=99)):
        result = recall(store, "tabs project", settings, embedding_model=embed, project="here")
        assert [m.content for m in result.memories] == ["User likes tabs in editors"], result.method


def test_edit_global_moves_a_memory_and_recall_follows(runner, store, fake, repos, monkeypatch):
    webapp, tool = repos
    monkeypatch.chdir(webapp)
    memory_id = memories_cmd(runner, "add", "The project lints with ruff", "--project").output.strip()
    assert store.get(memory_id).project == "github.com/example/webapp"
    monkeypatch.chdir(tool)
    prompt(runner, "-m", "memory-fake", "Which linter, ruff?")
    assert sent_bullets(fake.calls[-1]) == []
    memories_cmd(runner, "edit", memory_id, "--global")
    assert store.get(memory_id).project is None
    prompt(runner, "-m", "memory-fake", "Which linter, ruff?")
    assert sent_bullets(fake.calls[-1]) == ["The project lints with ruff"]
    memories_cmd(runner, "edit", memory_id, "--project")  # now to this project
    assert store.get(memory_id).project == str(tool.resolve())
    monkeypatch.chdir(webapp)
    prompt(runner, "-m", "memory-fake", "Which linter, ruff?")
    assert sent_bullets(fake.calls[-1]) == []
    memories_cmd(runner, "edit", memory_id, "--global", "--project", code=2)


def test_list_project_global_and_projects_with_counts(runner, store, repos, monkeypatch):
    webapp, tool = repos
    monkeypatch.chdir(webapp)
    memories_cmd(runner, "add", "The project uses tabs", "--project")
    memories_cmd(runner, "add", "The project ships on Fridays", "--project")
    memories_cmd(runner, "add", "User likes tea")
    monkeypatch.chdir(tool)
    memories_cmd(runner, "add", "The tool is written in Go", "--project")
    here = json.loads(memories_cmd(runner, "list", "--project", "--json").output)
    assert [m["content"] for m in here] == ["The tool is written in Go"]
    assert [m["content"] for m in json.loads(memories_cmd(runner, "list", "--global", "--json").output)] \
        == ["User likes tea"]
    there = memories_cmd(runner, "list", "--in-project", "github.com/example/webapp").output
    assert "The project uses tabs" in there and "Go" not in there and "project: github.com/example/webapp" in there
    rows = json.loads(memories_cmd(runner, "projects", "--json").output)
    assert [(r["project"], r["memories"], r["current"]) for r in rows] == [
        (None, 1, False), ("github.com/example/webapp", 2, False), (str(tool.resolve()), 1, True)]
    assert len(json.loads(memories_cmd(runner, "projects", "--json", "-n", "1").output)) == 1
    text = memories_cmd(runner, "projects").output
    assert f"* {tool.resolve()}  1 memory" in text and "  github.com/example/webapp  2 memories" in text
    memories_cmd(runner, "list", "--project", "--global", code=2)


# Pins -------------------------------------------------------------------------


def test_a_pinned_memory_is_sent_first_for_an_unrelated_question(runner, store, fake):
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes",
                 "User asks to be called Dhravya")
    dhravya = next(m for m in store.list() if "Dhravya" in m.content)
    memories_cmd(runner, "pin", dhravya.id)
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    assert sent_bullets(fake.calls[-1])[0] == "User asks to be called Dhravya"
    assert "User likes green tea" in sent_bullets(fake.calls[-1])
    # Sticky: sent once per conversation, and kept in the cached prefix.
    prompt(runner, "-c", "And a teapot for tea?")
    first, second = fake.calls[-2:]
    assert second[: len(first)] == first
    assert sent_bullets(second).count("User asks to be called Dhravya") == 1
    memories_cmd(runner, "unpin", dhravya.id)
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    assert "User asks to be called Dhravya" not in sent_bullets(fake.calls[-1])


def test_pinned_memories_fit_the_pinned_tokens_setting(runner, store, fake, settings):
    settings(pinned_tokens=10)
    first = store.add("User is called Dhravya")  # 6 tokens by the estimate
    second = store.add("User wants every answer in French, please")  # 11: over on its own
    third = store.add("User uses metric")  # 4: still fits after the first
    result = memories_cmd(runner, "pin", first.id, second.id, third.id)
    assert f"{second.id} does not fit" in result.output and first.id not in result.output
    prompt(runner, "-m", "memory-fake", "Plan my trip to Japan")
    assert sent_bullets(fake.calls[-1])[:2] == ["User is called Dhravya", "User uses metric"]
    assert "French" not in " ".join(sent_bullets(fake.calls[-1])[:2])
    assert [m.id for m in store.list(pinned_only=True)] == [third.id, second.id, first.id]
    memories_cmd(runner, "pin", "nope", first.id, code=1)


def test_extraction_marks_standing_instructions_but_pins_nothing_by_default(runner, store):
    prompt(runner, "-m", "memory-fake", "Always call me Dhravya.")
    [memory] = store.list()
    assert memory.content == "User asks: always call me Dhravya" and not memory.pinned


def test_auto_pin_setting_pins_standing_instructions(runner, store, settings):
    settings(auto_pin=True)
    prompt(runner, "-m", "memory-fake", "Always call me Dhravya. I live in Porto.")
    pinned = {m.content: m.pinned for m in store.list()}
    assert pinned == {"User asks: always call me Dhravya": True, "User live in Porto": False}


# Why was this recalled --------------------------------------------------------


def test_used_names_exactly_the_memories_of_the_request(runner, store, fake):
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes",
                 "User lives in Porto", "User walks along the Porto riverside", "User rents a flat in Porto")
    pin = store.add("User is called Dhravya")
    memories_cmd(runner, "pin", pin.id)
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    prompt(runner, "-c", "Is Porto nice in winter?")
    first_id, second_id = [r["id"] for r in store.db.query("select id from turns order by id")]
    latest = json.loads(memories_cmd(runner, "used", "--json").output)
    [report] = latest
    assert report["response_id"] == second_id
    assert [m["content"] for m in report["memories"]] == sent_bullets(fake.calls[-1])
    blocks = [b for b in fake.calls[-1] if b[1].startswith(BLOCK_HEADING)]
    assert sorted({m["block"] for m in report["memories"]}) == list(range(1, len(blocks) + 1)) == [1, 2]
    methods = {m["content"]: (m["method"], m["sent_by"]) for m in report["memories"]}
    assert methods["User is called Dhravya"] == ("pinned", first_id)
    assert methods["User lives in Porto"][1] == second_id
    assert all(m["score"] is not None for m in report["memories"] if m["method"] != "pinned")
    # Every response of the conversation, each with its own request's memories.
    both = json.loads(memories_cmd(runner, "used", "-c", "--json").output)
    assert [r["response_id"] for r in both] == [first_id, second_id]
    assert [m["content"] for m in both[0]["memories"]] == sent_bullets(fake.calls[0])
    assert json.loads(memories_cmd(runner, "used", first_id, "--json").output) == both[:1]
    cid = both[0]["conversation_id"]
    assert json.loads(memories_cmd(runner, "used", "--cid", cid, "-n", "1", "--json").output) == both[1:]
    text = memories_cmd(runner, "used").output
    assert f"block 1, first sent with response {first_id}:" in text
    assert "block 2, first sent with this response:" in text and "pinned" in text
    assert "> Is Porto nice in winter?" in text
    memories_cmd(runner, "used", "nope", code=1)
    memories_cmd(runner, "used", first_id, "-c", code=2)


def test_used_says_when_nothing_was_shown(runner, store):
    prompt(runner, "-m", "fake", "hello")
    assert "no memories shown" in memories_cmd(runner, "used").output
    result = runner.invoke(cli, ["memories", "used", "-d", "missing.db"])
    assert result.exit_code == 1 and "No log database" in result.output


def test_show_lists_the_responses_shown_the_memory(runner, store, fake):
    add_memories(store, "User likes green tea", "User drinks tea daily", "User likes tea cakes")
    prompt(runner, "-m", "memory-fake", "Which tea should I buy?")
    prompt(runner, "-m", "memory-fake", "Green tea or black tea?")
    green = next(m for m in store.list() if m.content == "User likes green tea")
    shown = json.loads(memories_cmd(runner, "show", green.id, "--json").output)
    turn_ids = [r["id"] for r in store.db.query("select id from turns order by id desc")]
    assert [u["response_id"] for u in shown["shown_to"]] == turn_ids
    assert shown["last_used_at"] == store.get(green.id).last_used_at
    text = memories_cmd(runner, "show", green.id).output
    assert "shown to 2 responses" in text and turn_ids[0] in text
    assert "project: global" in text and "pinned_at: not pinned" in text


# Export, import --------------------------------------------------------------


def test_export_import_keeps_scope_and_pins(runner, store, tmp_path, repos, monkeypatch):
    monkeypatch.chdir(repos[0])
    project_id = memories_cmd(runner, "add", "The project uses tabs", "--project").output.strip()
    pinned_id = memories_cmd(runner, "add", "User is called Dhravya", "--pin").output.strip()
    memories_cmd(runner, "add", "User likes tea")
    before = {m.id: (m.project, m.pinned_at) for m in store.list()}
    path = tmp_path / "memories.json"
    memories_cmd(runner, "export", str(path))
    store.forget(everything=True)
    assert json.loads(memories_cmd(runner, "import", str(path)).output)["imported"] == 3
    assert {m.id: (m.project, m.pinned_at) for m in store.list()} == before
    assert before[project_id][0] == "github.com/example/webapp" and before[pinned_id][1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"content": "x", "project": 3}]))
    assert "project" in memories_cmd(runner, "import", str(bad), code=1).output
    blank = tmp_path / "blank.json"
    blank.write_text(json.dumps([{"content": "User likes coffee", "project": " "}]))
    memories_cmd(runner, "import", str(blank))
    assert next(m for m in store.list() if m.content == "User likes coffee").project is None


# Forgetting by use -----------------------------------------------------------


def test_forget_unused_for_asks_and_keeps_used_and_pinned(runner, store):
    day = 86_400_000
    from llm_kinetaios.store import now_ms

    old_unused = store.add("User once liked jazz", created_at=now_ms() - 200 * day)
    old_used = store.add("User likes tea", created_at=now_ms() - 200 * day)
    store.mark_used([old_used.id], at=now_ms() - 10 * day)
    stale_used = store.add("User had a cat", created_at=now_ms() - 300 * day)
    store.mark_used([stale_used.id], at=now_ms() - 100 * day)
    old_pinned = store.add("User is called Dhravya", created_at=now_ms() - 200 * day)
    store.set_pinned([old_pinned.id], True)
    store.add("User just said hello")
    listed = json.loads(memories_cmd(runner, "list", "--unused-for", "90d", "--json").output)
    assert {m["id"] for m in listed} == {old_unused.id, stale_used.id}
    assert {m["id"] for m in json.loads(
        memories_cmd(runner, "list", "--unused-for", "1y", "--json").output)} == set()
    result = memories_cmd(runner, "forget", "--unused-for", "90d", input="n\n", code=1)
    assert "Forget 2 memories unused for 90d?" in result.output and store.count() == 5
    memories_cmd(runner, "forget", "--unused-for", "90d", input="y\n")
    assert {m.id for m in store.list()} == {old_used.id, old_pinned.id} | {
        m.id for m in store.list() if m.content == "User just said hello"}
    assert store.count() == 3
    assert "duration" in memories_cmd(runner, "forget", "--unused-for", "soon", code=2).output
    memories_cmd(runner, "forget", "--unused-for", "90d", "--all", code=2)
