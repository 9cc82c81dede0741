"""The vector cache always agrees with the rows of logs.db."""

import numpy as np

from llm_kinetaios.embeddings import matrix_from_blob, to_blob
from llm_kinetaios.vector_cache import cache_dir


def direct(store, model="m"):
    ids, blob = store.vectors(model)
    return dict(zip(ids, matrix_from_blob(blob, len(ids)).tolist()))


def cached(store, model="m"):
    ids, matrix = store.current_vectors(model)
    assert len(ids) == len(set(ids)) == len(matrix)
    return dict(zip(ids, matrix.tolist()))


def vector(seed, dim=8):
    v = np.random.default_rng(seed).standard_normal(dim).astype("float32")
    return to_blob(v / np.linalg.norm(v))


def add(store, n, start=0, dim=8, model="m"):
    return [store.add(f"fact {i}", embedding=vector(i, dim), embedding_model=model)
            for i in range(start, start + n)]


def test_cache_follows_inserts_deletes_edits_and_supersession(store):
    memories = add(store, 5)
    assert cached(store) == direct(store) and len(cached(store)) == 5
    add(store, 3, start=5)  # appended
    assert cached(store) == direct(store) and len(cached(store)) == 8
    store.delete([memories[0].id])
    assert cached(store) == direct(store) and len(cached(store)) == 7
    store.update(memories[1].id, "edited fact")  # vector cleared
    assert memories[1].id not in cached(store)
    store.supersede(memories[2].id, memories[3].id)
    assert memories[2].id not in cached(store)
    store.set_embeddings([(memories[1].id, vector(99))], "m")
    assert cached(store) == direct(store) and len(cached(store)) == 6
    assert cached(store, "other") == {}


def test_damaged_cache_files_are_rebuilt(store):
    add(store, 4)
    cached(store)
    for path in cache_dir(store.path).iterdir():
        if path.suffix in (".f32", ".ids"):
            path.write_bytes(b"garbage")
    assert cached(store) == direct(store) and len(cached(store)) == 4


def test_a_dimension_change_rebuilds(store):
    add(store, 2, dim=8)
    cached(store)
    store.db.execute("delete from memories")  # bypasses nothing: triggers bump the counter
    add(store, 2, start=10, dim=16)
    ids, matrix = store.current_vectors("m")
    assert matrix.shape == (2, 16)


def test_conversation_scope_reads_rows(store):
    store.add("a", conversation_id="c1", embedding=vector(1), embedding_model="m")
    store.add("b", conversation_id="c2", embedding=vector(2), embedding_model="m")
    ids, matrix = store.current_vectors("m", conversation_id="c1")
    assert len(ids) == 1 and matrix.shape == (1, 8)
