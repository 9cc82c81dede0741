"""The real thing: ``llm`` as a subprocess, extraction in a detached worker.

The fake models reach the subprocess through a generated dist-info with an
``llm`` entry point. The fake extractor waits for a "gate" file, so the tests
can show, without timing anything, that the answer arrives while extraction
is still blocked, and can kill a worker mid-job.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kinetaios_fakes import plugin_dir
from llm_kinetaios.jobs import JobQueue

TESTS = Path(__file__).parent


@pytest.fixture
def llm_env(user_path, tmp_path):
    plugins = plugin_dir(tmp_path, "kinetaios-fakes", "kinetaios_fakes")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_KINETAIOS")}
    env.update(
        LLM_USER_PATH=str(user_path),
        PYTHONPATH=os.pathsep.join([str(TESTS), str(plugins), env.get("PYTHONPATH", "")]),
        LLM_LOAD_PLUGINS="llm-kinetaios,kinetaios-fakes",
        KINETAIOS_FAKE_GATE=str(tmp_path / "gate"),
    )
    return env


def llm_cli(env, *args, check=True):
    result = subprocess.run([sys.executable, "-m", "llm", *args], env=env,
                            capture_output=True, text=True, timeout=60)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def query(user_path, sql):
    conn = sqlite3.connect(user_path / "logs.db", timeout=10)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def wait_for(predicate, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_answer_returns_while_extraction_runs_in_the_background(llm_env, user_path):
    result = llm_cli(llm_env, "-m", "memory-fake", "I love hiking. Which boots?")
    assert result.stdout.strip() == "echo: I love hiking. Which boots?"
    # The command has returned, yet the extractor is still held at the gate.
    assert wait_for(lambda: query(user_path, "select status from memory_jobs where kind = 'extract'") == [("running",)])
    assert query(user_path, "select count(*) from memories") == [(0,)]
    Path(llm_env["KINETAIOS_FAKE_GATE"]).touch()
    assert wait_for(lambda: query(user_path, "select content from memories") == [("User love hiking",)])
    assert wait_for(lambda: query(user_path, "select status from memory_jobs where kind = 'extract'") == [("done",)])


def test_killed_worker_leaves_nothing_half_written_and_the_job_is_resumed(llm_env, user_path):
    llm_cli(llm_env, "-m", "memory-fake", "I love chess.")
    assert wait_for(lambda: query(user_path, "select status from memory_jobs where kind = 'extract'") == [("running",)])
    [(pid,)] = query(user_path, "select worker_pid from memory_jobs where kind = 'extract'")
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: not _alive(pid))
    assert query(user_path, "pragma integrity_check") == [("ok",)]
    assert query(user_path, "select count(*) from memories") == [(0,)]
    Path(llm_env["KINETAIOS_FAKE_GATE"]).touch()
    processed = llm_cli(llm_env, "memories", "process")
    assert "Processed 2 jobs" in processed.stderr  # the extraction and the history index
    assert query(user_path, "select content from memories") == [("User love chess",)]
    assert query(user_path, "select kind, status, attempts from memory_jobs order by id") == [
        ("extract", "done", 2), ("index_history", "done", 1)]


def _alive(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def test_the_worker_does_not_wait_once_the_turn_is_logged(user_path):
    from llm_kinetaios.store import MemoryStore
    from llm_kinetaios.worker import wait_until_logged

    store = MemoryStore.open()
    store.db.execute("create table if not exists turns (id text primary key)")
    store.db.execute("insert into turns (id) values ('r1')")
    store.db.conn.commit()
    # One turn queues two jobs with the same response id.
    JobQueue(store).enqueue("extract", {"response_id": "r1"})
    JobQueue(store).enqueue("index_history", {"response_id": "r1"})
    started = time.monotonic()
    wait_until_logged(store, seconds=30)
    assert time.monotonic() - started < 10  # returned on the condition, not the deadline


def test_a_batch_of_jobs_embeds_its_queries_once_and_looks_models_up_once(
    store, monkeypatch, embedded_texts
):
    import llm

    from llm_kinetaios import worker

    store.add("User keeps bees", embedding=None)
    texts = [f"I collect stamps from country {n}." for n in range(3)]
    for text in texts:
        JobQueue(store).enqueue("extract", {"model_id": "fake", "user": text, "assistant": "ok"})
    embedded_texts.clear()
    lookups = []
    original_get = llm.get_model
    monkeypatch.setattr(llm, "get_model", lambda name: lookups.append(name) or original_get(name))
    assert worker.run_queue(store) == 3
    assert sorted(t for t in embedded_texts if t in texts) == sorted(texts)  # each query once
    assert lookups == ["fake"]
    assert [job["status"] for job in JobQueue(store).recent()] == ["done"] * 3
    assert "User collect stamps from country 0" in {m.content for m in store.list()}


def test_the_background_worker_exits_once_the_queue_is_empty(llm_env, user_path):
    Path(llm_env["KINETAIOS_FAKE_GATE"]).touch()
    llm_cli(llm_env, "-m", "memory-fake", "I love rowing.")
    assert wait_for(lambda: query(user_path, "select status from memory_jobs") == [("done",), ("done",)])
    [(pid,)] = query(user_path, "select distinct worker_pid from memory_jobs")  # one worker ran both ...
    assert wait_for(lambda: not _alive(pid))  # ... and is gone, not lingering
