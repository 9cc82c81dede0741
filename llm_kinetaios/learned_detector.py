"""The learned injection detector: a linear classifier on e5 passage vectors.

Every memory is embedded at write time for recall; with the default model,
multilingual-e5-small, the same vector also says whether the text reads
like instructions to a model. One dot product per memory on a vector the
write path has computed anyway, so it costs nothing measurable.

The weights (``data/injection_classifier.json``, a few KB) come from
``benchmarks/train_injection_classifier.py``, a logistic regression trained
on the tune corpora only, with its strength and threshold chosen by
cross-validation there (a payload family never in training and test at
once), so that no tune ordinary or near-miss fact is flagged. It complements
``safety.injection_reason``: a memory is quarantined when either names a
reason. It runs only where vectors are made (extraction in the background
worker, ``add``, ``import``, ``edit``) and in the worker's catch-up check of
memories stored before the write-time check (``stored_reasons``, on their
stored vectors), never on the answer path, and only
for vectors of the model it was trained on: with another embedding model, or
none, it is skipped (embedding every memory a second time with e5 would cost
about as much as the embedding itself).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

WEIGHTS_FILE = Path(__file__).resolve().parent / "data" / "injection_classifier.json"
LEARNED_REASON = "reads like instructions to a model (learned detector)"


@functools.lru_cache(maxsize=1)
def load_classifier() -> tuple[str, "np.ndarray", float, float]:
    "(embedding model id, weights, bias, threshold) from the shipped file."
    import numpy as np

    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    return (data["model"], np.asarray(data["weights"], dtype=np.float32),
            float(data["bias"]), float(data["threshold"]))


def applies_to(embedding_model) -> bool:
    "Whether vectors of this embedding model are the ones the classifier was trained on."
    return embedding_model is not None and getattr(embedding_model, "model_id", None) == load_classifier()[0]


def instruction_scores(matrix: "np.ndarray") -> "np.ndarray":
    "The classifier's log-odds that each row's text is an instruction to a model."
    import numpy as np

    _, weights, bias, _ = load_classifier()
    return np.asarray(matrix, dtype=np.float32) @ weights + bias


def learned_reasons(matrix: "np.ndarray | None", embedding_model) -> Sequence[str | None]:
    """For each row of ``matrix`` (unit-length passage vectors of
    ``embedding_model``), the quarantine reason or None. All None when the
    classifier does not apply to these vectors."""
    if matrix is None or len(matrix) == 0 or not applies_to(embedding_model):
        return [None] * (0 if matrix is None else len(matrix))
    threshold = load_classifier()[3]
    return [LEARNED_REASON if score > threshold else None for score in instruction_scores(matrix)]


def stored_reasons(vectors: dict[str, tuple[str, bytes]]) -> dict[str, str]:
    """Quarantine reasons for stored vectors (memory id -> (model id, float32
    bytes), as ``MemoryStore.vectors_of`` returns them): only the memories
    the classifier flags, and only vectors of the model it was trained on."""
    import numpy as np

    model_id, weights, _, threshold = load_classifier()
    rows = {memory_id: np.frombuffer(blob, dtype="<f4") for memory_id, (model, blob) in vectors.items()
            if model == model_id and len(blob) == 4 * len(weights)}
    if not rows:
        return {}
    scores = instruction_scores(np.stack(list(rows.values())))
    return {memory_id: LEARNED_REASON for memory_id, score in zip(rows, scores) if score > threshold}
