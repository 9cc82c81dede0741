"""A database that takes no writes, a logs.db the plugin creates first, and
import files that JSON accepts but text cannot hold."""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import sqlite_utils
from llm.cli import cli

import llm_kinetaios.store as store_module
from test_background import llm_env  # noqa: F401 - a fixture

HEADING = "## About the user"


def test_read_only_database_still_injects_what_recall_read(runner, store, fake, monkeypatch):
    for fact in ("User likes green tea", "User drinks tea daily", "User likes tea cakes"):
        store.add(fact)
    real = store_module.connect

    def read_only(path=None):
        db = real(path)
        db.execute("pragma query_only = on")
        return db

    monkeypatch.setattr(store_module, "connect", read_only)
    result = runner.invoke(cli, ["prompt", "-m", "memory-fake", "--no-log", "Which tea should I buy?"])
    assert result.exit_code == 0
    assert result.stdout.strip() == "echo: Which tea should I buy?"
    role, block = fake.calls[0][-2]
    assert role == "user" and block.startswith(HEADING) and "User likes green tea" in block
    # One line, naming the problem; no traceback.
    [line] = result.stderr.splitlines()
    assert "read-only" in line and "Traceback" not in result.output


def test_memories_add_creates_a_logs_db_llm_can_use(runner, user_path):
    result = runner.invoke(cli, ["memories", "add", "User likes tea"])
    assert result.exit_code == 0, result.output
    db = sqlite_utils.Database(user_path / "logs.db")
    assert {"_llm_migrations", "responses", "conversations", "memories"} <= set(db.table_names())


def test_eight_parallel_first_prompts_after_memories_add_all_answer(llm_env, user_path):  # noqa: F811
    env = {**llm_env, "LLM_KINETAIOS_WORKER": "off"}
    add = subprocess.run([sys.executable, "-m", "llm", "memories", "add", "User likes tea"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert add.returncode == 0, add.stderr

    # --no-log: llm's own logging of 8 simultaneous answers can hit "database
    # is locked" with or without this plugin; the race here is the migrations.
    def first_prompt(number):
        return subprocess.run([sys.executable, "-m", "llm", "-m", "memory-fake", "--no-log", f"Question {number}"],
                              env=env, capture_output=True, text=True, timeout=60)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(first_prompt, range(8)))
    assert [r.returncode for r in results] == [0] * 8, "\n".join(r.stderr for r in results if r.returncode)
    assert sorted(r.stdout.strip() for r in results) == [f"echo: Question {n}" for n in range(8)]


def test_import_of_a_lone_surrogate_is_a_one_line_error(runner, store, tmp_path):
    path = tmp_path / "surrogate.json"
    path.write_text('["User likes tea", "User says \\ud800 often"]')
    result = runner.invoke(cli, ["memories", "import", str(path)])
    assert result.exit_code == 1
    assert result.output.strip() == (
        "Error: memories[1].content holds a lone surrogate ('\\ud800' at character 10), "
        "which is not valid Unicode"
    )
    assert store.count() == 0  # a bad file imports nothing


def test_import_of_a_lone_surrogate_in_an_id_is_a_one_line_error(runner, store, tmp_path):
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps({"version": 1, "memories": [{"content": "User likes tea", "id": "a\udfff"}]}))
    result = runner.invoke(cli, ["memories", "import", str(path)])
    assert result.exit_code == 1 and "memories[0].id holds a lone surrogate" in result.output
    assert len(result.output.strip().splitlines()) == 1
