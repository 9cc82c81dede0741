"""Concurrency, faults and hostile input: nothing lost, nothing half-written."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import sqlite_utils
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from llm.cli import cli

from llm_kinetaios import migrations, store as store_module
from llm_kinetaios.jobs import JobQueue
from llm_kinetaios.store import MemoryStore

ROOT = Path(__file__).parent.parent


def test_concurrent_writers_lose_nothing():
    # The benchmark itself, in its bounded mode, in a process of its own.
    output = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "stress.py"), "--processes", "4",
         "--memories", "25", "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert output.returncode == 0, output.stdout + output.stderr
    result = json.loads(output.stdout)
    assert result["memories_found"] == result["memories_written"] == 100
    assert result["distinct"] == result["fts_rows"] == result["fts_matches"] == 100
    assert result["vectors_ok"] == 100
    assert result["memory_lock_errors"] == 0
    assert result["integrity"] == "ok"


# Writes rows inside one open transaction, says how many it has written (its
# own connection sees them), then waits to be killed before committing: the
# kill lands on a transaction that certainly wrote, not one never started.
KILLED_WRITER = """
import sys, time
from llm_kinetaios.store import MemoryStore
store = MemoryStore.open(sys.argv[1])
with store.transaction():
    store.add_many([{"content": f"fact number {i}"} for i in range(20000)])
    print(store.db.execute("select count(*) from memories").fetchone()[0], flush=True)
    time.sleep(600)
"""


def test_a_writer_killed_mid_transaction_leaves_nothing_half_written(tmp_path):
    path = tmp_path / "logs.db"
    MemoryStore.open(path).close()
    process = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "20000"  # written, not committed
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL
    store = MemoryStore.open(path)
    assert store.db.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert store.count() == 0
    assert store.db.execute("select count(*) from memories_fts").fetchone()[0] == 0
    assert store.add("User survives crashes") is not None
    assert [m.content for m, _ in store.search("survives", 5)] == ["User survives crashes"]


def test_a_hanging_extractor_times_out_and_the_answer_is_intact(runner, store, fake, monkeypatch, tmp_path):
    monkeypatch.setattr("llm_kinetaios.worker.JOB_TIMEOUT_SECONDS", 1)
    monkeypatch.setenv("KINETAIOS_FAKE_GATE", str(tmp_path / "never-opened"))
    result = runner.invoke(cli, ["prompt", "-m", "memory-fake", "I love chess."],
                           catch_exceptions=False)
    assert result.exit_code == 0 and result.output.strip() == "echo: I love chess."
    [job] = JobQueue(store).recent(kind="extract")
    assert "timed out" in job["error"] and store.count() == 0


def _patched_connect(monkeypatch, pragma):
    real = store_module.connect

    def connect(path=None):
        db = real(path)
        for statement in pragma(db):
            db.execute(statement)
        return db

    monkeypatch.setattr(store_module, "connect", connect)


def test_read_only_database_is_a_clear_error(runner, store, fake, monkeypatch):
    store.add("User likes tea")
    _patched_connect(monkeypatch, lambda db: ["pragma query_only = on"])
    result = runner.invoke(cli, ["memories", "add", "User likes coffee"])
    assert result.exit_code == 1
    assert "read-only" in result.output and "Traceback" not in result.output
    answer = runner.invoke(cli, ["prompt", "-m", "memory-fake", "--no-log", "I love tea."])
    assert answer.exit_code == 0 and answer.stdout.strip() == "echo: I love tea."
    assert answer.stderr.count("read-only") == 1 and "Traceback" not in answer.output


def test_full_disk_is_a_clear_error_and_the_import_writes_nothing(runner, store, monkeypatch, tmp_path):
    store.add("User likes tea")
    pages = store.db.execute("pragma page_count").fetchone()[0]
    _patched_connect(monkeypatch, lambda db: [f"pragma max_page_count = {pages + 2}"])
    path = tmp_path / "many.json"
    path.write_text(json.dumps([f"User fact {i} " + "x" * 200 for i in range(2000)]))
    result = runner.invoke(cli, ["memories", "import", str(path)])
    assert result.exit_code == 1
    assert "full" in result.output and "Traceback" not in result.output
    assert [m.content for m in MemoryStore(sqlite_utils.Database(store.db.conn)).list()] == ["User likes tea"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.sampled_from(["version", "memories", "content", "id",
                                       "created_at", "conversation_id", "x"]), children, max_size=4),
    max_leaves=20,
)


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=json_values)
def test_fuzzed_imports_are_all_or_nothing(runner, user_path, document):
    _fuzz_one(runner, json.dumps(document).encode())


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=200))
def test_fuzzed_bytes_never_crash_the_import(runner, user_path, raw):
    _fuzz_one(runner, raw)


def _fuzz_one(runner, raw: bytes):
    store = MemoryStore.open()
    store.forget(everything=True)
    store.add("Existing fact")
    before = store.count()
    store.close()
    result = runner.invoke(cli, ["memories", "import", "-"], input=raw)
    store = MemoryStore.open()
    after = store.count()
    store.close()
    if result.exit_code == 0:
        report = json.loads(result.stdout)
        assert after == before + report["imported"]
    else:
        assert result.exit_code == 1, result.output
        assert result.output.startswith("Error: ")
        assert after == before


def test_upgrading_a_database_from_an_earlier_schema_keeps_every_memory(user_path):
    db = sqlite_utils.Database(user_path / "logs.db")
    db[migrations.MIGRATIONS_TABLE].create({"name": str, "applied_at": str}, pk="name")
    for fn in (migrations.m001_memories, migrations.m002_memory_jobs):  # version 0.1 schema
        fn(db)
        db[migrations.MIGRATIONS_TABLE].insert({"name": fn.__name__, "applied_at": "then"})
    for i in range(50):
        db.execute(
            "insert into memories (id, seq, content, content_key, created_at, source, use_count) "
            "values (?, ?, ?, ?, ?, 'manual', 0)", [f"id{i}", i + 1, f"Old fact {i}", f"old fact {i}", 1000 + i])
    db.conn.commit()
    db.close()
    store = MemoryStore.open()
    assert store.count() == 50
    assert {m.content for m in store.list()} == {f"Old fact {i}" for i in range(50)}
    assert store.add("Old fact 3") is None  # duplicates still detected
    assert len(store.search("fact", 100)) == 50
    applied = [r["name"] for r in store.db[migrations.MIGRATIONS_TABLE].rows]
    assert applied == [fn.__name__ for fn in migrations.MIGRATIONS]
