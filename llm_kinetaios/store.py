"""The memory store: the ``memories`` table in llm's logs.db (its job queue: jobs.py).

Every method does one thing, in one short transaction, so that background
extraction, llm's own logging and ``llm memories`` commands can share the
database without holding locks for long.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import llm
import sqlite_utils

from .migrations import migrate, pending_migrations

# How long a writer waits for another one before giving up. Extraction
# writes are a few milliseconds, so this is generous.
BUSY_TIMEOUT_SECONDS = 10.0

SOURCES = ("extracted", "manual", "import")
# Values per ``in (...)`` list: well under SQLite's limit of variables per statement.
IN_CHUNK = 500


def in_chunks(values: Iterable) -> Iterator[tuple[list, str]]:
    """(chunk, its placeholders "?, ?, ...") for an ``in (...)`` list over
    ``values``, IN_CHUNK at a time: SQLite limits the variables of a statement."""
    values = list(values)
    for start in range(0, len(values), IN_CHUNK):
        chunk = values[start : start + IN_CHUNK]
        yield chunk, ", ".join("?" * len(chunk))


class MemoryNotFound(KeyError):
    "Raised when an id names no memory."


class StoreError(Exception):
    "A database problem put in words a user can act on."


def now_ms() -> int:
    return int(time.time() * 1000)


def logs_db_path() -> Path:
    "llm's own log database, honouring LLM_USER_PATH."
    return llm.user_dir() / "logs.db"


def new_id() -> str:
    # Same ids as llm's responses: sortable by creation time.
    from llm.utils import monotonic_ulid

    return str(monotonic_ulid()).lower()


_WHITESPACE = re.compile(r"\s+")


def content_key(text: str, project: str | None = None) -> str:
    """The normalised form two memories share when they say the same thing.

    Unicode-normalised, case-folded, whitespace collapsed, and trailing
    punctuation dropped: "Likes  tea." and "likes tea" are one memory.
    A project memory's key starts with its project, so two projects may each
    hold "The project uses tabs".
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _WHITESPACE.sub(" ", text).strip()
    text = text.strip(" .!?;:,\"'`")
    return f"{project}\x1f{text}" if project else text


@dataclass
class Memory:
    "One durable fact about the user."

    id: str
    content: str
    conversation_id: str | None
    source: str
    source_response_id: str | None
    created_at: int
    updated_at: int | None
    last_used_at: int | None
    use_count: int
    embedding_model: str | None
    superseded_by: str | None = None
    valid_until: int | None = None
    project: str | None = None  # None: a global memory (projects.py)
    pinned_at: int | None = None  # None: not pinned
    # Quarantine (safety.py): why the memory awaits the user's approval, and
    # when the user approved it.
    flag: str | None = None
    approved_at: int | None = None
    checked_at: int | None = None  # when the write-time check cleared this text

    COLUMNS = (
        "id, content, conversation_id, source, source_response_id, created_at, "
        "updated_at, last_used_at, use_count, embedding_model, superseded_by, valid_until, "
        "project, pinned_at, flag, approved_at, checked_at"
    )

    @property
    def current(self) -> bool:
        return self.superseded_by is None

    @property
    def pinned(self) -> bool:
        return self.pinned_at is not None

    @property
    def approved(self) -> bool:
        return self.approved_at is not None

    @property
    def cleared(self) -> bool:
        "The write-time check passed this text, or the user approved it."
        return self.flag is None and (self.checked_at is not None or self.approved_at is not None)

    @classmethod
    def from_row(cls, row: dict) -> "Memory":
        return cls(**{name: row.get(name) for name in cls.__dataclass_fields__})

    def to_dict(self) -> dict:
        return asdict(self)


def connect(path: str | Path | None = None) -> sqlite_utils.Database:
    """Open logs.db for the plugin: WAL journal and a busy timeout.

    WAL lets llm log a response while a background worker writes memories;
    the timeout turns a brief lock into a short wait instead of an error.
    """
    path = Path(path) if path else logs_db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS)
    db = sqlite_utils.Database(conn)
    try:
        if db.journal_mode != "wal":
            db.enable_wal()
    except sqlite3.OperationalError:
        pass  # another connection is busy; WAL is an optimisation, not a need
    return db


class MemoryStore:
    "Reads and writes memories; wraps one sqlite-utils Database."

    def __init__(self, db: sqlite_utils.Database):
        self.db = db
        self._vector_changes = None

    @classmethod
    def open(cls, path: str | Path | None = None) -> "MemoryStore":
        """Open (creating if needed) the store in logs.db and apply migrations:
        llm's own first, so a logs.db the plugin creates is one llm can use
        (parallel first prompts would otherwise race in llm's migrations)."""
        from llm.migrations import migrate as migrate_llm

        try:
            db = connect(path)
            migrate_llm(db)
            if pending_migrations(db):
                migrate(db)
        except sqlite3.OperationalError as ex:
            raise StoreError(describe_sqlite_error(ex, path or logs_db_path()))
        return cls(db)

    def close(self) -> None:
        self.db.close()

    @property
    def path(self) -> str | None:
        "The database file, or None for an in-memory database."
        for _, name, file in self.db.execute("pragma database_list"):
            if name == "main":
                return file or None
        return None

    def current_vectors(self, model_id: str, *, conversation_id: str | None = None):
        """(ids, matrix) of current memories embedded with ``model_id``.

        Unscoped, the whole vector file mapped (vector_cache.read_vectors):
        dead rows are zero rows whose id is None. Scoped to a conversation,
        a copy of that conversation's rows and the global ones.
        """
        from .embeddings import matrix_from_blob
        from .vector_cache import gather, read_vectors

        if not self.path:  # an in-memory database keeps vectors in the column
            ids, blob = self._column_vectors(model_id, conversation_id)
            return ids, matrix_from_blob(blob, len(ids))
        if conversation_id is None:
            return read_vectors(self, model_id)
        where, params = _scope_clause(conversation_id, include_global=True, recallable=True)
        rows = self.db.execute(
            f"select id, vector_row from memories {where} and embedding_model = ? "
            "and vector_row is not null order by vector_row", params + [model_id]).fetchall()
        return gather(self, model_id, rows)

    @contextmanager
    def _vector_transaction(self):
        """A write transaction that may change vectors: the vector folder's
        lock, then BEGIN IMMEDIATE; the files are brought in line after the
        commit, still under the lock (vector_cache.VectorChanges). Yields
        the VectorChanges, or None for an in-memory database."""
        if self._vector_changes is not None or not self.path:
            with self.transaction():
                yield self._vector_changes
            return
        from .vector_cache import VectorChanges, folder_lock

        with folder_lock(self.path, exclusive=True):
            changes = self._vector_changes = VectorChanges(self)
            try:
                with self.transaction():
                    yield changes
            finally:
                self._vector_changes = None
            changes.after_commit()

    @contextmanager
    def transaction(self):
        """A write transaction that takes the write lock up front (BEGIN
        IMMEDIATE), so reads inside it (the next seq, duplicate checks) cannot
        race another writer, and the busy timeout applies instead of an
        immediate "database is locked" on upgrade from read to write."""
        conn = self.db.conn
        if conn.in_transaction:  # nested: the outer transaction owns it
            yield
            return
        conn.execute("begin immediate")
        try:
            yield
        except BaseException:
            conn.execute("rollback")
            raise
        conn.execute("commit")

    # Reading --------------------------------------------------------------

    def get(self, memory_id: str) -> Memory:
        "The memory with this id, or MemoryNotFound."
        rows = list(
            self.db.query(
                f"select {Memory.COLUMNS} from memories where id = ?", [memory_id]
            )
        )
        if not rows:
            raise MemoryNotFound(memory_id)
        return Memory.from_row(rows[0])

    def get_many(self, memory_ids: Sequence[str]) -> list[Memory]:
        "The memories with these ids (unknown ids are left out), in no order."
        return [
            Memory.from_row(row)
            for row in self.query_in(
                f"select {Memory.COLUMNS} from memories where id in ({{marks}})", memory_ids)
        ]

    def query_in(self, sql: str, values: Iterable, params: Sequence = ()) -> Iterator[dict]:
        """The rows of ``sql``, whose ``{marks}`` stands for the placeholders
        of an ``in (...)`` list, for all ``values`` (after ``params``)."""
        for chunk, marks in in_chunks(values):
            yield from self.db.query(sql.format(marks=marks), [*params, *chunk])

    def count(self, conversation_id: str | None = None) -> int:
        "How many current memories there are, in all or tied to one conversation."
        where, params = _scope_clause(conversation_id, include_global=False)
        return self.db.execute(f"select count(*) from memories {where}", params).fetchone()[0]

    def list(
        self,
        *,
        conversation_id: str | None = None,
        limit: int | None = None,
        offset: int = 0,
        history: bool = False,
        project: str | None = None,
        global_only: bool = False,
        pinned_only: bool = False,
        unused_before: int | None = None,
        flagged: bool = False,
    ) -> list[Memory]:
        """Current memories newest first, optionally only one conversation's;
        ``history=True`` includes superseded ones. ``project``: only that
        project's; ``global_only``: only global ones; ``pinned_only``: only
        pinned ones; ``unused_before``: only unpinned ones not used (or, never
        used, not created) since that time; ``flagged``: only quarantined ones."""
        where, params = _scope_clause(
            conversation_id, include_global=False, current_only=not history
        )
        extra, extra_params = _filter_clause(project, global_only, pinned_only, unused_before)
        if flagged:
            extra = (extra + " and " if extra else "") + "flag is not null"
        if extra:
            where = (where + " and " if where else "where ") + extra
            params += extra_params
        sql = f"select {Memory.COLUMNS} from memories {where} order by seq desc"
        if limit is not None:
            sql += " limit ? offset ?"
            params += [limit, offset]
        return [Memory.from_row(row) for row in self.db.query(sql, params)]

    def recent(self, limit: int, *, conversation_id: str | None = None) -> list[Memory]:
        """The newest memories, for recall's last fallback.

        With a conversation id: that conversation's memories and the global ones.
        Quarantined memories are left out.
        """
        where, params = _scope_clause(conversation_id, include_global=True, recallable=True)
        sql = f"select {Memory.COLUMNS} from memories {where} order by seq desc limit ?"
        return [Memory.from_row(row) for row in self.db.query(sql, params + [limit])]

    def search(
        self, text: str, limit: int, *, conversation_id: str | None = None,
        include_flagged: bool = False,
    ) -> list[tuple[Memory, float]]:
        """FTS5 keyword search, best first, as (memory, bm25 score) pairs.

        Any of the words of ``text`` may match (a query, not a phrase), and
        bm25 ranks memories that share more, and rarer, words higher.
        Quarantined memories only with ``include_flagged`` (listing, not recall).
        """
        match = fts_query(text)
        if not match:
            return []
        where, params = _scope_clause(
            conversation_id, include_global=True, table="memories",
            recallable=not include_flagged,
        )
        where = ("and " + where[len("where ") :]) if where else ""
        sql = f"""
            select {', '.join('memories.' + c.strip() for c in Memory.COLUMNS.split(','))},
                   bm25(memories_fts) as score
            from memories_fts join memories on memories.seq = memories_fts.rowid
            where memories_fts match ? {where}
            order by score limit ?
        """
        rows = self.db.query(sql, [match] + params + [limit])
        return [(Memory.from_row(row), -row["score"]) for row in rows]

    def chain(self, memory_id: str) -> list[Memory]:
        """The history of a fact, oldest first: what it superseded, it, and
        what superseded it."""
        memory = self.get(memory_id)
        before: list[Memory] = []
        current = memory
        while True:
            rows = list(self.db.query(
                f"select {Memory.COLUMNS} from memories where superseded_by = ?", [current.id]))
            if not rows:
                break
            current = Memory.from_row(rows[0])
            before.insert(0, current)
        after: list[Memory] = []
        current = memory
        while current.superseded_by and len(after) < 100:
            current = self.get(current.superseded_by)
            after.append(current)
        return before + [memory] + after

    def supersede(self, old_id: str, new_id: str, at: int | None = None) -> None:
        """Mark ``old_id`` as replaced by ``new_id``: kept as history, no longer
        recalled (so its vector is dropped)."""
        with self._vector_transaction() as changes:
            if changes is not None:
                changes.drop([old_id])
            self.db.execute(
                "update memories set superseded_by = ?, valid_until = ? where id = ?",
                [new_id, at or now_ms(), old_id],
            )

    def vectors(
        self, model_id: str, *, conversation_id: str | None = None
    ) -> tuple[list[str], bytes]:
        """Ids and the concatenated float32 vectors of the current memories
        embedded with ``model_id``, live rows only, in file order."""
        if not self.path:
            return self._column_vectors(model_id, conversation_id)
        ids, matrix = self.current_vectors(model_id, conversation_id=conversation_id)
        if conversation_id is None and len(ids):
            live = ids.live_mask()
            return [i for i in ids if i is not None], matrix[live].tobytes()
        return list(ids), matrix.tobytes()

    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, bytes]]:
        "memory id -> (model id, float32 vector bytes), for the ones that have one."
        found: dict[str, tuple[str, bytes]] = {}
        by_model: dict[str, list] = {}
        for row in self.query_in(
            "select id, embedding_model, vector_row, embedding from memories "
            "where id in ({marks}) and embedding_model is not null", memory_ids):
            if row["embedding"] is not None:
                found[row["id"]] = (row["embedding_model"], row["embedding"])
            elif row["vector_row"] is not None:
                by_model.setdefault(row["embedding_model"], []).append((row["id"], row["vector_row"]))
        from .vector_cache import gather

        for model_id, pairs in by_model.items():
            ids, matrix = gather(self, model_id, pairs)
            found.update((i, (model_id, vector.tobytes())) for i, vector in zip(ids, matrix))
        return found

    def _column_vectors(self, model_id, conversation_id):
        "(ids, joined blobs) from the embedding column (in-memory databases)."
        where, params = _scope_clause(conversation_id, include_global=True, recallable=True)
        where = (where + " and" if where else "where") + " embedding_model = ?"
        ids: list[str] = []
        blobs: list[bytes] = []
        for memory_id, blob in self.db.execute(
            f"select id, embedding from memories {where} and embedding is not null",
            params + [model_id],
        ):
            ids.append(memory_id)
            blobs.append(blob)
        return ids, b"".join(blobs)

    def missing_embeddings(self, model_id: str) -> list[tuple[str, str]]:
        "(id, content) of memories with no vector from ``model_id``."
        return list(
            self.db.execute(
                "select id, content from memories where superseded_by is null and "
                "(embedding_model is not ? or (embedding is null and vector_row is null)) "
                "order by seq",
                [model_id],
            )
        )

    def existing_keys(self, keys: Iterable[str]) -> dict[str, str]:
        """Which of these normalised contents are stored already: content key
        -> id of the current memory holding it (there is at most one)."""
        return {
            row["content_key"]: row["id"]
            for row in self.query_in(
                "select content_key, id from memories where superseded_by is null "
                "and content_key in ({marks})", set(keys))
        }

    def stats(self) -> dict:
        "Counts for ``llm memories stats``."
        total = self.count()
        by_source = {
            row["source"]: row["n"]
            for row in self.db.query(
                "select source, count(*) as n from memories group by source"
            )
        }
        by_model = {
            row["embedding_model"]: row["n"]
            for row in self.db.query(
                "select embedding_model, count(*) as n from memories "
                "where embedding is not null or vector_row is not null group by embedding_model"
            )
        }
        conversations = list(
            self.db.query(
                "select conversation_id, count(*) as n from memories where superseded_by "
                "is null group by conversation_id order by n desc, conversation_id"
            )
        )
        jobs = {
            row["status"]: row["n"]
            for row in self.db.query(
                "select status, count(*) as n from memory_jobs group by status"
            )
        }
        superseded = self.db["memories"].count_where("superseded_by is not null")
        flagged = self.db["memories"].count_where("flag is not null and superseded_by is null")
        return {
            "memories": total,
            "superseded": superseded,
            "flagged": flagged,
            "global": sum(r["n"] for r in conversations if r["conversation_id"] is None),
            "conversations": len([r for r in conversations if r["conversation_id"]]),
            "by_conversation": {
                (r["conversation_id"] or "(global)"): r["n"] for r in conversations
            },
            "by_source": by_source,
            "embedded": by_model,
            "jobs": jobs,
        }

    # Writing --------------------------------------------------------------

    def add(
        self,
        content: str,
        *,
        conversation_id: str | None = None,
        source: str = "manual",
        source_response_id: str | None = None,
        created_at: int | None = None,
        embedding: bytes | None = None,
        embedding_model: str | None = None,
        project: str | None = None,
        pinned_at: int | None = None,
    ) -> Memory | None:
        "Store one memory; None if an equal one (same content_key) exists."
        added, _ = self.add_many(
            [
                dict(
                    content=content,
                    conversation_id=conversation_id,
                    source=source,
                    source_response_id=source_response_id,
                    created_at=created_at,
                    embedding=embedding,
                    embedding_model=embedding_model,
                    project=project,
                    pinned_at=pinned_at,
                )
            ]
        )
        return added[0] if added else None

    def add_many(self, items: Sequence[dict]) -> tuple[list[Memory], int]:
        """Store many memories in one transaction: all of them, or none.

        Each item is a dict of ``add``'s arguments. Returns the memories
        added and how many were skipped as duplicates (of stored memories or
        of each other).
        """
        added: list[Memory] = []
        skipped = 0
        vectors: dict[str, list[tuple[str, bytes]]] = {}  # model id -> (memory id, blob)
        with self._vector_transaction() as changes:
            next_seq = self._next_seq()
            for item in items:
                row = _new_row(item, next_seq)
                blob = row["embedding"]
                if changes is not None and not row["flag"]:
                    row["embedding"] = None  # the vector file gets it, below
                # Only a duplicate current fact is skipped; any other
                # conflict (an id or seq clash) is an error, never a silent loss.
                cursor = self.db.execute(
                    "insert into memories ({}) values ({}) on conflict (content_key) "
                    "where superseded_by is null do nothing".format(
                        ", ".join(row), ", ".join("?" for _ in row)
                    ),
                    list(row.values()),
                )
                if cursor.rowcount:
                    next_seq += 1
                    added.append(Memory.from_row(row))
                    if changes is not None and blob is not None and not row["flag"]:
                        vectors.setdefault(row["embedding_model"], []).append((row["id"], blob))
                else:
                    skipped += 1
            for model_id, pairs in vectors.items():
                changes.append(model_id, pairs)
        return added, skipped

    def update(
        self,
        memory_id: str,
        content: str,
        *,
        embedding: bytes | None = None,
        embedding_model: str | None = None,
        flag: str | None = None,
        checked: bool = False,
    ) -> Memory:
        """Replace a memory's content, keeping created_at and setting updated_at.

        The old vector no longer describes the text, so it is replaced by the
        one given or cleared (``llm memories reindex`` fills it in). New text
        needs a new approval: ``flag`` is the check's verdict on it.
        """
        content = content.strip()
        if not content:
            raise ValueError("A memory cannot be empty")
        with self._vector_transaction() as changes:
            key = content_key(content, self.get(memory_id).project)
            clash = list(
                self.db.execute(
                    "select id from memories where content_key = ? and id != ? "
                    "and superseded_by is null",
                    [key, memory_id],
                )
            )
            if clash:
                raise ValueError(f"Memory {clash[0][0]} already says that")
            if changes is not None:
                changes.drop([memory_id])
            self.db.execute(
                "update memories set content = ?, content_key = ?, updated_at = ?, "
                "embedding = ?, embedding_model = ?, flag = ?, approved_at = null, "
                "checked_at = ? where id = ?",
                [
                    content,
                    key,
                    now_ms(),
                    embedding,
                    embedding_model if embedding is not None else None,
                    flag,
                    now_ms() if checked else None,
                    memory_id,
                ],
            )
            if changes is not None and embedding is not None:
                changes.append(embedding_model, [(memory_id, embedding)])
        return self.get(memory_id)

    def approve(self, memory_id: str) -> Memory:
        """Lift a memory's quarantine: the user vouches for it, so it may be
        injected (and its vector, held back in the column, joins the file)."""
        with self._vector_transaction() as changes:
            self.get(memory_id)
            self.db.execute(
                "update memories set flag = null, approved_at = ? where id = ?",
                [now_ms(), memory_id],
            )
            held = self.db.execute(
                "select embedding_model, embedding from memories where id = ? "
                "and embedding is not null", [memory_id]).fetchone()
            if changes is not None and held:
                changes.append(held[0], [(memory_id, held[1])])
        return self.get(memory_id)

    def unchecked(self, limit: int) -> list[tuple[str, str]]:
        """(id, content) of up to ``limit`` current memories the write-time
        check has not seen: stored before it existed, or written straight to
        the table. Approved and quarantined ones are settled already."""
        return [tuple(row) for row in self.db.execute(
            "select id, content from memories where checked_at is null and approved_at is null "
            "and flag is null and superseded_by is null order by seq limit ?", [limit])]

    def record_checks(self, verdicts: Iterable[tuple[str, str | None]]) -> None:
        """Store the write-time check's verdict on existing memories: (id,
        None) clears one (``checked_at``), (id, reason) quarantines it (its
        vector leaves the file until the user approves it)."""
        verdicts = list(verdicts)
        at = now_ms()
        with self._vector_transaction() as changes:
            flagged = [memory_id for memory_id, reason in verdicts if reason]
            if changes is not None and flagged:
                changes.drop(flagged)
            self.db.conn.executemany(
                "update memories set checked_at = ?, flag = ? where id = ? and flag is null",
                [(None if reason else at, reason, memory_id) for memory_id, reason in verdicts])

    def set_embeddings(self, pairs: Iterable[tuple[str, bytes]], model_id: str) -> int:
        "Store vectors for existing memories, in one transaction."
        count = 0
        pairs = list(pairs)
        with self._vector_transaction() as changes:
            if changes is not None:
                changes.drop([memory_id for memory_id, _ in pairs])
            stored = []
            for memory_id, blob in pairs:
                hit = self.db.execute(
                    "update memories set embedding = ?, embedding_model = ? where id = ?",
                    [blob, model_id, memory_id],
                ).rowcount
                count += hit
                if hit:
                    stored.append((memory_id, blob))
            if changes is not None:
                changes.append(model_id, stored)
        return count

    def mark_used(self, memory_ids: Sequence[str], at: int | None = None) -> None:
        "Record that these memories were injected into a prompt."
        if not memory_ids:
            return
        at = at or now_ms()
        marks = ", ".join("?" for _ in memory_ids)
        with self.transaction():
            self.db.execute(
                f"update memories set last_used_at = ?, use_count = use_count + 1 "
                f"where id in ({marks})",
                [at, *memory_ids],
            )

    def delete(self, memory_ids: Sequence[str]) -> int:
        """Delete these memories: all of them, or, if any id is unknown, none."""
        memory_ids = list(dict.fromkeys(memory_ids))
        with self._vector_transaction() as changes:
            marks = ", ".join("?" for _ in memory_ids)
            found = {
                row[0]
                for row in self.db.execute(
                    f"select id from memories where id in ({marks})", memory_ids
                )
            }
            missing = [m for m in memory_ids if m not in found]
            if missing:
                raise MemoryNotFound(", ".join(missing))
            if changes is not None:
                changes.drop(memory_ids)
            return self.db.execute(
                f"delete from memories where id in ({marks})", memory_ids
            ).rowcount

    def forget(self, *, conversation_id: str | None = None, everything: bool = False) -> int:
        "Delete the memories of one conversation, or (everything=True) all of them."
        with self._vector_transaction() as changes:
            if changes is not None:
                changes.drop([row[0] for row in self.db.execute(
                    "select id from memories where vector_row is not null"
                    + ("" if everything else " and conversation_id = ?"),
                    [] if everything else [conversation_id])])
            if everything:
                return self.db.execute("delete from memories").rowcount
            return self.db.execute(
                "delete from memories where conversation_id = ?", [conversation_id]
            ).rowcount

    def _next_seq(self) -> int:
        return self.db.execute("select coalesce(max(seq), 0) + 1 from memories").fetchone()[0]

    # Injected blocks (injection.py) -------------------------------------

    def injections(self, conversation_id: str | None, fingerprints: Sequence[str]) -> dict[str, dict]:
        """The recorded blocks of these turns of a conversation: fingerprint
        -> row, with ``memory_ids`` and ``retracted_ids`` decoded."""
        return {
            row["fingerprint"]: {
                **row,
                "memory_ids": json.loads(row["memory_ids"]),
                "retracted_ids": json.loads(row["retracted_ids"]),
                "methods": json.loads(row["methods"] or "[]"),
            }
            for row in self.query_in(
                "select fingerprint, memory_ids, retracted_ids, methods, response_id, block_sha, reset "
                "from kinetaios_injections "
                "where conversation_id = ? and fingerprint in ({marks})",
                fingerprints, [conversation_id or ""])
        }

    def record_injection(
        self,
        conversation_id: str | None,
        fingerprint: str,
        memory_ids: Sequence[str],
        block_sha: str,
        reset: bool,
        retracted_ids: Sequence[str] = (),
        methods: Sequence = (),
        response_id: str | None = None,
    ) -> None:
        """Record what one turn's block showed (replacing an earlier record of
        the same turn): the memories, then the outdated ones it retracted;
        how each memory was chosen ([method, score], parallel to
        ``memory_ids``) and the response the block served."""
        with self.transaction():
            self.db["kinetaios_injections"].insert(
                {
                    "conversation_id": conversation_id or "",
                    "fingerprint": fingerprint,
                    "memory_ids": json.dumps(list(memory_ids)),
                    "retracted_ids": json.dumps(list(retracted_ids)),
                    "methods": json.dumps([list(m) for m in methods]),
                    "response_id": response_id,
                    "block_sha": block_sha,
                    "reset": int(reset),
                    "created_at": now_ms(),
                },
                replace=True,
            )

    # Which memories each response was shown ------------------------------

    def record_uses(self, response_id: str, conversation_id: str | None, shown: Sequence[dict]) -> None:
        """Record the memories one response's request showed: dicts with
        memory_id, block, position, method, score and sent_by (None: this
        response's own block)."""
        at = now_ms()
        with self.transaction():
            self.db["kinetaios_memory_uses"].insert_all(
                [
                    {
                        "response_id": response_id,
                        "memory_id": item["memory_id"],
                        "conversation_id": conversation_id,
                        "block": item["block"],
                        "position": item["position"],
                        "method": item["method"],
                        "score": item.get("score"),
                        "sent_by": item.get("sent_by") or response_id,
                        "created_at": at,
                    }
                    for item in shown
                ],
                replace=True,
            )

    def uses_of_response(self, response_id: str) -> list[dict]:
        "What one response was shown, in request order."
        return list(self.db.query(
            "select * from kinetaios_memory_uses where response_id = ? order by block, position",
            [response_id],
        ))

    def uses_of_memory(self, memory_id: str, limit: int | None = None) -> list[dict]:
        "The responses shown this memory, newest first."
        return list(self.db.query(
            "select * from kinetaios_memory_uses where memory_id = ? "
            "order by created_at desc, response_id desc limit ?",
            [memory_id, limit or -1],
        ))

    # Projects and pins ------------------------------------------------------

    def other_projects_ids(self, project: str | None) -> set[str]:
        "Ids of current memories of any project but ``project``."
        return {
            row[0] for row in self.db.execute(
                "select id from memories indexed by idx_memories_project "
                "where project is not null and project is not ? and superseded_by is null",
                [project],
            )
        }

    def project_ids(self) -> dict[str, str]:
        "id -> project of every current project memory."
        return dict(self.db.execute(
            "select id, project from memories indexed by idx_memories_project "
            "where project is not null and superseded_by is null"
        ).fetchall())

    def pinned(self, out_of_scope: Iterable[str] = ()) -> list[Memory]:
        "Current pinned memories, first pinned first, leaving out ``out_of_scope`` ids."
        skip = set(out_of_scope)
        return [
            memory for memory in (
                Memory.from_row(row) for row in self.db.query(
                    # "+": the pinned index, not the superseded_by one
                    f"select {Memory.COLUMNS} from memories where pinned_at is not null "
                    "and +superseded_by is null and flag is null order by pinned_at, seq"
                )
            )
            if memory.id not in skip
        ]

    def set_pinned(self, memory_ids: Sequence[str], pinned: bool) -> int:
        """Pin (or unpin) these memories; an already pinned one keeps its place.
        MemoryNotFound (and nothing changed) if any id is unknown."""
        memory_ids = list(dict.fromkeys(memory_ids))
        with self.transaction():
            missing = [i for i in memory_ids if not self.db.execute(
                "select 1 from memories where id = ?", [i]).fetchone()]
            if missing:
                raise MemoryNotFound(", ".join(missing))
            marks = ", ".join("?" for _ in memory_ids)
            if pinned:
                sql = (f"update memories set pinned_at = ? where id in ({marks}) "
                       "and pinned_at is null")
                return self.db.execute(sql, [now_ms(), *memory_ids]).rowcount
            sql = f"update memories set pinned_at = null where id in ({marks}) and pinned_at is not null"
            return self.db.execute(sql, memory_ids).rowcount

    def set_project(self, memory_id: str, project: str | None) -> Memory:
        """Move a memory to ``project`` (None: make it global). ValueError if
        a current memory there says the same already."""
        with self.transaction():
            memory = self.get(memory_id)
            key = content_key(memory.content, project)
            clash = self.db.execute(
                "select id from memories where content_key = ? and id != ? "
                "and superseded_by is null", [key, memory_id]).fetchone()
            if clash:
                raise ValueError(f"Memory {clash[0]} already says that there")
            self.db.execute(
                "update memories set project = ?, content_key = ?, updated_at = ? where id = ?",
                [project, key, now_ms(), memory_id],
            )
        return self.get(memory_id)

    def projects(self) -> list[dict]:
        """Each project with current memories (None: the global ones), with
        counts, the largest first."""
        return list(self.db.query(
            "select project, count(*) as memories, count(pinned_at) as pinned, "
            "max(last_used_at) as last_used_at from memories where superseded_by is null "
            "group by project order by project is not null, memories desc, project"
        ))


def _new_row(item: dict, seq: int) -> dict:
    "The ``memories`` row for one of ``MemoryStore.add``'s argument dicts."
    content = item["content"].strip()
    if not content:
        raise ValueError("A memory cannot be empty")
    source = item.get("source") or "manual"
    if source not in SOURCES:
        raise ValueError(f"Unknown memory source: {source}")
    return {
        "id": item.get("id") or new_id(),
        "seq": seq,
        "content": content,
        "content_key": content_key(content, item.get("project")),
        "conversation_id": item.get("conversation_id"),
        "project": item.get("project"),
        "pinned_at": item.get("pinned_at"),
        "source": source,
        "source_response_id": item.get("source_response_id"),
        "created_at": item.get("created_at") or now_ms(),
        "updated_at": None,
        "last_used_at": None,
        "use_count": 0,
        "embedding": item.get("embedding"),
        "embedding_model": item.get("embedding_model")
        if item.get("embedding") is not None
        else None,
        "flag": item.get("flag"),
        "checked_at": item.get("checked_at"),
    }


def _scope_clause(
    conversation_id: str | None,
    *,
    include_global: bool,
    table: str = "",
    current_only: bool = True,
    recallable: bool = False,
) -> tuple[str, list]:
    """A WHERE clause for a conversation scope; superseded facts are left out
    unless ``current_only`` is False (history views), quarantined ones when
    ``recallable`` (recall never offers them)."""
    prefix = f"{table}." if table else ""
    conditions, params = [], []
    if current_only:
        conditions.append(f"{prefix}superseded_by is null")
    if recallable:
        conditions.append(f"{prefix}flag is null")
    if conversation_id is not None:
        if include_global:
            conditions.append(
                f"({prefix}conversation_id = ? or {prefix}conversation_id is null)"
            )
        else:
            conditions.append(f"{prefix}conversation_id = ?")
        params.append(conversation_id)
    if not conditions:
        return "", []
    return "where " + " and ".join(conditions), params


def _filter_clause(project, global_only, pinned_only, unused_before) -> tuple[str, list]:
    "The conditions of ``MemoryStore.list``'s project, pin and use filters."
    conditions, params = [], []
    if project is not None:
        conditions.append("project = ?")
        params.append(project)
    if global_only:
        conditions.append("project is null")
    if pinned_only:
        conditions.append("pinned_at is not null")
    if unused_before is not None:
        # Never used: counts from its creation. Pinned memories are kept: the
        # user chose them.
        conditions.append("pinned_at is null and coalesce(last_used_at, created_at) < ?")
        params.append(unused_before)
    return " and ".join(conditions), params


_WORD = re.compile(r"\w+", re.UNICODE)
MAX_QUERY_TERMS = 32
# Words that match nearly every memory. Left in, any question reaches the
# keyword threshold ("what", "the", "user"), so keyword recall would always
# fire and its fallback, recency, never would.
STOPWORDS = frozenset("""
a about above after again all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how i if in into is it its just
me more most my no nor not now of off on once only or other our ours out over own same
she should so some such than that the their them then there these they this those
through to too under until up very was we were what when where which while who whom why
will with would you your yours user users user's tell know think like get got one
""".split())


def fts_query(text: str) -> str:
    """Turn free text into a safe FTS5 query matching any of its words
    (stopwords left out).

    Each word is quoted, so FTS5 syntax in user text (AND, NEAR, ``*``,
    quotes, column filters) is never interpreted.
    """
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS:
            continue
        if len(word) > 1 or not word.isascii():
            seen.setdefault(word, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return " OR ".join(f'"{word}"' for word in seen)


def describe_sqlite_error(ex: Exception, path) -> str:
    "Words for a user, instead of a traceback, for the common database failures."
    text = str(ex)
    if "locked" in text or "busy" in text:
        return (
            f"The memory database {path} is locked by another process; "
            "try again in a moment."
        )
    if "readonly" in text or "read-only" in text:
        return f"The memory database {path} is read-only; check its permissions."
    if "disk is full" in text or "full" in text:
        return f"The disk holding {path} is full; free some space and try again."
    if "unable to open" in text:
        return f"Cannot open the memory database {path}; check the folder exists and is writable."
    return f"Memory database error ({path}): {text}"
