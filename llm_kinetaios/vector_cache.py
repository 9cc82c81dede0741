"""A contiguous copy of the stored vectors, so recall reads one file instead
of one row per memory.

Reading 100,000 rows of blobs out of SQLite takes about 250 ms on a small
machine, almost all of recall's time; reading the same matrix from one flat
file takes a few milliseconds. The cache is derived data beside logs.db
(``kinetaios-cache/``), safe to delete at any time:

* new memories (seq above the cached maximum) are appended to it;
* any other change to vectors (delete, edit, supersession, reindex) bumps a
  trigger-maintained counter in logs.db, and the cache is rebuilt;
* a cache whose files do not agree with its metadata is rebuilt too.

It covers the current memories of one embedding model, of every
conversation: the default recall scope. Conversation-scoped recall reads
the rows directly.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from contextlib import contextmanager
from pathlib import Path


CACHE_DIRNAME = "kinetaios-cache"


def cache_dir(db_path) -> Path:
    return Path(db_path).parent / CACHE_DIRNAME


def _paths(db_path, model_id: str) -> dict[str, Path]:
    base = cache_dir(db_path)
    stem = hashlib.sha256(f"{Path(db_path).name}:{model_id}".encode()).hexdigest()[:16]
    return {
        "dir": base,
        "matrix": base / f"{stem}.f32",
        "ids": base / f"{stem}.ids",
        "meta": base / f"{stem}.json",
        "lock": base / f"{stem}.lock",
    }


@contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
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


def _state(store) -> tuple[int, int]:
    "(vector_mutations counter, max seq) as logs.db has them now."
    mutations = store.db.execute(
        "select value from _kinetaios_state where key = 'vector_mutations'"
    ).fetchone()
    max_seq = store.db.execute("select coalesce(max(seq), 0) from memories").fetchone()[0]
    return (mutations[0] if mutations else 0), max_seq


def _rows(store, model_id: str, after_seq: int = 0):
    return store.db.execute(
        "select id, embedding from memories where embedding_model = ? and embedding is not null "
        "and superseded_by is null and flag is null and seq > ? order by seq",
        [model_id, after_seq],
    ).fetchall()


def load_vectors(store, model_id: str, db_path):
    """(ids, matrix) of every current memory embedded with ``model_id``.

    Uses and maintains the cache; falls back to reading the rows if the cache
    folder cannot be written.
    """
    import numpy as np

    from .embeddings import matrix_from_blob

    paths = _paths(db_path, model_id)
    try:
        with _locked(paths["lock"]), _snapshot(store):
            mutations, max_seq = _state(store)
            meta = _read_meta(paths)
            if meta is None or meta["mutations"] != mutations or meta["max_seq"] > max_seq:
                rows = _rows(store, model_id)
                _write(paths, rows, mutations, max_seq, append=False)
            elif meta["max_seq"] < max_seq:
                rows = _rows(store, model_id, after_seq=meta["max_seq"])
                if rows and meta["dim"] and len(rows[0][1]) != meta["dim"] * 4:
                    rows = _rows(store, model_id)  # a dimension change: start over
                    _write(paths, rows, mutations, max_seq, append=False)
                else:
                    _write(paths, rows, mutations, max_seq, append=True, meta=meta)
            meta = _read_meta(paths)
            ids = paths["ids"].read_text().split("\n") if meta["count"] else []
            if not meta["count"]:
                return [], np.zeros((0, 0), dtype=np.float32)
            matrix = np.fromfile(paths["matrix"], dtype="<f4").reshape(meta["count"], meta["dim"])
            return ids, matrix
    except OSError:
        ids, blob = store.vectors(model_id)
        return ids, matrix_from_blob(blob, len(ids))


def _read_meta(paths) -> dict | None:
    try:
        meta = json.loads(paths["meta"].read_text())
        count, dim = meta["count"], meta["dim"]
        if paths["matrix"].stat().st_size != count * dim * 4:
            return None
        id_count = len(paths["ids"].read_text().split("\n")) if count else 0
        if id_count != count:
            return None
        return meta
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(paths, rows, mutations, max_seq, *, append: bool, meta: dict | None = None) -> None:
    paths["dir"].mkdir(parents=True, exist_ok=True)
    dim = (len(rows[0][1]) // 4) if rows else (meta or {}).get("dim", 0)
    count = ((meta or {}).get("count", 0) if append else 0) + len(rows)
    if append:
        if rows:
            with open(paths["matrix"], "ab") as fp:
                fp.write(b"".join(blob for _, blob in rows))
            with open(paths["ids"], "a") as fp:
                fp.write(("\n" if meta["count"] else "") + "\n".join(i for i, _ in rows))
    else:
        for key, data in (("matrix", b"".join(blob for _, blob in rows)),
                          ("ids", "\n".join(i for i, _ in rows).encode())):
            tmp = paths[key].with_suffix(".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, paths[key])
    tmp = paths["meta"].with_suffix(".jsontmp")
    tmp.write_text(json.dumps({"count": count, "dim": dim, "mutations": mutations, "max_seq": max_seq}))
    os.replace(tmp, paths["meta"])
