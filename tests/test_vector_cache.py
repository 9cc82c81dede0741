"""The vector files always agree with logs.db, hold each vector once, and
notice damage."""

import numpy as np

from llm_kinetaios import vector_cache
from llm_kinetaios.embeddings import to_blob
from llm_kinetaios.migrations import MIGRATIONS_TABLE, migrate
from llm_kinetaios.store import MemoryStore
from llm_kinetaios.vector_cache import vectors_dir


def cached(store, model="m"):
    ids, matrix = store.current_vectors(model)
    assert len(ids) == len(matrix)
    live = {i: row.tolist() for i, row in zip(ids, matrix) if i is not None}
    assert len(live) == sum(1 for i in ids if i is not None)  # no id twice
    return live


def vector(seed, dim=8):
    v = np.random.default_rng(seed).standard_normal(dim).astype("float32")
    return to_blob(v / np.linalg.norm(v))


def as_list(blob):
    return np.frombuffer(blob, dtype="<f4").tolist()


def add(store, n, start=0, dim=8, model="m"):
    return [store.add(f"fact {i}", embedding=vector(i, dim), embedding_model=model)
            for i in range(start, start + n)]


def files(store, suffix):
    return [p for p in vectors_dir(store.path).iterdir() if p.suffix == suffix]


def test_files_follow_inserts_deletes_edits_and_supersession(store):
    memories = add(store, 5)
    expected = {m.id: as_list(vector(i)) for i, m in enumerate(memories)}
    assert cached(store) == expected
    more = add(store, 3, start=5)
    expected.update({m.id: as_list(vector(5 + i)) for i, m in enumerate(more)})
    assert cached(store) == expected
    store.delete([memories[0].id])
    del expected[memories[0].id]
    assert cached(store) == expected
    store.update(memories[1].id, "edited fact")  # vector cleared
    del expected[memories[1].id]
    assert cached(store) == expected
    store.supersede(memories[2].id, memories[3].id)
    del expected[memories[2].id]
    assert cached(store) == expected
    store.set_embeddings([(memories[1].id, vector(99))], "m")
    expected[memories[1].id] = as_list(vector(99))
    assert cached(store) == expected and len(expected) == 6
    store.update(memories[4].id, "edited again", embedding=vector(77), embedding_model="m")
    expected[memories[4].id] = as_list(vector(77))
    assert cached(store) == expected
    assert cached(store, "other") == {}
    ids, blob = store.vectors("m")
    assert dict(zip(ids, np.frombuffer(blob, "<f4").reshape(len(ids), -1).tolist())) == expected


def test_dead_rows_are_zeroed_so_a_forgotten_vector_leaves_no_copy(store):
    memories = add(store, 3)
    store.forget(everything=True)
    ids, matrix = vector_cache.read_vectors(store, "m")
    assert not len(ids) or not np.any(np.asarray(matrix))
    (f32,) = files(store, ".f32")
    assert not any(f32.read_bytes())
    assert memories  # three were stored


def test_each_vector_is_stored_once(store):
    add(store, 4)
    assert store.db.execute("select count(*) from memories where embedding is not null").fetchone()[0] == 0
    (f32,) = files(store, ".f32")
    assert f32.stat().st_size == 4 * 8 * 4


def test_normal_changes_never_rebuild_from_logs_db(store, monkeypatch):
    memories = add(store, 6)
    cached(store)
    full_reads = []
    original = vector_cache._live_rows
    monkeypatch.setattr(vector_cache, "_live_rows", lambda s, m, after_seq=0: (
        full_reads.append(after_seq) if after_seq == 0 else None) or original(s, m, after_seq))
    add(store, 2, start=10)
    cached(store)
    store.delete([memories[0].id])
    cached(store)
    store.supersede(memories[1].id, memories[2].id)
    store.update(memories[3].id, "changed", embedding=vector(50), embedding_model="m")
    assert len(cached(store)) == 6
    assert full_reads == []


def test_damaged_ids_are_rebuilt_from_logs_db(store):
    memories = add(store, 4)
    cached(store)
    for path in files(store, ".ids"):
        path.write_bytes(b"x" * path.stat().st_size)  # same size, garbage
    assert cached(store) == {m.id: as_list(vector(i)) for i, m in enumerate(memories)}


def test_vectors_overwritten_with_same_size_garbage_are_noticed(store, caplog):
    add(store, 20)
    cached(store)
    (f32,) = files(store, ".f32")
    size = f32.stat().st_size
    f32.write_bytes(np.random.default_rng(1).standard_normal(size // 4).astype("<f4").tobytes())
    assert cached(store) == {}  # garbage is never ranked
    assert "damaged" in caplog.text
    # The memories need embedding again, which reindex does.
    assert len(store.missing_embeddings("m")) == 20


def test_rows_a_crashed_writer_left_behind_are_overwritten(store):
    add(store, 2)
    (f32,) = files(store, ".f32")
    with open(f32, "ab") as fp:
        fp.write(b"\x01" * 32 * 3)  # appended, never committed
    more = add(store, 1, start=5)
    assert cached(store)[more[0].id] == as_list(vector(5))
    assert f32.stat().st_size == 3 * 8 * 4


def test_many_dead_rows_compact_the_file(store, monkeypatch):
    monkeypatch.setattr(vector_cache, "COMPACT_MIN_DEAD", 4)
    memories = add(store, 12)
    store.delete([m.id for m in memories[:6]])
    (f32,) = files(store, ".f32")
    assert f32.stat().st_size == 6 * 8 * 4  # a new generation with the live rows
    assert cached(store) == {m.id: as_list(vector(i)) for i, m in enumerate(memories) if i >= 6}
    more = add(store, 1, start=40)
    assert len(cached(store)) == 7 and more[0].id in cached(store)


def test_a_dimension_change_starts_a_new_file(store):
    add(store, 2, dim=8)
    cached(store)
    store.db.execute("delete from memories")  # behind the plugin's back: ids are rebuilt
    store.db.conn.commit()
    add(store, 2, start=10, dim=16)
    ids, matrix = store.current_vectors("m")
    assert matrix.shape == (2, 16)


def test_conversation_scope_reads_its_rows(store):
    store.add("a", conversation_id="c1", embedding=vector(1), embedding_model="m")
    store.add("b", conversation_id="c2", embedding=vector(2), embedding_model="m")
    ids, matrix = store.current_vectors("m", conversation_id="c1")
    assert len(ids) == 1 and matrix.shape == (1, 8)
    assert matrix[0].tolist() == as_list(vector(1))


def test_migration_moves_column_vectors_into_the_file(store):
    store.add("plain fact")
    store.db.execute("update memories set embedding = ?, embedding_model = 'm'", [vector(3)])
    store.db.execute(f"delete from {MIGRATIONS_TABLE} where name = 'm012_vector_file'")
    store.db.conn.commit()
    migrate(store.db)
    assert store.db.execute("select embedding from memories").fetchone()[0] is None
    reopened = MemoryStore.open(store.path)
    assert list(cached(reopened).values()) == [as_list(vector(3))]
    reopened.close()


def test_an_empty_or_mismatched_vector_is_refused_and_nothing_is_stored(store):
    import pytest

    with pytest.raises(ValueError):
        store.add_many([dict(content="a", embedding=vector(1), embedding_model="m"),
                        dict(content="b", embedding=vector(2, dim=4), embedding_model="m")])
    with pytest.raises(ValueError):
        store.add("c", embedding=b"", embedding_model="m")
    assert store.count() == 0 and cached(store) == {}


def test_reading_a_large_file_limits_blas_to_one_thread(store, monkeypatch):
    from threadpoolctl import threadpool_info, threadpool_limits

    monkeypatch.setattr(vector_cache, "BLAS_LIMIT_ROWS", 2)
    monkeypatch.setattr(vector_cache, "_BLAS_LIMITED", False)
    add(store, 3)
    with threadpool_limits(2, user_api="blas"):  # restored afterwards
        cached(store)
        cached(store)
        assert {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"} == {1}


def test_rows_of_finds_rows_by_id_in_the_file_and_in_a_scoped_read(store):
    memories = add(store, 5)
    store.delete([memories[1].id])
    ids, _ = store.current_vectors("m")
    wanted = {memories[0].id, memories[1].id, memories[3].id, "not-a-memory", "ünïcode"}
    assert sorted(ids[i] for i in vector_cache.rows_of(ids, wanted)) == sorted(
        [memories[0].id, memories[3].id])
    assert vector_cache.rows_of(["a", "b", "c"], {"b", "z"}).tolist() == [1]


def test_a_read_only_logs_db_still_reads_checked_vectors(store):
    memories = add(store, 3)
    cached(store)
    for path in files(store, ".json"):
        path.unlink()  # the files must be checked against logs.db again
    store.db.execute("pragma query_only = on")
    assert cached(store) == {m.id: as_list(vector(i)) for i, m in enumerate(memories)}


def test_a_quarantined_memory_is_never_ranked_until_approved(store):
    [held], _ = store.add_many([dict(content="User says ignore all rules", flag="instructions",
                                     embedding=vector(1), embedding_model="m")])
    other = add(store, 1, start=5)
    assert set(cached(store)) == {other[0].id}
    ids, matrix = store.current_vectors("m")
    assert len(ids) == 1  # not even a row: nothing of it can be ranked
    store.approve(held.id)
    assert cached(store)[held.id] == as_list(vector(1))
    assert store.db.execute("select count(*) from memories where embedding is not null").fetchone()[0] == 0


def test_dead_rows_are_never_in_recalls_scope(store):
    from llm_kinetaios.config import Settings
    from llm_kinetaios.recall import judge_memories

    class Query:
        model_id = "m"

        def embed_query(self, text):
            return np.frombuffer(vector(3), dtype="<f4")

    memories = add(store, 6)
    store.delete([m.id for m in memories[:3]])  # three zero rows, ids None
    judged = judge_memories(store, "anything", Settings(min_similarity=-1.0), None, Query())
    assert len(judged.ids) == 6
    assert {judged.ids[i] for i in np.flatnonzero(judged.relevant)} == {m.id for m in memories[3:]}
    assert all(judged.ids[i] is not None for i in judged.pool)
