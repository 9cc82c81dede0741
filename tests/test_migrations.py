import sqlite_utils
from llm.cli import cli
from llm.migrations import migrate as llm_migrate

from llm_kinetaios.migrations import MIGRATIONS, MIGRATIONS_TABLE, migrate
from llm_kinetaios.store import MemoryStore


def test_migrations_are_recorded_in_their_own_table(user_path):
    db = sqlite_utils.Database(user_path / "logs.db")
    migrate(db)
    assert [r["name"] for r in db[MIGRATIONS_TABLE].rows] == [fn.__name__ for fn in MIGRATIONS]
    assert not db["_llm_migrations"].exists()


def test_running_migrations_twice_is_a_no_op(user_path):
    db = sqlite_utils.Database(user_path / "logs.db")
    migrate(db)
    schema = db.schema
    db["memories"].insert({"id": "m1", "seq": 1, "content": "x", "content_key": "x",
                           "created_at": 1, "source": "manual"})
    migrate(db)
    assert db.schema == schema
    assert db["memories"].count == 1


def test_a_migration_interrupted_before_its_record_reapplies_cleanly(user_path):
    db = sqlite_utils.Database(user_path / "logs.db")
    migrate(db)
    db["memories"].insert({"id": "m1", "seq": 1, "content": "kept", "content_key": "kept",
                           "created_at": 1, "source": "manual"})
    db.execute(f"delete from {MIGRATIONS_TABLE}")  # as if killed before recording
    migrate(db)
    assert db["memories"].count == 1
    assert [r["content"] for r in db.query("select content from memories_fts where memories_fts match 'kept'")] == ["kept"]


def test_llm_migrations_and_logs_work_on_a_database_with_our_tables(user_path, runner):
    store = MemoryStore.open()
    store.add("User likes tea")
    store.close()
    db = sqlite_utils.Database(user_path / "logs.db")
    llm_migrate(db)
    llm_migrate(db)
    result = runner.invoke(cli, ["prompt", "-m", "fake", "hello"], catch_exceptions=False)
    assert result.exit_code == 0
    logs = runner.invoke(cli, ["logs", "-n", "1"], catch_exceptions=False)
    assert logs.exit_code == 0 and "hello" in logs.output
    assert MemoryStore.open().count() == 1


def test_store_on_an_existing_llm_database(user_path, runner):
    runner.invoke(cli, ["prompt", "-m", "fake", "hello"], catch_exceptions=False)
    store = MemoryStore.open()
    assert store.add("User likes tea") is not None
    assert store.db.journal_mode == "wal"
