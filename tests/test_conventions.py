"""``llm memories`` follows llm's own conventions: ``-d/--database``,
``-n 0`` for all, honest job lines, what each wrapper wraps."""

import json

import pytest
from llm.cli import cli

from test_cli import run
from llm_kinetaios.jobs import JobQueue

# Every command that opens the database, with the arguments it needs.
DATABASE_COMMANDS = [
    ("list",), ("search", "tea"), ("stats",), ("log",), ("export",), ("process",),
    ("reindex",), ("forget", "--all", "-y"),
]


@pytest.mark.parametrize("command", DATABASE_COMMANDS, ids=lambda c: c[0])
def test_database_option_reads_and_writes_that_file_only(runner, store, tmp_path, command):
    other = tmp_path / "other.db"
    memory_id = run(runner, "add", "I drink green tea", "-d", str(other)).output.strip()
    assert store.count() == 0  # llm's logs.db is untouched
    result = run(runner, *command, "-d", str(other))
    if command[0] in ("list", "search", "export"):
        assert "I drink green tea" in result.output
    if command[0] == "forget":
        assert run(runner, "list", "-d", str(other), "--json").output.strip() == "[]"
    else:
        shown = json.loads(run(runner, "show", memory_id, "-d", str(other), "--json").output)
        assert shown["content"] == "I drink green tea"


def test_database_option_edit_delete_and_import(runner, store, tmp_path):
    other = tmp_path / "other.db"
    run(runner, "import", "-", "-d", str(other), input='["I use Neovim", "I live in Porto"]')
    ids = [m["id"] for m in json.loads(run(runner, "list", "-d", str(other), "--json").output)]
    run(runner, "edit", ids[0], "I live in Lisbon", "-d", str(other))
    run(runner, "delete", ids[1], "-y", "-d", str(other))
    remaining = json.loads(run(runner, "list", "-d", str(other), "--json").output)
    assert [m["content"] for m in remaining] == ["I live in Lisbon"]
    assert store.count() == 0


def test_reading_a_database_that_does_not_exist_is_an_error_and_creates_nothing(runner, tmp_path):
    missing = tmp_path / "missing.db"
    for command in (["list"], ["stats"], ["export"], ["show", "x"]):
        result = run(runner, *command, "-d", str(missing), code=1)
        assert f"No log database found at {missing}" in result.output
    assert not missing.exists()


def test_count_zero_means_all(runner, store):
    for n in range(25):
        store.add(f"User fact number {n} about tea")
    assert len(json.loads(run(runner, "list", "-n", "0", "--json").output)) == 25
    assert len(json.loads(run(runner, "list", "-n", "3", "--json").output)) == 3
    assert len(json.loads(run(runner, "search", "tea", "-n", "0", "--json").output)) == 25
    assert len(json.loads(run(runner, "search", "tea", "--json").output)) == 20


def test_llm_models_and_config_say_what_each_wrapper_wraps(runner, settings):
    settings(wrapped_models=["fake"], claude_model="claude-sonnet-5.5")
    models = runner.invoke(cli, ["models"], catch_exceptions=False).output
    assert "Memory: memory-claude (wraps claude-sonnet-5.5)" in models
    assert "Memory: memory (wraps fake, the default model)" in models
    assert "Memory: memory-fake (wraps fake)" in models
    config = run(runner, "config").output
    assert "memory-claude: wraps claude-sonnet-5.5" in config
    data = json.loads(run(runner, "config", "--json").output)
    assert data["wrappers"]["memory-fake"] == "fake"


def test_log_lines_say_what_each_job_did(runner, store, fake, monkeypatch):
    monkeypatch.setenv("LLM_KINETAIOS_WORKER", "off")  # so the turn is logged before its jobs run
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I love tea."], catch_exceptions=False)
    run(runner, "process")
    output = run(runner, "log").output
    assert "index_history done" in output and "embedded 1 turn of history" in output
    assert "extract done" in output and "added 1" in output
    assert "added 0, skipped 0" not in output


def test_log_says_gave_up_on_the_last_attempt(runner, store, fake, monkeypatch):
    from llm_kinetaios.jobs import MAX_JOB_ATTEMPTS

    monkeypatch.setenv("LLM_KINETAIOS_WORKER", "off")
    job_id = JobQueue(store).enqueue("extract", {"user": "x", "model_id": "fake"})
    for attempt in range(1, MAX_JOB_ATTEMPTS + 1):
        store.db.execute("update memory_jobs set attempts = ? where id = ?", [attempt, job_id])
        JobQueue(store).fail(job_id, "ConnectionError: down", retry=True)
        line = [l for l in run(runner, "log").output.splitlines() if l.startswith(f"#{job_id} ")][0]
        if attempt < MAX_JOB_ATTEMPTS:
            assert "pending" in line and "will retry: ConnectionError: down" in line
        else:
            assert "failed" in line and "gave up: ConnectionError: down" in line


def test_the_current_turns_job_runs_before_a_stale_backlog(store, monkeypatch):
    from llm_kinetaios import jobs as jobs_module
    from llm_kinetaios import store as store_module

    stale = JobQueue(store).enqueue("extract", {"user": "old"})
    current = JobQueue(store).enqueue("extract", {"user": "new"})
    old_ms = store_module.now_ms() - (jobs_module.BACKLOG_SECONDS + 60) * 1000
    store.db.execute("update memory_jobs set created_at = ? where id = ?", [old_ms, stale])
    later = JobQueue(store).enqueue("extract", {"user": "newer"})
    order = []
    while (job := JobQueue(store).claim_next(sole_worker=True)) is not None:
        order.append(job.id)
        JobQueue(store).finish(job.id)
    assert order == [current, later, stale]


def test_the_log_file_keeps_one_short_line_per_job(runner, store, fake, monkeypatch):
    import logging

    from llm_kinetaios.worker import configure_file_logging, log_path

    monkeypatch.setenv("LLM_KINETAIOS_WORKER", "off")
    configure_file_logging()
    try:
        runner.invoke(cli, ["prompt", "-m", "memory-fake", "I love tea."], catch_exceptions=False)
        run(runner, "process")
    finally:
        logger = logging.getLogger("llm_kinetaios")
        for handler in [h for h in logger.handlers if getattr(h, "baseFilename", None)]:
            logger.removeHandler(handler)
            handler.close()
    lines = [l for l in log_path().read_text().splitlines() if "(extract)" in l]
    assert len(lines) == 1 and "'added': 1" in lines[0]
    assert "answer" not in lines[0] and "User love tea" not in lines[0]
    # The raw answer is kept where 'llm memories log -v' shows it.
    assert "User love tea" in run(runner, "log", "-v").output
