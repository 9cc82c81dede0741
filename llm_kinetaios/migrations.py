"""The plugin's own schema migrations, in llm's style: a list of small functions.

Applied migrations are recorded in ``_kinetaios_migrations``, never in llm's
``_llm_migrations``, so llm's migrator and ours cannot confuse each other's
history, and every table we add is prefixed or named so as not to clash with
one llm may add later.

Why not sqlite-utils' own ``Migrations`` class (sqlite-utils >= 4, which llm
0.36 requires): it would break two guarantees the tests check.

* Existing databases. ``Migrations`` keeps its records in one table keyed by
  (``migration_set``, ``name``) with an ``id`` key. Every logs.db this plugin
  has touched records ours in ``_kinetaios_migrations`` (``name`` key, no
  ``migration_set``): pointing ``Migrations.migrations_table`` at it fails
  with "no such column: migration_set", and using ``_sqlite_migrations``
  instead would re-run every migration on an upgraded database unless the
  old records were copied over first
  (tests/test_reliability.py::test_upgrading_a_database_from_an_earlier_schema_keeps_every_memory,
  tests/test_migrations.py).
* Concurrent first opens. ``Migrations.apply`` lists the pending migrations,
  then records each with a plain insert under a unique index, so a second
  process that listed them before the first committed fails with an
  IntegrityError; ``migrate`` below records with ``replace=True`` and the
  second process carries on (every migration is safe to re-run).

It would bring one thing ours lacks, a transaction around each migration
and its record; re-runnable migrations give the same end state after a kill
(tests/test_migrations.py::test_a_migration_interrupted_before_its_record_reapplies_cleanly).
"""

import datetime
from typing import Callable

MIGRATIONS_TABLE = "_kinetaios_migrations"

MIGRATIONS: list[Callable] = []


def add_missing_columns(table, columns: dict) -> None:
    """Add each column the table lacks: name -> type, or (type, not-null
    default). Columns already there are left alone, so a migration re-run
    after a kill mid-way adds none twice."""
    existing = table.columns_dict
    for name, spec in columns.items():
        if name not in existing:
            kind, default = spec if isinstance(spec, tuple) else (spec, None)
            table.add_column(name, kind, not_null_default=default)


def migration(fn: Callable) -> Callable:
    MIGRATIONS.append(fn)
    return fn


def pending_migrations(db) -> list[Callable]:
    if not db[MIGRATIONS_TABLE].exists():
        return list(MIGRATIONS)
    applied = {row["name"] for row in db[MIGRATIONS_TABLE].rows}
    return [fn for fn in MIGRATIONS if fn.__name__ not in applied]


def migrate(db) -> None:
    """Apply every pending migration; running this twice is a no-op.

    SQLite DDL issued through sqlite-utils commits as it goes, so a migration
    cannot be made atomic with its record. Instead every migration is written
    to be safe to re-run (``if_not_exists``, ``replace``): a process killed
    between a migration and its record simply applies it again next time.
    """
    for fn in pending_migrations(db):
        db[MIGRATIONS_TABLE].create(
            {"name": str, "applied_at": str}, pk="name", if_not_exists=True
        )
        fn(db)
        db[MIGRATIONS_TABLE].insert(
            {
                "name": fn.__name__,
                "applied_at": str(datetime.datetime.now(datetime.timezone.utc)),
            },
            replace=True,  # another process may have recorded it meanwhile
        )


@migration
def m001_memories(db):
    db["memories"].create(
        {
            "id": str,
            # A stable integer key for the full-text index. Not the rowid:
            # VACUUM may renumber the rowids of a table with a text primary
            # key, which would silently detach an external-content index.
            "seq": int,
            "content": str,
            # Normalised content, for duplicate detection.
            "content_key": str,
            # NULL means a global fact, not tied to one conversation.
            "conversation_id": str,
            # "extracted", "manual" or "import".
            "source": str,
            "source_response_id": str,
            # Epoch milliseconds, like the export format's exportedAt.
            "created_at": int,
            "updated_at": int,
            "last_used_at": int,
            "use_count": int,
            # float32 little-endian vector, L2-normalised, and its model id.
            "embedding": bytes,
            "embedding_model": str,
        },
        pk="id",
        not_null={"seq", "content", "content_key", "created_at", "use_count", "source"},
        defaults={"use_count": 0, "source": "manual"},
        if_not_exists=True,
    )
    db["memories"].create_index(["seq"], unique=True, if_not_exists=True)
    db["memories"].create_index(["content_key"], unique=True, if_not_exists=True)
    db["memories"].create_index(["conversation_id"], if_not_exists=True)
    db["memories"].create_index(["created_at"], if_not_exists=True)
    db["memories"].create_index(["embedding_model"], if_not_exists=True)
    # A regular FTS5 table (its own copy of the short texts) keyed by seq,
    # kept in sync by triggers, so every write path updates it.
    db.executescript(
        """
        CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
            content, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER IF NOT EXISTS memories_fts_insert AFTER INSERT ON memories
        BEGIN
            INSERT INTO memories_fts (rowid, content) VALUES (new.seq, new.content);
        END;
        CREATE TRIGGER IF NOT EXISTS memories_fts_delete AFTER DELETE ON memories
        BEGIN
            DELETE FROM memories_fts WHERE rowid = old.seq;
        END;
        CREATE TRIGGER IF NOT EXISTS memories_fts_update AFTER UPDATE OF content ON memories
        BEGIN
            UPDATE memories_fts SET content = new.content WHERE rowid = old.seq;
        END;
        """
    )


@migration
def m002_memory_jobs(db):
    # A durable queue for background work (extraction): a job survives a
    # killed worker and is picked up again by the next one.
    db["memory_jobs"].create(
        {
            "id": int,
            "kind": str,
            "payload": str,
            # "pending", "running", "done" or "failed".
            "status": str,
            "attempts": int,
            "worker_pid": int,
            "created_at": int,
            "started_at": int,
            "finished_at": int,
            "result": str,
            "error": str,
        },
        pk="id",
        not_null={"kind", "payload", "status", "attempts", "created_at"},
        defaults={"status": "pending", "attempts": 0},
        if_not_exists=True,
    )
    db["memory_jobs"].create_index(["status", "id"], if_not_exists=True)


@migration
def m003_supersession(db):
    # A fact replaced by a newer one (moved city, changed job) is kept as
    # history: superseded_by names its successor, valid_until says when.
    add_missing_columns(db["memories"], {"superseded_by": str, "valid_until": int})
    # Only current facts must be unique: "lives in Berlin" may come back
    # after a spell in Lisbon.
    db.execute("drop index if exists idx_memories_content_key")
    db.execute(
        "create unique index if not exists idx_memories_current_content_key "
        "on memories (content_key) where superseded_by is null"
    )
    db.execute(
        "create index if not exists idx_memories_superseded_by on memories (superseded_by)"
    )


@migration
def m004_vector_state(db):
    # A counter bumped by every change that can invalidate a cached vector
    # matrix (see vector_cache.py); plain inserts are seen by max(seq).
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS _kinetaios_state (key TEXT PRIMARY KEY, value INTEGER);
        INSERT OR IGNORE INTO _kinetaios_state (key, value) VALUES ('vector_mutations', 0);
        CREATE TRIGGER IF NOT EXISTS memories_vectors_delete AFTER DELETE ON memories
        BEGIN
            UPDATE _kinetaios_state SET value = value + 1 WHERE key = 'vector_mutations';
        END;
        CREATE TRIGGER IF NOT EXISTS memories_vectors_update
        AFTER UPDATE OF embedding, embedding_model, superseded_by, seq ON memories
        BEGIN
            UPDATE _kinetaios_state SET value = value + 1 WHERE key = 'vector_mutations';
        END;
        """
    )


@migration
def m005_turn_embeddings(db):
    # Vectors of logged conversation turns (llm's turn_search rows), for
    # semantic search over history by the recall_memory tool.
    db["kinetaios_turn_embeddings"].create(
        {
            "turn_id": str,
            "embedding": bytes,
            "embedding_model": str,
            "embedded_at": int,
        },
        pk="turn_id",
        if_not_exists=True,
    )
    db["kinetaios_turn_embeddings"].create_index(["embedding_model"], if_not_exists=True)


@migration
def m006_injections(db):
    # Which memories each turn's block showed, so later turns re-send the
    # same block in the same place (injection.py). Ids and a hash only: the
    # text is rebuilt from the memories, so a deleted memory leaves no copy.
    db["kinetaios_injections"].create(
        {
            "conversation_id": str,  # "" when the prompt has no conversation
            "fingerprint": str,  # of the user messages up to this turn
            "memory_ids": str,  # JSON list, in block order
            "block_sha": str,  # sha256 of the block as sent
            "reset": int,  # 1: earlier turns' blocks were no longer sent
            "created_at": int,
        },
        pk=("conversation_id", "fingerprint"),
        not_null={"conversation_id", "fingerprint", "memory_ids", "block_sha", "reset", "created_at"},
        if_not_exists=True,
    )


@migration
def m007_injection_retractions(db):
    # Outdated memories a block names as "No longer true", so the block can be
    # rebuilt byte for byte on later turns (injection.py).
    add_missing_columns(db["kinetaios_injections"], {"retracted_ids": (str, "[]")})


@migration
def m008_project_scope(db):
    # The project a memory belongs to (projects.py: a normalised git remote
    # URL, else the checkout's path); NULL means a global memory.
    add_missing_columns(db["memories"], {"project": str})
    # Recall reads the ids of other projects' current memories every turn:
    # a covering index of the project memories only, so it never reads the
    # rows (and their vectors). Queries name it (INDEXED BY): without
    # statistics SQLite would pick the superseded_by index and scan rows.
    db.execute(
        "create index if not exists idx_memories_project on memories (project, superseded_by, id) "
        "where project is not null"
    )


@migration
def m009_pins(db):
    # When the memory was pinned (injected on every turn); NULL: not pinned.
    add_missing_columns(db["memories"], {"pinned_at": int})
    # Read every turn; a partial index holds only the few pinned rows.
    db.execute(
        "create index if not exists idx_memories_pinned on memories (pinned_at) "
        "where pinned_at is not null"
    )


@migration
def m010_memory_uses(db):
    # Which response each recorded block served, and how each memory in it
    # was chosen (pinned, cosine, hybrid, keyword, recent) with its score.
    add_missing_columns(db["kinetaios_injections"], {"response_id": str, "methods": (str, "[]")})
    # One row per memory shown to a response, in any block of its request
    # (``llm memories used``, ``show``). Ids only: no memory text is copied.
    db["kinetaios_memory_uses"].create(
        {
            "response_id": str,
            "memory_id": str,
            "conversation_id": str,
            "block": int,  # 1-based, in the order of the request
            "position": int,  # 1-based, within the block
            "method": str,
            "score": float,
            "sent_by": str,  # the response whose turn first sent the block
            "created_at": int,
        },
        pk=("response_id", "block", "position"),
        not_null={"response_id", "memory_id", "block", "position", "method", "created_at"},
        if_not_exists=True,
    )
    db["kinetaios_memory_uses"].create_index(["memory_id", "created_at"], if_not_exists=True)


@migration
def m011_quarantine(db):
    # A memory the safety detector suspects (instructions to the model, role
    # markers, encoded text) is stored but quarantined: ``flag`` holds the
    # reason, and it is never injected or offered by recall_memory until the
    # user approves it (flag cleared, ``approved_at`` set). safety.py.
    # checked_at: when the write-time check ran on the current text.
    # Memories stored before this migration have none, so the block still
    # runs the detector on them; checked ones skip it (about 1 ms a memory).
    add_missing_columns(db["memories"], {"flag": str, "approved_at": int, "checked_at": int})
    db.execute("create index if not exists idx_memories_flag on memories (flag) where flag is not null")
    # Approving a memory makes its vector recallable: the vector cache must see it.
    db.executescript(
        """
        CREATE TRIGGER IF NOT EXISTS memories_vectors_flag AFTER UPDATE OF flag ON memories
        BEGIN
            UPDATE _kinetaios_state SET value = value + 1 WHERE key = 'vector_mutations';
        END;
        """
    )


@migration
def m012_vector_file(db):
    # Each vector is stored once, in a flat file beside logs.db that recall
    # maps (vector_cache.py); the row records where, and a CRC of the bytes
    # so damage to the file is noticed.
    add_missing_columns(db["memories"], {"vector_row": int, "vector_crc": int})
    from .store import MemoryStore
    from .vector_cache import move_column_vectors

    move_column_vectors(MemoryStore(db))


@migration
def m013_job_next_attempt(db):
    # When a job may next be attempted: after a failure, its retry time; while
    # it runs, its attempt's deadline, so no second call is sent while the
    # first may still be running on the model's server (jobs.py).
    add_missing_columns(db["memory_jobs"], {"next_attempt_at": int})
