"""``llm memories``: every command, its confirmations and its bad inputs."""

import json

import pytest
from llm.cli import cli


def run(runner, *args, input=None, code=0):
    result = runner.invoke(cli, ["memories", *args], input=input, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def snapshot(store):
    return [(m.id, m.content, m.conversation_id) for m in store.list()]


def test_add_list_show_and_json(runner, store):
    memory_id = run(runner, "add", "I prefer metric units").output.strip()
    run(runner, "add", "I live in Porto")
    listing = run(runner, "list").output
    assert listing.index("I live in Porto") < listing.index("I prefer metric units")
    assert memory_id in listing and "conversation: global" in listing
    data = json.loads(run(runner, "list", "--json", "-n", "1").output)
    assert [m["content"] for m in data] == ["I live in Porto"]
    assert set(data[0]) >= {"id", "content", "conversation_id", "created_at",
                            "last_used_at", "use_count"}
    shown = json.loads(run(runner, "show", memory_id, "--json").output)
    assert shown["content"] == "I prefer metric units"
    assert shown["embedding_model"] == "fake-embed"  # add embeds
    run(runner, "show", "nope", code=1)


def test_add_rejects_duplicates_and_empty(runner):
    run(runner, "add", "I like tea")
    assert "already" in run(runner, "add", "i like  TEA.", code=1).output
    run(runner, "add", "   ", code=1)


def test_scope_options(runner, store):
    store.add("From one", conversation_id="01aaa")
    store.add("From two", conversation_id="01bbb")
    store.add("Global one")
    assert "From two" not in run(runner, "list", "--cid", "01aaa").output
    run(runner, "list", "-c", code=1)  # no conversation logged yet
    runner.invoke(cli, ["prompt", "-m", "fake", "hello"], catch_exceptions=False)
    latest = run(runner, "add", "Scoped fact", "-c").output.strip()
    assert store.get(latest).conversation_id is not None
    assert "Scoped fact" in run(runner, "list", "-c").output
    run(runner, "list", "-c", "--cid", "x", code=2)


def test_search_ranks_by_keywords(runner, store):
    store.add("User plays chess")
    store.add("User plays chess and go every weekend with chess friends")
    store.add("User grows tomatoes")
    output = run(runner, "search", "chess").output
    assert "tomatoes" not in output and "User plays chess" in output
    data = json.loads(run(runner, "list", "--search", "tomatoes", "--json").output)
    assert [m["content"] for m in data] == ["User grows tomatoes"]


def test_search_ranks_as_recall_does_and_json_shows_method_and_score(runner, store):
    run(runner, "add", "User plays chess online")
    run(runner, "add", "User teaches chess openings")
    for text in ["User grows tomatoes in the garden", "User owns a red bicycle",
                 "User visited Rome in May", "User prefers window seats",
                 "User bakes sourdough bread", "User speaks fluent Portuguese",
                 "User collects vinyl records", "User swims before breakfast",
                 "User works night shifts", "User keeps two parrots"]:
        run(runner, "add", text)
    data = json.loads(run(runner, "search", "chess", "--json").output)
    assert {m["content"] for m in data[:2]} == {"User plays chess online", "User teaches chess openings"}
    assert all(m["method"] == "hybrid" for m in data)
    scores = [m["score"] for m in data]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    keyword = json.loads(run(runner, "search", "chess", "--keyword", "--json").output)
    assert {m["method"] for m in keyword} == {"keyword"}
    assert len(keyword) == 2 and all(m["score"] > 0 for m in keyword)
    assert "tomatoes" not in run(runner, "search", "chess", "-n", "2").output
    assert all(m["use_count"] == 0 for m in json.loads(run(runner, "list", "--json").output))
    run(runner, "search", "chess", "-n", "-1", code=1)
    assert len(json.loads(run(runner, "search", "chess", "-n", "0", "--keyword", "--json").output)) == 2


def test_edit_replaces_text_keeps_created_at(runner, store):
    memory = store.add("User lives in Porto")
    run(runner, "edit", memory.id, "User lives in Lisbon")
    edited = store.get(memory.id)
    assert edited.content == "User lives in Lisbon"
    assert edited.created_at == memory.created_at and edited.updated_at
    assert edited.embedding_model == "fake-embed"
    assert [m.content for m, _ in store.search("lisbon", 5)] == ["User lives in Lisbon"]
    assert store.search("porto", 5) == []
    run(runner, "edit", "missing-id", "x", code=1)


def test_edit_opens_the_editor(runner, store, monkeypatch):
    memory = store.add("User lives in Porto")
    monkeypatch.setattr("click.edit", lambda text: text.replace("Porto", "Faro"))
    run(runner, "edit", memory.id)
    assert store.get(memory.id).content == "User lives in Faro"
    monkeypatch.setattr("click.edit", lambda text: None)
    run(runner, "edit", memory.id, code=1)
    assert store.get(memory.id).content == "User lives in Faro"


def test_delete_asks_and_respects_no(runner, store):
    memory = store.add("User lives in Porto")
    result = run(runner, "delete", memory.id, input="n\n", code=1)
    assert "Delete 1 memory?" in result.output
    assert store.count() == 1
    run(runner, "delete", memory.id, input="y\n")
    assert store.count() == 0


def test_delete_with_an_unknown_id_deletes_nothing(runner, store):
    memory = store.add("User lives in Porto")
    result = run(runner, "delete", memory.id, "nope", "-y", code=1)
    assert "nope" in result.output
    assert store.count() == 1


def test_forget(runner, store):
    store.add("A", conversation_id="c1")
    store.add("B", conversation_id="c2")
    store.add("C")
    run(runner, "forget", code=2)
    run(runner, "forget", "--cid", "c1", input="n\n", code=1)
    assert store.count() == 3
    run(runner, "forget", "--cid", "c1", "-y")
    assert sorted(m.content for m in store.list()) == ["B", "C"]
    run(runner, "forget", "--all", input="y\n")
    assert store.count() == 0


def test_export_import_round_trip(runner, store, tmp_path):
    store.add("User lives in Porto", conversation_id="c1")
    store.add("User likes tea")
    path = tmp_path / "memories.json"
    run(runner, "export", str(path))
    document = json.loads(path.read_text())
    assert document["version"] == 1 and isinstance(document["exportedAt"], int)
    assert [m["content"] for m in document["memories"]] == ["User lives in Porto", "User likes tea"]
    # Same store: everything is a duplicate.
    assert json.loads(run(runner, "import", str(path)).output) == {"imported": 0, "skipped": 2}
    before = {m.content: m for m in store.list()}
    store.forget(everything=True)
    assert json.loads(run(runner, "import", str(path)).output) == {"imported": 2, "skipped": 0}
    after = {m.content: m for m in store.list()}
    for content, memory in before.items():
        assert after[content].id == memory.id
        assert after[content].conversation_id == memory.conversation_id
        assert after[content].created_at == memory.created_at
        assert after[content].source == "import"
    assert json.loads(run(runner, "import", str(path)).output) == {"imported": 0, "skipped": 2}


def test_export_to_stdout(runner, store):
    store.add("User likes tea")
    document = json.loads(run(runner, "export").output)
    assert document["memories"][0]["content"] == "User likes tea"


def test_import_plain_list_of_strings_from_stdin(runner, store):
    store.add("User likes tea")
    result = run(runner, "import", "-", input=json.dumps(
        ["User likes tea", "User uses vim", "user uses VIM.", "User lives in Porto"]))
    assert json.loads(result.output) == {"imported": 2, "skipped": 2}
    assert sorted(m.content for m in store.list()) == [
        "User likes tea", "User lives in Porto", "User uses vim"]
    assert all(m.embedding_model == "fake-embed" for m in store.list() if m.source == "import")


@pytest.mark.parametrize("payload, message", [
    (b"{not json", "not valid JSON"),
    (b"\xff\xfe\x00garbage", "UTF-8"),
    (json.dumps({"version": 2, "memories": []}).encode(), "version"),
    (json.dumps({"version": "1", "memories": []}).encode(), "version"),
    (json.dumps({"memories": ["x"]}).encode(), "version"),
    (json.dumps({"version": 1, "memories": "x"}).encode(), "must be a list"),
    (json.dumps(["fine", 3]).encode(), "memories[1]"),
    (json.dumps(["fine", ""]).encode(), "memories[1].content"),
    (json.dumps([{"content": "x", "created_at": "yesterday"}]).encode(), "created_at"),
    (json.dumps([{"content": "x", "conversation_id": 5}]).encode(), "conversation_id"),
    (json.dumps(["a\u0000b"]).encode(), "NUL"),
    (json.dumps("just a string").encode(), "Expected"),
    (b"[" * 100000 + b"]" * 100000, "JSON"),
])
def test_bad_import_files_write_nothing(runner, store, tmp_path, payload, message):
    store.add("User likes tea")
    before = snapshot(store)
    path = tmp_path / "bad.json"
    path.write_bytes(payload)
    result = run(runner, "import", str(path), code=1)
    assert message in result.output
    assert snapshot(store) == before


def test_oversized_import_is_rejected(runner, store, tmp_path, monkeypatch):
    monkeypatch.setattr("llm_kinetaios.cli.MAX_IMPORT_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(["x" * 200]))
    assert "too large" in run(runner, "import", str(path), code=1).output
    assert store.count() == 0


def test_import_with_clashing_ids_keeps_both(runner, store, tmp_path):
    existing = store.add("User likes tea")
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"version": 1, "memories": [
        {"id": existing.id, "content": "User likes coffee"},
        {"id": "dup", "content": "User likes juice"},
        {"id": "dup", "content": "User likes water"},
    ]}))
    assert json.loads(run(runner, "import", str(path)).output) == {"imported": 3, "skipped": 0}
    assert store.get(existing.id).content == "User likes tea"
    assert store.count() == 4


def test_pause_resume_and_config(runner, user_path):
    run(runner, "pause")
    assert json.loads(run(runner, "config", "paused").output) is True
    run(runner, "resume")
    assert json.loads(run(runner, "config", "paused").output) is False
    run(runner, "config", "min-similarity", "0.4")
    run(runner, "config", "extract-model", "fake")
    settings = json.loads(run(runner, "config", "--json").output)
    assert settings["min_similarity"] == 0.4 and settings["extraction_model"] == "fake"
    assert "Unknown setting" in run(runner, "config", "bogus", "1", code=1).output
    assert "between" in run(runner, "config", "min-similarity", "7", code=1).output
    assert "scope" in run(runner, "config", "scope", "everywhere", code=1).output
    run(runner, "config", "min-margin", "0.07")
    assert json.loads(run(runner, "config", "--json").output)["min_margin"] == 0.07
    assert "between" in run(runner, "config", "min-margin", "3", code=1).output
    run(runner, "config", "min-margin", "auto")
    assert json.loads(run(runner, "config", "--json").output)["min_margin"] is None


def test_wrap_and_unwrap(runner):
    run(runner, "unwrap", "fake")
    models = runner.invoke(cli, ["models"]).output
    assert "memory-fake\n" not in models
    assert run(runner, "wrap", "fake-legacy").output.strip() == "memory-fake-legacy"
    assert "memory-fake-legacy" in runner.invoke(cli, ["models"]).output
    assert "Unknown model" in run(runner, "wrap", "no-such-model", code=1).output
    run(runner, "wrap", "memory-claude", code=1)
    run(runner, "unwrap", "memory-fake-legacy")
    assert "memory-fake-legacy" not in runner.invoke(cli, ["models"]).output


def test_path_and_stats(runner, store, user_path):
    assert run(runner, "path").output.strip() == str(user_path / "logs.db")
    store.add("A", conversation_id="c1")
    run(runner, "add", "B")
    stats = json.loads(run(runner, "stats", "--json").output)
    assert stats["memories"] == 2 and stats["global"] == 1 and stats["conversations"] == 1
    assert stats["embedded"] == {"fake-embed": 1}
    assert "Memories: 2" in run(runner, "stats").output


def test_reindex_embeds_missing_and_replaces_other_models(runner, store, settings):
    store.add("User plays chess")
    store.add("User grows tomatoes")
    store.db.execute("update memories set embedding = x'00000000', embedding_model = 'old' where content like '%tomatoes%'")
    run(runner, "reindex")
    assert store.stats()["embedded"] == {"fake-embed": 2}
    settings(embedding_model="none")
    assert "No embedding model" in run(runner, "reindex", code=1).output


def test_log_and_process(runner, store, fake, monkeypatch):
    monkeypatch.setenv("LLM_KINETAIOS_WORKER", "off")
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I love tea."], catch_exceptions=False)
    assert store.count() == 0
    assert "pending" in run(runner, "log").output
    assert "Processed 2 jobs" in run(runner, "process").output
    assert [m.content for m in store.list()] == ["User love tea"]
    assert "done" in run(runner, "log").output
    jobs = json.loads(run(runner, "log", "--json").output)
    assert {j["kind"]: j["result"] for j in jobs}["extract"]["added"] == 1


@pytest.mark.parametrize("command", [
    "list", "search", "show", "add", "edit", "delete", "forget", "export", "import",
    "pause", "resume", "config", "wrap", "unwrap", "path", "stats", "log", "process", "reindex",
    "datasette-metadata",
    "pin", "unpin", "projects", "used",
])
def test_every_command_has_help_with_an_example(runner, command):
    output = run(runner, command, "--help").output
    assert "Example" in output


def test_export_with_vectors_restores_without_embedding(runner, store, tmp_path, embedded_texts):
    run(runner, "add", "User lives in Porto")
    run(runner, "add", "User likes green tea")
    before = dict(zip(*store.vectors("fake-embed")))
    assert len(before) == 2
    path = tmp_path / "backup.json"
    run(runner, "export", "--vectors", str(path))
    document = json.loads(path.read_text())
    assert {m["embedding_model"] for m in document["memories"]} == {"fake-embed"}
    store.forget(everything=True)
    embedded_texts.clear()
    assert json.loads(run(runner, "import", str(path)).output) == {"imported": 2, "skipped": 0}
    assert embedded_texts == []  # the file's vectors were reused
    assert dict(zip(*store.vectors("fake-embed"))) == before


def test_import_embeds_vectors_of_another_model(runner, store, tmp_path):
    import base64

    path = tmp_path / "other.json"
    path.write_text(json.dumps({"version": 1, "memories": [
        {"content": "User likes tea", "embedding_model": "other-model",
         "vector": base64.b64encode(b"\0\0\x80?" * 3).decode()}]}))
    assert json.loads(run(runner, "import", str(path)).output) == {"imported": 1, "skipped": 0}
    ids, blob = store.vectors("fake-embed")
    assert len(ids) == 1 and len(blob) == 1024 * 4


@pytest.mark.parametrize("vector, message", [
    ("not base64!", "not valid base64"),
    ("AAAA" + "AAA=", "wrong length"),
    ("AADAfw==", "not a finite number"),  # NaN
])
def test_import_rejects_bad_vectors_and_imports_nothing(runner, store, tmp_path, vector, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"version": 1, "memories": [
        {"content": "User likes tea", "embedding_model": "m", "vector": vector}]}))
    result = run(runner, "import", str(path), code=1)
    assert message in result.output
    assert store.count() == 0
