"""The memory vectors: one flat float32 file per embedding model beside logs.db,
mapped (``numpy.memmap``) rather than read, and the only copy of each vector.

Recall multiplies every current vector by the query each turn, so how the
matrix reaches numpy decides its speed: a mapped file costs no copy and no
per-row work, which puts recall near the machine's memory-bandwidth floor
(docs/performance.md). Keeping the vectors in logs.db as well would double
the bytes on disk, so logs.db keeps only where each vector lives:
``memories.vector_row`` (its row in the file) and ``memories.vector_crc``
(a CRC-32 of its bytes). The folder ``kinetaios-vectors/`` is part of the
memory store: back it up with logs.db, or use ``llm memories export
--vectors``; without it, ``llm memories reindex`` embeds everything again.

Per model (and per database file) there are three files:

* ``<stem>-<generation>.f32``: the vectors, one row each, never moved in
  normal operation: new vectors are appended; a deleted, edited or
  superseded memory's row is zeroed (so it scores 0) and its id blanked;
* ``<stem>-<generation>.ids``: the memory id of each row, fixed width, so
  recall decodes only the ids of the rows it picks (a blank id: a dead row);
* ``<stem>-<generation>.json``: row count, dead rows, dimension, and the
  logs.db state (a trigger-maintained change counter and the highest seq)
  the files reflect.

Every change goes through :class:`VectorChanges`, which holds the folder's
lock from before logs.db's write transaction until the files agree with it.
When more than an eighth of the rows are dead the file is compacted into a
new generation, switched atomically with the new ``vector_row`` values.

A reader checks, cheaply, that the files still describe logs.db: the
counters, the row count against the file size, and a CRC of a few random
rows against ``vector_crc``. Ids that disagree (a change made behind the
plugin's back) are rebuilt from logs.db, which needs no vector; vector rows
whose bytes are damaged are dropped (their memories go back to needing
``llm memories reindex``) and a warning is logged, so garbage is never
ranked.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import logging
import os
import random
import sqlite3
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

log = logging.getLogger("llm_kinetaios")

VECTORS_DIRNAME = "kinetaios-vectors"
OLD_CACHE_DIRNAME = "kinetaios-cache"  # the derived cache of earlier versions
ID_WIDTH = 26  # a ULID; longer imported ids widen the ids file
SAMPLED_ROWS = 8
# Compact when dead rows exceed this share of the file (and this many).
COMPACT_SHARE = 8
COMPACT_MIN_DEAD = 256


def vectors_dir(db_path) -> Path:
    return Path(db_path).parent / VECTORS_DIRNAME


@functools.lru_cache(maxsize=64)
def _lock_path(db_path) -> Path:
    return vectors_dir(db_path) / f"{hashlib.sha256(Path(db_path).name.encode()).hexdigest()[:16]}.lock"


@functools.lru_cache(maxsize=64)
def _stem(db_path, model_id: str) -> str:
    return hashlib.sha256(f"{Path(db_path).name}:{model_id}".encode()).hexdigest()[:16]


def crc(row_bytes) -> int:
    return zlib.crc32(row_bytes)


class RowIds(Sequence):
    """The memory id of each matrix row (None for a dead row), decoded only
    when asked for; ``array`` is the raw fixed-width bytes, for masks."""

    def __init__(self, array):
        self.array = array

    def __len__(self) -> int:
        return len(self.array)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        value = self.array[index]
        return value.decode("ascii") if value else None

    def live_mask(self):
        "A boolean array: True where the row holds a current memory."
        return self.array != b""


_MAPS: dict[tuple, tuple] = {}


def live_mask(ids) -> "np.ndarray":
    "True for each row holding a current memory (a scoped read's rows all do)."
    import numpy as np

    return ids.live_mask() if isinstance(ids, RowIds) else np.ones(len(ids), dtype=bool)


def rows_of(ids, memory_ids) -> "np.ndarray":
    """Indices of the rows (of ``read_vectors``' or a scoped read's ids)
    holding any of ``memory_ids``: one vectorised comparison for a file."""
    import numpy as np

    if isinstance(ids, RowIds):
        wanted = np.array([i.encode("ascii") for i in memory_ids if i.isascii()],
                          dtype=ids.array.dtype)
        return np.flatnonzero(np.isin(ids.array, wanted))
    memory_ids = set(memory_ids)
    return np.array([n for n, i in enumerate(ids) if i in memory_ids], dtype=np.int64)


class VectorFile:
    "The files of one model's vectors beside one database."

    def __init__(self, db_path, model_id: str, generation: int):
        self.dir = vectors_dir(db_path)
        self.model_id = model_id
        self.generation = generation
        base = self.dir / f"{_stem(db_path, model_id)}-{generation}"
        self.matrix_path = base.with_suffix(".f32")
        self.ids_path = base.with_suffix(".ids")
        self.meta_path = base.with_suffix(".json")

    def read_meta(self) -> dict | None:
        try:
            meta = json.loads(self.meta_path.read_text())
            rows, dim, width = meta["rows"], meta["dim"], meta["id_width"]
            if rows and (self.matrix_path.stat().st_size < rows * dim * 4
                         or self.ids_path.stat().st_size < rows * width):
                return None
            return meta
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def write_meta(self, meta: dict) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.meta_path.with_suffix(".jsontmp")
        tmp.write_text(json.dumps(meta))
        os.replace(tmp, self.meta_path)

    def map(self, meta: dict):
        """(RowIds, matrix) mapped read-only; no bytes are copied. The maps
        are kept for the process: rows changed in place show through them."""
        import numpy as np

        rows, dim = meta["rows"], meta["dim"]
        if rows <= meta.get("dead", 0):  # nothing live
            return RowIds(np.zeros(0, dtype="S1")), np.zeros((0, dim or 0), dtype=np.float32)
        key = (str(self.matrix_path), os.stat(self.matrix_path).st_ino,
               os.stat(self.ids_path).st_ino, rows, dim, meta["id_width"])
        if key not in _MAPS:
            _MAPS.clear()  # one model's current files at a time
            matrix = np.memmap(self.matrix_path, dtype="<f4", mode="r", shape=(rows, dim))
            ids = np.memmap(self.ids_path, dtype=f"S{meta['id_width']}", mode="r", shape=(rows,))
            _MAPS[key] = (RowIds(ids), matrix)
        return _MAPS[key]

    def write_rows(self, start: int, blobs: Sequence[bytes], dim: int) -> None:
        """Write vectors at row ``start`` onward, before logs.db commits.

        Not fsynced: that cost the worker 30 ms a job on a busy disk. A power
        cut can then lose the newest rows after logs.db has them, which the
        reader's check (it always samples the newest row) notices: the lost
        vectors are dropped and ``llm memories reindex`` embeds their text again.
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.matrix_path, "r+b" if self.matrix_path.exists() else "w+b") as fp:
            fp.truncate(start * dim * 4)  # drops rows a crashed writer left behind
            fp.seek(start * dim * 4)
            fp.write(b"".join(blobs))

    def replace_ids(self, rows: int, rows_and_ids, width: int) -> None:
        """A new ids file (a new inode: a reader's map of the old one is never
        truncated under it, which would crash it with SIGBUS)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.ids_path.with_suffix(".idstmp")
        with open(tmp, "wb") as fp:
            fp.truncate(rows * width)
        VectorFile.write_ids(self, rows_and_ids, width, path=tmp)
        os.replace(tmp, self.ids_path)

    def write_ids(self, rows_and_ids, width: int, path: Path | None = None) -> None:
        path = path or self.ids_path
        with open(path, "r+b" if path.exists() else "w+b") as fp:
            for row, memory_id in rows_and_ids:
                fp.seek(row * width)
                fp.write((memory_id or "").encode("ascii").ljust(width, b"\0"))

    def zero_rows(self, rows: Sequence[int], dim: int) -> None:
        "Overwrite dead rows: a forgotten memory leaves no vector behind."
        if not rows or not self.matrix_path.exists():
            return
        zeros = bytes(dim * 4)
        with open(self.matrix_path, "r+b") as fp:
            for row in rows:
                fp.seek(row * dim * 4)
                fp.write(zeros)

    def remove(self) -> None:
        for path in (self.matrix_path, self.ids_path, self.meta_path):
            try:
                path.unlink()
            except FileNotFoundError:
                pass


@contextmanager
def folder_lock(db_path, exclusive: bool):
    "The lock of a database's vector folder: shared to read, exclusive to change."
    path = _lock_path(db_path)
    try:
        handle = open(path, "a")
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a")
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def _snapshot(store):
    "One read transaction, so the counters and the rows agree (WAL snapshot)."
    conn = store.db.conn
    if conn.in_transaction:
        yield
        return
    conn.execute("begin")
    try:
        yield
    finally:
        conn.execute("commit")


def _state(store, model_id: str) -> tuple[int, int, int]:
    "(change counter, max seq, file generation of model_id) as logs.db has them now."
    return store.db.execute(
        "select (select coalesce(max(value), 0) from _kinetaios_state where key = 'vector_mutations'), "
        "(select coalesce(max(seq), 0) from memories), "
        "(select coalesce(max(value), 0) from _kinetaios_state where key = ?)",
        [f"vector_generation:{model_id}"],
    ).fetchone()


def _live_rows(store, model_id: str, after_seq: int = 0):
    """(id, vector_row, vector_crc, quarantined) of current memories with a
    vector in the file. A quarantined memory (safety.py's ``flag``) keeps its
    row, so approving it needs no embedding, but its id stays blank: recall
    never ranks it."""
    # After a seq, the unary + keeps SQLite on the seq index: a catch-up reads
    # only the new rows, not every row of the model.
    plus = "+" if after_seq else ""
    return store.db.execute(
        f"select id, vector_row, vector_crc, flag is not null from memories where {plus}embedding_model = ? "
        f"and vector_row is not null and {plus}superseded_by is null and seq > ? "
        "order by vector_row",
        [model_id, after_seq],
    ).fetchall()


def _agrees(meta, state) -> bool:
    return meta is not None and (meta["mutations"], meta["max_seq"]) == state[:2]


_BLAS_LIMITED = False
# Below this many rows the product takes well under a millisecond on any
# thread count, and a process is spared threadpoolctl's ~9 ms set-up.
BLAS_LIMIT_ROWS = 4096


def one_blas_thread() -> None:
    """Run BLAS on one thread in this process, from the first read of a
    file of at least BLAS_LIMIT_ROWS vectors on.

    Recall's matrix-vector product is bound by memory bandwidth, which one
    core already saturates; a second BLAS thread adds nothing when the
    machine is idle and, when the other core is busy, the product waits for
    the descheduled thread (10k memories: 17.5 ms with two threads, 8.8 ms
    with one; docs/performance.md). numpy cannot change its BLAS threads
    once loaded, and threadpoolctl is the maintained way to do it.
    """
    global _BLAS_LIMITED
    if _BLAS_LIMITED:
        return
    _BLAS_LIMITED = True
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
    except Exception:  # missing or unsupported: the default threads still work
        log.debug("could not limit BLAS threads", exc_info=True)


def read_vectors(store, model_id: str):
    """(ids, matrix) of every current memory embedded with ``model_id``:
    the whole file mapped, dead rows included as zero rows with id None.

    ``ids`` is a :class:`RowIds`; mask rows with ``ids.live_mask()`` or any
    boolean array over ``ids.array``. Checks the files against logs.db first
    (see the module docstring) and repairs them when they disagree.
    """
    db_path = store.path
    verify = catch_up = False
    with folder_lock(db_path, exclusive=False), _snapshot(store):
        state = _state(store, model_id)
        vector_file = VectorFile(db_path, model_id, state[2])
        meta = vector_file.read_meta()
        if _agrees(meta, state):
            if meta["rows"] >= BLAS_LIMIT_ROWS:
                one_blas_thread()
            ids, matrix = vector_file.map(meta)
            if _sample_ok(store, ids, matrix):
                return ids, matrix
            verify = True
        # Only new memories since the files' state: a catch-up that writes
        # the files alone, so it needs no write lock on logs.db.
        catch_up = meta is not None and not verify and meta["mutations"] == state[0]
    with folder_lock(db_path, exclusive=True):
        try:
            # Stale or damaged: a repair may drop vectors, so it writes logs.db.
            with (_snapshot(store) if catch_up else store.transaction()):
                meta = sync(store, model_id, verify=verify)
        except sqlite3.OperationalError as ex:  # read-only or locked: read, repair later
            log.warning("could not check the vector files against logs.db (%s)", ex)
            return _checked_rows(store, model_id)
        return VectorFile(db_path, model_id, meta["generation"]).map(meta)


def _checked_rows(store, model_id: str):
    """(ids, matrix) of the live rows whose bytes match their CRC, read
    without writing anything: for a logs.db that cannot be written now."""
    import numpy as np

    live = _live_rows(store, model_id)
    vector_file = VectorFile(store.path, model_id, _state(store, model_id)[2])
    meta = vector_file.read_meta() or {}
    dim = meta.get("dim") or _file_dim(store, model_id, vector_file, live)
    if not live or not dim:
        return [], np.zeros((0, dim or 0), dtype=np.float32)
    rows = vector_file.matrix_path.stat().st_size // (dim * 4)
    matrix = np.memmap(vector_file.matrix_path, dtype="<f4", mode="r", shape=(rows, dim))
    good = [(i, row) for i, row, checksum, quarantined in live
            if not quarantined and row < rows and crc(matrix[row].tobytes()) == checksum]
    if not good:
        return [], np.zeros((0, dim), dtype=np.float32)
    return [i for i, _ in good], np.asarray(matrix[[row for _, row in good]])


def _sample_ok(store, ids: RowIds, matrix) -> bool:
    "A few random live rows: their ids, rows and CRCs as logs.db has them."
    rows = len(ids)
    if not rows:
        return True
    picks = {random.randrange(rows) for _ in range(SAMPLED_ROWS)} | {rows - 1}
    wanted = {ids[row]: row for row in picks if ids[row] is not None}
    if not wanted:
        return True
    marks = ", ".join("?" for _ in wanted)
    # By primary key only: with "superseded_by is null" in the WHERE clause
    # SQLite prefers a partial index and scans every current memory.
    found = {memory_id: (row, checksum) for memory_id, row, checksum, superseded in store.db.execute(
        f"select id, vector_row, vector_crc, superseded_by from memories where id in ({marks})",
        list(wanted)) if superseded is None}
    for memory_id, row in wanted.items():
        if found.get(memory_id) != (row, crc(matrix[row].tobytes())):
            return False
    return True


def sync(store, model_id: str, *, verify: bool = False) -> dict:
    """Bring the files of ``model_id`` in line with logs.db and return their
    meta; the caller holds the exclusive lock and a write transaction.

    New rows since the files' state are caught up cheaply; any other
    difference rebuilds the ids from logs.db (no vector is read from it).
    With ``verify``, every live row's CRC is checked and damaged rows dropped.
    """
    state = _state(store, model_id)
    vector_file = VectorFile(store.path, model_id, state[2])
    meta = vector_file.read_meta()
    if meta is not None and meta["mutations"] == state[0] and meta["max_seq"] <= state[1] and not verify:
        if _caught_up(store, model_id, vector_file, meta, state):
            return meta
    return _rebuild(store, model_id, vector_file, meta, verify)


def _rebuild(store, model_id: str, vector_file: "VectorFile", meta: dict | None,
             verify: bool) -> dict:
    """The full path of ``sync``: the ids file rebuilt from logs.db, missing
    (and, with ``verify``, damaged) rows dropped, a new meta written."""
    live = _live_rows(store, model_id)
    dim = (meta or {}).get("dim") or _file_dim(store, model_id, vector_file, live)
    width = max([ID_WIDTH, *(len(i) for i, _, _, _ in live)])
    file_rows = vector_file.matrix_path.stat().st_size // (dim * 4) if (
        dim and vector_file.matrix_path.exists()) else 0
    rows = max([(meta or {}).get("rows", 0) if meta else 0, *(row + 1 for _, row, _, _ in live)])
    rows = min(rows, file_rows) if file_rows else 0
    damaged = _damaged_rows(vector_file, live, file_rows, dim, verify)
    if damaged:
        live = _drop_damaged(store, model_id, vector_file, live, damaged, file_rows, dim)
    vector_file.replace_ids(rows, [(row, i) for i, row, _, q in live if not q], width)
    state = _state(store, model_id)
    meta = {"model": model_id, "generation": state[2], "dim": dim, "id_width": width,
            "rows": rows, "dead": rows - len(live), "mutations": state[0], "max_seq": state[1]}
    vector_file.write_meta(meta)
    return meta


def _drop_damaged(store, model_id: str, vector_file: "VectorFile", live, damaged,
                  file_rows: int, dim: int) -> list:
    "Forget the damaged rows' vectors (reindex embeds them again), zero them; the live rows left."
    log.warning("%d stored vectors of %s were missing or damaged and were dropped; "
                "run 'llm memories reindex'", len(damaged), model_id)
    _forget_vectors(store, [i for i, _ in damaged])
    vector_file.zero_rows([row for _, row in damaged if row < file_rows], dim)
    bad = {i for i, _ in damaged}
    return [entry for entry in live if entry[0] not in bad]


def _caught_up(store, model_id: str, vector_file: "VectorFile", meta: dict, state) -> bool:
    """The cheap path of ``sync``: only rows added since the files' state
    (and no other mutation). Writes their ids and the meta; False when an id
    is too wide for the ids file, so the caller rebuilds."""
    live = _live_rows(store, model_id, after_seq=meta["max_seq"])
    if any(len(i) > meta["id_width"] for i, _, _, _ in live):
        return False
    if live:
        vector_file.write_ids([(row, None if q else i) for i, row, _, q in live], meta["id_width"])
        meta["rows"] = max(meta["rows"], live[-1][1] + 1)
    meta.update(max_seq=state[1])
    vector_file.write_meta(meta)
    return True


def _damaged_rows(vector_file: "VectorFile", live, file_rows: int, dim: int,
                  verify: bool) -> list[tuple[str, int]]:
    """(memory id, row) of the live rows past the end of the file and, with
    ``verify``, of those whose CRC does not match."""
    damaged = [(i, row) for i, row, _, _ in live if row >= file_rows]
    if verify and live and file_rows:
        import numpy as np

        matrix = np.memmap(vector_file.matrix_path, dtype="<f4", mode="r", shape=(file_rows, dim))
        damaged += [(i, row) for i, row, checksum, _ in live
                    if row < file_rows and crc(matrix[row].tobytes()) != checksum]
        del matrix
    return damaged


def _file_dim(store, model_id, vector_file, live) -> int:
    "The dimension of a file whose meta is lost: from its size and last row."
    if not live or not vector_file.matrix_path.exists():
        return 0
    size = vector_file.matrix_path.stat().st_size
    last = live[-1][1] + 1
    return size // (4 * last) if size % (4 * last) == 0 else 0


def _forget_vectors(store, memory_ids: Sequence[str]) -> None:
    "Mark these memories as having no vector (so reindex embeds them again)."
    from .store import in_chunks

    for chunk, marks in in_chunks(memory_ids):
        store.db.execute(
            "update memories set vector_row = null, vector_crc = null, embedding_model = null "
            f"where id in ({marks})", chunk)


class VectorChanges:
    """The vector side of one write transaction (``MemoryStore._vector_transaction``).

    Appends are written before logs.db commits, so a committed ``vector_row``
    points at written bytes (short of a power cut; see ``write_rows``); dead rows are zeroed and
    metas written after the commit, so a rollback never loses a vector.
    """

    def __init__(self, store):
        self.store = store
        self.metas: dict[str, dict] = {}
        self.dead: dict[str, list[int]] = {}

    def _meta(self, model_id: str) -> dict:
        if model_id not in self.metas:
            self.metas[model_id] = sync(self.store, model_id)
        return self.metas[model_id]

    def _file(self, meta) -> VectorFile:
        return VectorFile(self.store.path, meta["model"], meta["generation"])

    def append(self, model_id: str, pairs: Sequence[tuple[str, bytes]]) -> None:
        """Store vectors for memories already inserted in this transaction.

        A quarantined memory (safety.py's ``flag``) keeps its vector in the
        ``embedding`` column instead, where recall never reads it;
        ``MemoryStore.approve`` moves it here."""
        pairs = self._park_quarantined(model_id, list(pairs))
        if not pairs:
            return
        dim = len(pairs[0][1]) // 4
        if not dim or any(len(blob) != dim * 4 for _, blob in pairs):
            raise ValueError("vectors of one model must have one non-zero dimension")
        meta = self._meta_of_dimension(model_id, dim)
        width = max([meta["id_width"], *(len(i) for i, _ in pairs)])
        if width != meta["id_width"]:
            meta["id_width"] = width
            self._rewrite_ids(meta)
        start = meta["rows"]
        vector_file = self._file(meta)
        vector_file.write_rows(start, [blob for _, blob in pairs], dim)
        vector_file.write_ids([(start + n, i) for n, (i, _) in enumerate(pairs)], width)
        self.store.db.conn.executemany(
            "update memories set vector_row = ?, vector_crc = ?, embedding = null, "
            "embedding_model = ? where id = ?",
            [(start + n, crc(blob), model_id, i) for n, (i, blob) in enumerate(pairs)],
        )
        meta["rows"] = start + len(pairs)

    def _park_quarantined(self, model_id: str, pairs: list) -> list:
        "Keep the quarantined memories' vectors in their ``embedding`` column; the other pairs."
        quarantined = self._quarantined([i for i, _ in pairs])
        if not quarantined:
            return pairs
        self.store.db.conn.executemany(
            "update memories set embedding = ?, embedding_model = ?, vector_row = null, "
            "vector_crc = null where id = ?",
            [(blob, model_id, i) for i, blob in pairs if i in quarantined])
        return [(i, blob) for i, blob in pairs if i not in quarantined]

    def _meta_of_dimension(self, model_id: str, dim: int) -> dict:
        """The model's meta, for vectors of ``dim``: a model whose dimension
        changed drops its old vectors and starts a new generation of files."""
        meta = self._meta(model_id)
        if meta["dim"] == dim:
            return meta
        if meta["rows"] - meta["dead"]:
            live = [i for i, _, _, _ in _live_rows(self.store, model_id)]
            self.drop(live)
        self._new_generation(model_id, dim)
        return self.metas[model_id]

    def _quarantined(self, memory_ids: list[str]) -> set[str]:
        return {row["id"] for row in self.store.query_in(
            "select id from memories where id in ({marks}) and flag is not null", memory_ids)}

    def drop(self, memory_ids: Sequence[str]) -> None:
        "These memories' vectors die (delete, edit, supersession, re-embedding)."
        from .store import in_chunks

        for chunk, marks in in_chunks(memory_ids):
            rows = self.store.db.execute(
                f"select embedding_model, vector_row from memories where id in ({marks}) "
                "and vector_row is not null", chunk).fetchall()
            for model_id, row in rows:
                self._meta(model_id)
                self.dead.setdefault(model_id, []).append(row)
            self.store.db.execute(
                "update memories set vector_row = null, vector_crc = null "
                f"where id in ({marks}) and vector_row is not null", chunk)

    def _rewrite_ids(self, meta) -> None:
        live = _live_rows(self.store, meta["model"])
        self._file(meta).replace_ids(meta["rows"], [(row, i) for i, row, _, q in live if not q],
                                     meta["id_width"])

    def _new_generation(self, model_id: str, dim: int) -> None:
        old = self.metas.get(model_id)
        generation = (old["generation"] + 1) if old else 1
        self.store.db.execute(
            "insert into _kinetaios_state (key, value) values (?, ?) "
            "on conflict (key) do update set value = excluded.value",
            [f"vector_generation:{model_id}", generation])
        meta = {"model": model_id, "generation": generation, "dim": dim,
                "id_width": ID_WIDTH, "rows": 0, "dead": 0}
        self._file(meta).remove()
        self.metas[model_id] = meta
        self.dead.pop(model_id, None)
        self._retired = getattr(self, "_retired", []) + ([old] if old else [])

    def after_commit(self) -> None:
        "Zero dead rows, write metas, retire old generations, compact if needed."
        for meta in getattr(self, "_retired", []):
            self._file(meta).remove()
        state_by_model = {}
        for model_id, meta in self.metas.items():
            vector_file = self._file(meta)
            dead = self.dead.get(model_id, [])
            vector_file.zero_rows(dead, meta["dim"])
            vector_file.write_ids([(row, None) for row in dead], meta["id_width"])
            meta["dead"] = meta.get("dead", 0) + len(dead)
            state = state_by_model[model_id] = _state(self.store, model_id)
            meta.update(mutations=state[0], max_seq=state[1])
            if meta["rows"] and not vector_file.ids_path.exists():
                self._rewrite_ids(meta)
            vector_file.write_meta(meta)
        for model_id, meta in self.metas.items():
            if meta["dead"] >= max(COMPACT_MIN_DEAD, meta["rows"] // COMPACT_SHARE):
                compact(self.store, model_id)


def compact(store, model_id: str) -> None:
    """Copy the live rows into a new generation and switch to it in one
    logs.db transaction; the caller holds the exclusive lock."""
    import numpy as np

    with store.transaction():
        meta = sync(store, model_id)
        live = _live_rows(store, model_id)
        old = VectorFile(store.path, model_id, meta["generation"])
        new_meta = {"model": model_id, "generation": meta["generation"] + 1, "dim": meta["dim"],
                    "id_width": meta["id_width"], "rows": len(live), "dead": 0}
        new = VectorFile(store.path, model_id, new_meta["generation"])
        new.remove()
        if live:
            matrix = np.memmap(old.matrix_path, dtype="<f4", mode="r",
                               shape=(meta["rows"], meta["dim"]))
            rows = np.fromiter((row for _, row, _, _ in live), dtype=np.int64, count=len(live))
            new.write_rows(0, [matrix[rows].tobytes()], meta["dim"])
            del matrix
        new.replace_ids(len(live), [(n, i) for n, (i, _, _, q) in enumerate(live) if not q],
                        new_meta["id_width"])
        store.db.conn.executemany("update memories set vector_row = ? where id = ?",
                                  [(n, i) for n, (i, _, _, _) in enumerate(live)])
        store.db.execute(
            "insert into _kinetaios_state (key, value) values (?, ?) "
            "on conflict (key) do update set value = excluded.value",
            [f"vector_generation:{model_id}", new_meta["generation"]])
    state = _state(store, model_id)
    new_meta.update(mutations=state[0], max_seq=state[1])
    new.write_meta(new_meta)
    old.remove()


def gather(store, model_id: str, memory_ids_rows):
    """(ids, matrix) of chosen memories, given (id, vector_row) pairs: a copy of
    just those rows (conversation-scoped recall, exports)."""
    import numpy as np

    ids, matrix = read_vectors(store, model_id)
    pairs = [(i, row) for i, row in memory_ids_rows if row is not None and row < len(ids)
             and ids[row] == i]
    if not pairs:
        return [], np.zeros((0, matrix.shape[1] if matrix.ndim == 2 else 0), dtype=np.float32)
    rows = np.fromiter((row for _, row in pairs), dtype=np.int64, count=len(pairs))
    return [i for i, _ in pairs], np.asarray(matrix[rows])


def move_column_vectors(store) -> None:
    """Migration: move vectors out of the ``embedding`` column into the files
    (current memories only; a superseded fact's vector is never read)."""
    if not store.path:
        return
    with store.transaction():
        store.db.execute(
            "update memories set embedding = null, embedding_model = null "
            "where superseded_by is not null and embedding is not null")
    models = [row[0] for row in store.db.execute(
        "select distinct embedding_model from memories where embedding is not null")]
    with folder_lock(store.path, exclusive=True):
        for model_id in models:
            changes = VectorChanges(store)
            with store.transaction():
                rows = store.db.execute(
                    "select id, embedding from memories where embedding_model = ? "
                    "and embedding is not null and flag is null order by seq",
                    [model_id]).fetchall()
                by_dim: dict[int, list] = {}
                for memory_id, blob in rows:
                    by_dim.setdefault(len(blob), []).append((memory_id, blob))
                # One dimension per model: the most common one wins, the rest are re-embedded.
                keep = max(by_dim, key=lambda d: len(by_dim[d]))
                for size, pairs in by_dim.items():
                    if size != keep:
                        _forget_vectors(store, [i for i, _ in pairs])
                changes.append(model_id, by_dim[keep])
            changes.after_commit()
    old = Path(store.path).parent / OLD_CACHE_DIRNAME
    if old.is_dir():
        import shutil

        shutil.rmtree(old, ignore_errors=True)
