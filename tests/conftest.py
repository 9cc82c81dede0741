import json
import socket
import sys
from pathlib import Path

import pytest
import sqlite_utils
from click.testing import CliRunner

import kinetaios_fakes
import llm
import llm_anthropic
import llm_echo
import llm_kinetaios
from llm.plugins import pm


# As in llm's own suite: stop llm loading installed plugins' entry points,
# so only the plugins registered here take part. Done at import time, before
# any test imports llm.cli, which registers plugin commands when imported.
sys._called_from_test = True
pm.register(llm_kinetaios, name="kinetaios")
pm.register(kinetaios_fakes, name="kinetaios-fakes")
# Real third-party plugins the compatibility tests drive (from PyPI, in the
# ``test`` extra): registered by hand, as entry points are not loaded here.
pm.register(llm_echo, name="llm-echo")
pm.register(llm_anthropic, name="llm-anthropic")


BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def known_miss(text: str, why: str):
    "A text written for a test that failed on its first run: kept, as a strict xfail saying why."
    return pytest.param(text, marks=pytest.mark.xfail(strict=True, reason=why))


def learned_verdict(e5, text: str) -> str | None:
    """The write check's whole verdict on one text, as ``add`` and ``import``
    reach it: its e5 vector read by the heads with the patterns' flag."""
    from llm_kinetaios.embeddings import embed_passages
    from llm_kinetaios.learned_detector import quarantine_reasons
    from llm_kinetaios.safety import injection_reason

    return quarantine_reasons(embed_passages(e5, [text]), e5, [text], [injection_reason(text)])[0]


def import_benchmark(name: str):
    "A script of benchmarks/ as a module (they import each other by bare name)."
    import importlib

    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


# benchmarks/bilingual_recall.py as a module, for the tests of its data and helpers.
@pytest.fixture(scope="module")
def bench():
    return import_benchmark("bilingual_recall")


@pytest.fixture(autouse=True)
def user_path(tmp_path, monkeypatch):
    "A fresh LLM_USER_PATH per test, with the plugin and fake models registered."
    path = tmp_path / "llm-user"
    path.mkdir()
    monkeypatch.setenv("LLM_USER_PATH", str(path))
    monkeypatch.setenv("LLM_KINETAIOS_WORKER", "inline")
    monkeypatch.delenv("LLM_KINETAIOS_DEBUG", raising=False)
    (path / "default_model.txt").write_text("fake")
    write_settings(path, embedding_model="fake-embed", claude_model="fake", wrapped_models=["fake"])
    from llm_kinetaios import wrapper

    wrapper._INNER_CACHE.clear()
    wrapper._WARNED.clear()
    yield path


@pytest.fixture(autouse=True)
def fakes(monkeypatch):
    "Fresh fake models for each test: the ones llm finds (see kinetaios_fakes.FAKES)."
    models = kinetaios_fakes.Fakes()
    monkeypatch.setattr(kinetaios_fakes, "FAKES", models)
    return models


def write_settings(path, **values):
    settings_file = path / "kinetaios.json"
    current = json.loads(settings_file.read_text()) if settings_file.exists() else {}
    current.update(values)
    settings_file.write_text(json.dumps(current))


@pytest.fixture
def settings(user_path):
    "Call settings(key=value, ...) to change plugin settings for a test."
    return lambda **values: write_settings(user_path, **values)


@pytest.fixture
def fake(fakes):
    return fakes.chat


@pytest.fixture
def fake_legacy(fakes):
    return fakes.legacy


@pytest.fixture
def fake_history(fakes):
    return fakes.history


@pytest.fixture
def embedded_texts(monkeypatch):
    "Every text the fake embedding model embeds from here on, in order (clear() to restart)."
    texts = []
    original = kinetaios_fakes.FakeEmbed.embed_batch

    def recording(self, items):
        items = list(items)
        texts.extend(items)
        return original(self, items)

    monkeypatch.setattr(kinetaios_fakes.FakeEmbed, "embed_batch", recording)
    return texts


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def store(user_path):
    from llm_kinetaios.store import MemoryStore

    store = MemoryStore.open()
    yield store
    store.close()


@pytest.fixture
def logs_db(user_path):
    return lambda: sqlite_utils.Database(user_path / "logs.db")


@pytest.fixture
def no_network(monkeypatch):
    "Any network connection attempt fails: the real embedding model must work offline."
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def refuse(*args, **kwargs):
        raise OSError("network access attempted in an offline test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def e5(no_network):
    "The bundled multilingual-e5-small, offline."
    return llm.get_embedding_model("multilingual-e5-small")


@pytest.fixture
def heads_score(monkeypatch):
    """Set learned heads' scores for every row they read, by head (``instruction``, ``whole_text``,
    ``poisoning``, ``wish``, ``arbiter``, ``payload``, ``impersonal``, ``topic``:
    ``learned_detector.<head>_scores``);
    a head not named keeps its shipped weights."""
    import numpy as np

    from llm_kinetaios import learned_detector

    def set_to(**scores: float):
        for head, score in scores.items():
            monkeypatch.setattr(learned_detector, f"{head}_scores", lambda rows, score=score: np.full(len(rows), score))
    return set_to


@pytest.fixture
def wish_head_says(heads_score):
    """Set the learned wish head's verdict for every row it reads; the instruction, whole-text and poisoning
    heads see nothing, the payload and impersonal heads neither flag nor clear, the topic head clears nothing."""
    return lambda value: heads_score(wish=value, instruction=-50.0, whole_text=-50.0, poisoning=-50.0, payload=0.0,
                                     impersonal=0.0, topic=50.0)
