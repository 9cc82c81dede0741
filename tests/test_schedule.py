"""When extraction runs: after the user goes idle, a conversation's pending
turns in one call, never a second call while the first may still run."""

import time

import pytest
from llm.cli import cli

import kinetaios_fakes
from llm_kinetaios import worker
from llm_kinetaios.jobs import JobQueue


def prompt(runner, *args):
    result = runner.invoke(cli, ["prompt", "-m", "memory-fake", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def extraction_prompts(fake):
    return ["\n".join(text for _, text in call) for call in fake.extraction_calls]


def test_a_conversations_pending_turns_are_extracted_in_one_call(runner, store, fake, monkeypatch):
    # "bees" is a word of the prompt's examples too: a fact naming it is kept
    # only because one of the batch's turns (not the newest) said it.
    monkeypatch.setenv("LLM_KINETAIOS_WORKER", "off")
    prompt(runner, "I keep bees.")
    prompt(runner, "-c", "I live in Porto.")
    prompt(runner, "-c", "I play the cello.")
    assert fake.extraction_calls == []
    result = runner.invoke(cli, ["memories", "process"], catch_exceptions=False)
    assert "Processed 4 jobs" in result.output  # three turns and the history index
    [call] = extraction_prompts(fake)
    assert call.index("I keep bees.") < call.index("I live in Porto.") < call.index("I play the cello.")
    assert {m.content for m in store.list()} == {
        "User keep bees", "User live in Porto", "User play the cello"}
    jobs = JobQueue(store).recent(kind="extract")
    assert [job["status"] for job in jobs] == ["done"] * 3
    newest, *earlier = jobs
    assert newest["result"]["turns"] == 3 and newest["result"]["added"] == 3
    assert all(job["result"] == {"batched_with": newest["id"]} for job in earlier)


def test_turns_of_different_conversations_are_not_mixed(runner, store, fake, monkeypatch):
    monkeypatch.setenv("LLM_KINETAIOS_WORKER", "off")
    prompt(runner, "I keep bees.")
    prompt(runner, "I live in Porto.")  # no -c: a conversation of its own
    runner.invoke(cli, ["memories", "process"], catch_exceptions=False)
    calls = extraction_prompts(fake)
    assert len(calls) == 2 and not any("I keep bees." in c and "I live in Porto." in c for c in calls)


def test_a_turn_sent_during_the_idle_wait_joins_the_batch_with_a_one_second_idle_setting(
    runner, store, fake, settings, monkeypatch
):
    settings(extraction_idle_seconds=1)
    monkeypatch.setenv("LLM_KINETAIOS_WORKER", "off")
    prompt(runner, "I keep bees.")
    sleeps = []

    def sleep(seconds):
        if not sleeps:  # the worker is waiting: the user sends the next turn
            assert fake.extraction_calls == []
            prompt(runner, "-c", "I live in Porto.")
        sleeps.append(seconds)
        time.sleep(seconds)

    monkeypatch.setattr(worker, "_sleep", sleep)
    assert worker.run_queue(store, patient=True) == 3  # two turns and the history index
    [call] = extraction_prompts(fake)
    assert "I keep bees." in call and "I live in Porto." in call


def test_the_worker_waits_while_a_turn_is_under_way_and_until_the_idle_time_with_a_one_second_idle_setting(
    store, fake, settings, monkeypatch
):
    settings(extraction_idle_seconds=1)
    JobQueue(store).enqueue("extract", {"model_id": "fake", "user": "I keep bees.",
                                        "assistant": "ok", "conversation_id": "c1"})
    worker.note_turn(started=True)  # the next turn's answer is being written
    waits = []

    def sleep(seconds):
        assert fake.extraction_calls == []
        waits.append(time.monotonic())
        if len(waits) == 3:
            worker.note_turn(started=False)  # ... and now it has ended
            waits.append(ended := time.monotonic())
            ended_at.append(ended)
        time.sleep(min(seconds, 0.2))

    ended_at = []
    monkeypatch.setattr(worker, "_sleep", sleep)
    extracted_at = []
    original = kinetaios_fakes.FakeChat._answer

    def answer(self, prompt, stream, response):
        extracted_at.append(time.monotonic())
        yield from original(self, prompt, stream, response)

    monkeypatch.setattr(kinetaios_fakes.FakeChat, "_answer", answer)
    assert worker.run_queue(store, patient=True) == 1
    assert extracted_at[0] - ended_at[0] >= 0.9  # idle for the setting's second, then ran


def test_a_worker_with_nothing_to_do_exits_at_once(store):
    started = time.monotonic()
    assert worker.run_queue(store, patient=True) == 0
    assert time.monotonic() - started < 5


def test_a_waiting_worker_exits_after_its_lifetime_leaving_the_job_queued_with_a_long_idle_setting(
    store, fake, settings, monkeypatch
):
    settings(extraction_idle_seconds=3600)
    monkeypatch.setattr(worker, "WORKER_LIFETIME_SECONDS", 0.5)
    monkeypatch.setattr(worker, "POLL_SECONDS", 0.1)
    JobQueue(store).enqueue("extract", {"model_id": "fake", "user": "I keep bees.", "assistant": "ok"})
    assert worker.run_queue(store, patient=True) == 0
    assert fake.extraction_calls == []
    assert [job["status"] for job in JobQueue(store).recent()] == ["pending"]


def _hang_after_a_partial_answer(monkeypatch):
    def answer(self, prompt, stream, response):
        if prompt.system and prompt.system.startswith(kinetaios_fakes.EXTRACTION_MARKER):
            self.extraction_calls.append(prompt.prompt)
            yield '{"facts": ["User lo'
            time.sleep(10)  # the server is slow: the call times out here
            yield 'ves sailing"]}'
            return
        yield "echo: ok"

    monkeypatch.setattr(kinetaios_fakes.FakeChat, "_answer", answer)


def test_the_timeout_follows_the_models_setting_and_keeps_the_partial_answer_with_a_one_second_timeout_setting(
    runner, store, fake, settings, monkeypatch
):
    settings(extraction_timeouts=["fake=1"])
    _hang_after_a_partial_answer(monkeypatch)
    started = time.monotonic()
    prompt(runner, "I love sailing.")
    assert time.monotonic() - started < 8  # stopped by the model's 1 s, not the 300 s default
    [job] = JobQueue(store).recent(kind="extract")
    assert job["error"] == "_JobTimeout: timed out after 1s"
    verbose = runner.invoke(cli, ["memories", "log", "-v"], catch_exceptions=False).output
    assert 'answer: {"facts": ["User lo' in verbose


def test_no_call_is_sent_again_while_a_timed_out_attempt_may_still_run_with_a_one_second_timeout_setting(
    runner, store, fake, settings, monkeypatch
):
    settings(extraction_timeouts=["fake=1"])
    _hang_after_a_partial_answer(monkeypatch)
    prompt(runner, "I love sailing.")
    assert len(fake.extraction_calls) == 1
    queue = JobQueue(store)
    [job] = queue.recent(kind="extract")
    assert job["status"] == "pending"  # to be retried ...
    assert job["next_attempt_at"] >= job["finished_at"] + 1000  # ... not before the server is done
    assert worker.run_queue(store) == 0  # not even by 'llm memories process'
    assert worker.run_queue(store, patient=True) == 0
    assert len(fake.extraction_calls) == 1
    store.db.execute("update memory_jobs set next_attempt_at = 0")  # that time has passed
    assert [j.id for j in queue.runnable(eager=True)] == [job["id"]]


def test_a_dead_workers_call_is_not_repeated_before_its_deadline(store):
    queue = JobQueue(store)
    job_id = queue.enqueue("extract", {"model_id": "fake", "user": "I keep bees."})
    [claimed] = queue.claim([job_id], worker_pid=2**22 + 1, hold_seconds=1800)  # no such process
    assert claimed.attempts == 1
    # The background worker leaves it: the call may still run on the server.
    assert queue.runnable(sole_worker=True, eager=False) == []
    # The user asking for it now ('llm memories process') takes it.
    assert [job.id for job in queue.runnable(sole_worker=True, eager=True)] == [job_id]
    store.db.execute("update memory_jobs set next_attempt_at = 0")
    assert [job.id for job in queue.runnable(sole_worker=True, eager=False)] == [job_id]


def test_an_openai_compatible_model_on_loopback_is_local_and_gets_the_local_defaults(user_path):
    import llm

    from llm_kinetaios.config import Settings

    (user_path / "extra-openai-models.yaml").write_text(
        "- model_id: my-qwen\n  model_name: qwen\n  api_base: http://127.0.0.1:8080/v1\n"
        "- model_id: my-cloud\n  model_name: big\n  api_base: https://api.example.com/v1\n")
    settings = Settings()
    assert worker.is_local_model(llm.get_model("my-qwen"), settings)
    assert not worker.is_local_model(llm.get_model("my-cloud"), settings)
    assert not worker.is_local_model(llm.get_model("fake"), settings)
    assert worker.is_local_model(llm.get_model("fake"), Settings(local_models=["fake"]))
    schedule = worker.Schedule(Settings(extraction_timeouts=["my-cloud=45"]))
    local = worker.Job(1, "extract", {"model_id": "my-qwen"}, 0)
    cloud = worker.Job(2, "extract", {"model_id": "my-cloud"}, 0)
    assert schedule.idle_seconds(local) == worker.LOCAL_IDLE_SECONDS
    assert schedule.timeout(local) == worker.LOCAL_JOB_TIMEOUT_SECONDS
    assert schedule.idle_seconds(cloud) == worker.IDLE_SECONDS
    assert schedule.timeout(cloud) == 45


@pytest.mark.parametrize("value", ["nonsense", "fake=", "=30", "fake=0", "fake=ten"])
def test_a_malformed_timeout_setting_is_a_one_line_error(runner, value):
    result = runner.invoke(cli, ["memories", "config", "extraction-timeouts", value])
    assert result.exit_code == 1
    assert result.output.strip() == (
        "Error: extraction_timeouts takes MODEL=SECONDS entries, e.g. qwen-local=1800")
    ok = runner.invoke(cli, ["memories", "config", "extraction-timeouts", "my-qwen=1800, gpt-5=90"])
    assert ok.exit_code == 0 and '["my-qwen=1800", "gpt-5=90"]' in ok.output


def test_while_a_worker_waits_for_the_user_a_second_one_exits_and_process_still_runs_the_queue(
    runner, store, fake
):
    JobQueue(store).enqueue("extract", {"model_id": "fake", "user": "I keep bees.", "assistant": "ok"})
    with worker.worker_lock(worker.WAITER_LOCK_FILENAME) as waiting:
        assert waiting  # this test plays the waiting worker
        started = time.monotonic()
        assert worker.run_queue(store, patient=True) == 0  # a second worker leaves at once
        assert time.monotonic() - started < 5
        result = runner.invoke(cli, ["memories", "process"], catch_exceptions=False)
        assert "Processed 1 job" in result.output
    assert [m.content for m in store.list()] == ["User keep bees"]
