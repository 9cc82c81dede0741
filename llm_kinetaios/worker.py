"""The background worker: drains the job queue in a process of its own.

After a response, the wrapper queues an extraction job in logs.db and starts
``python -m llm_kinetaios.worker`` detached from the terminal, so a one-shot
``llm`` returns to the shell at once and ``llm chat`` takes the next message
while extraction runs. A lock file keeps one worker at a time; a job left
"running" by a killed worker is picked up again by the next one, once the
call it made has had its timeout to finish.

The worker decides when extraction runs (``Schedule``): not while the user
is likely to send the next turn, so a local one-slot server is free for it.
It waits until no turn has started or ended for ``extraction_idle_seconds``,
then reads each conversation's pending turns in one call (``group_turns``);
a turn sent while it waits joins the batch. It exits when the queue is
empty, or after WORKER_LIFETIME_SECONDS of waiting. Each call has its
model's timeout (``extraction_timeouts``; longer for local models).

``LLM_KINETAIOS_WORKER`` chooses how jobs run: ``background`` (the default),
``inline`` (in the calling process, after the answer, without the idle wait:
for debugging, and for tests whose fake models live in-process) or ``off``
(queue only; run ``llm memories process`` to drain the queue).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from logging.handlers import RotatingFileHandler

import llm

from .config import Settings, load_settings, parse_timeout_entry
from .extraction import ExtractionError, Turn, extract_facts
from .jobs import MAX_JOB_ATTEMPTS, RETRY_DELAY_SECONDS, Job, JobQueue
from .store import MemoryStore, describe_sqlite_error, now_ms

log = logging.getLogger("llm_kinetaios")

LOG_FILENAME = "kinetaios.log"
LOCK_FILENAME = "kinetaios-worker.lock"
WAITER_LOCK_FILENAME = "kinetaios-worker-waiting.lock"
# How long one job may run (extraction by a cloud model; setting
# extraction_timeouts overrides it per model).
JOB_TIMEOUT_SECONDS = 300
WORKER_MODE_ENV = "LLM_KINETAIOS_WORKER"


def log_path():
    return llm.user_dir() / LOG_FILENAME


def configure_file_logging() -> None:
    "Send the plugin's log to kinetaios.log (shown by ``llm memories log``)."
    path = log_path()
    if any(getattr(h, "baseFilename", None) == str(path) for h in log.handlers):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=1_000_000, backupCount=1)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)


def worker_mode() -> str:
    mode = os.environ.get(WORKER_MODE_ENV, "background").strip().lower()
    return mode if mode in ("background", "inline", "off") else "background"


def start_worker() -> None:
    "Have the queue drained, the way LLM_KINETAIOS_WORKER says. Never raises."
    mode = worker_mode()
    try:
        if mode == "inline":
            run_queue()
        elif mode == "background":
            subprocess.Popen(
                [sys.executable, "-m", "llm_kinetaios.worker"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # survives the terminal closing, gets no ^C
                close_fds=True,
            )
    except Exception:
        log.exception("could not start the memory worker")


@contextmanager
def worker_lock(filename: str = LOCK_FILENAME):
    """Yields True if this process holds the lock, else False: the
    single-worker lock, which running jobs needs, or (``WAITER_LOCK_FILENAME``)
    the one a background worker holds while it waits for the user to go idle."""
    path = llm.user_dir() / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_queue(store: MemoryStore | None = None, settings: Settings | None = None, *,
              patient: bool = False) -> int:
    """Process jobs until the queue is empty; returns how many were processed.

    ``patient`` (the background worker): extraction waits until the user has
    been idle long enough (``Schedule``), and a job whose last attempt may
    still be running on the model's server waits for that attempt's deadline.
    Otherwise (``llm memories process``, inline mode) everything runs now.
    Either way a conversation's pending turns are extracted in one call.

    If another worker holds the lock this returns 0 at once: that worker will
    see the new job. After releasing the lock the queue is checked again, so
    a job queued just as a worker finished is not stranded.
    """
    own_store = store is None
    store = store or MemoryStore.open()
    settings = settings or load_settings()
    queue = JobQueue(store)
    schedule = Schedule(settings)
    processed = 0
    # WAL with synchronous=NORMAL syncs at checkpoints, not at each of a job's
    # commits: still safe if the process dies, and a power cut can only roll
    # back the newest jobs, whole (they are then run again).
    synchronous = store.db.execute("pragma synchronous").fetchone()[0]
    store.db.execute("pragma synchronous = normal")
    try:
        if patient:
            return _run_patiently(store, queue, settings, schedule)
        while True:
            with worker_lock() as acquired:
                if not acquired:
                    return processed
                processed += _drain(store, queue, settings, schedule, patient=False)
            if not queue.runnable_count():
                return processed
    finally:
        if own_store:
            store.close()
        else:
            store.db.execute(f"pragma synchronous = {int(synchronous)}")


def _run_patiently(store: MemoryStore, queue: JobQueue, settings: Settings,
                   schedule: "Schedule") -> int:
    """The background worker's loop: wait (holding only the waiter lock, so
    ``llm memories process`` can still run the queue) until jobs are ready,
    run them under the worker lock, and leave when the queue is empty or
    after WORKER_LIFETIME_SECONDS (the next turn starts another worker)."""
    processed = 0
    born = time.monotonic()

    def waiting() -> list[Job]:
        return queue.runnable(BATCH_JOBS, eager=False)

    while waiting() and time.monotonic() - born <= WORKER_LIFETIME_SECONDS:
        with worker_lock(WAITER_LOCK_FILENAME) as acquired:
            if not acquired:
                return processed  # another worker waits already: it will see the new turn
            while upcoming := waiting():
                if schedule.ready(upcoming, queue):
                    with worker_lock() as running:
                        if running:
                            processed += _drain(store, queue, settings, schedule, patient=True)
                            continue
                if time.monotonic() - born > WORKER_LIFETIME_SECONDS:
                    log.info("worker leaves %d job(s) waiting for the user to go idle",
                             len(upcoming))
                    return processed
                _sleep(min(POLL_SECONDS, schedule.seconds_until_ready(upcoming, queue)))
        # The lock is released: a job queued just now, whose own worker found
        # it held, is seen by the check above.
    return processed


def _drain(store: MemoryStore, queue: JobQueue, settings: Settings, schedule: "Schedule",
           patient: bool) -> int:
    """Run the jobs that are ready, holding the worker lock, until none is:
    a patient worker's jobs wait for the user to go idle."""
    processed = 0
    while upcoming := queue.runnable(BATCH_JOBS, sole_worker=True, eager=not patient):
        ready = schedule.ready(upcoming, queue) if patient else upcoming
        if not ready:
            return processed
        groups = group_turns(ready)
        batch = prepare_batch(settings, groups, schedule)
        # Claimed one group at a time, as each starts: a killed worker costs
        # an attempt only of the jobs it was running.
        for group in groups:
            timeout = schedule.timeout(group[0])
            claimed = queue.claim([job.id for job in group], sole_worker=True,
                                  eager=not patient, hold_seconds=timeout)
            if claimed:
                process_jobs(store, claimed, settings, batch, timeout)
                processed += len(claimed)
    return processed


def _sleep(seconds: float) -> None:
    time.sleep(max(seconds, 0.05))


# Jobs run as one batch: what they share (the models, the query vectors,
# embedded in one call) is loaded once per batch.
BATCH_JOBS = 16
# At most this many turns of one conversation go into one extraction call.
MAX_TURNS_PER_CALL = 8
# A background worker waiting for the user to go idle exits after this long.
WORKER_LIFETIME_SECONDS = 3600
# How often a waiting worker looks at the queue again (reads only).
POLL_SECONDS = 2.0
# The defaults behind the extraction_idle_seconds and extraction_timeouts
# settings. A cloud model serves many users at once, so waiting is only for
# batching; a local server has one slot the user's next turn would queue behind.
IDLE_SECONDS = 10
LOCAL_IDLE_SECONDS = 120
LOCAL_JOB_TIMEOUT_SECONDS = 1800
# Plugins whose models run on this machine.
LOCAL_MODEL_PLUGINS = frozenset({"llm_gguf", "llm_ollama", "llm_mlx", "llm_llamafile",
                                 "llm_gpt4all", "llm_llama_server", "llm_llama_cpp"})
# A turn marked started this long ago and never ended died with its process.
MAX_ANSWER_SECONDS = 1800
TURN_STARTED_FILENAME = "kinetaios-turn-started"
TURN_ENDED_FILENAME = "kinetaios-turn-ended"


def note_turn(started: bool) -> None:
    """Mark that a turn started (or ended) now, for the worker's idle wait:
    the touch of a small file, no database. Never raises."""
    try:
        path = llm.user_dir() / (TURN_STARTED_FILENAME if started else TURN_ENDED_FILENAME)
        path.touch()  # an existing file's mtime is set to now, a new one's is now
    except OSError:
        pass


def _mtime_ms(name: str) -> int:
    try:
        return int((llm.user_dir() / name).stat().st_mtime * 1000)
    except OSError:
        return 0


def is_local_model(model, settings: Settings) -> bool:
    """Whether a model runs on a server of the user's own (one slot, slow):
    listed in the local_models setting, an OpenAI-compatible model whose
    api_base is this machine or a private network, or a model of a plugin
    that runs models locally."""
    import ipaddress
    from urllib.parse import urlparse

    if model.model_id in settings.local_models:
        return True
    api_base = getattr(model, "api_base", None)
    if api_base:
        host = (urlparse(str(api_base)).hostname or "").lower()
        if host == "localhost" or host.endswith((".localhost", ".local", ".lan")):
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return address.is_loopback or address.is_private or address.is_link_local
    return type(model).__module__.split(".")[0] in LOCAL_MODEL_PLUGINS


class Schedule:
    """When extraction may run, and for how long: from the settings and
    whether the extracting model is local, found once per model."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._models: dict[str, object] = {}
        self._local: dict[str, bool] = {}
        self._timeouts = dict(filter(None, map(parse_timeout_entry, settings.extraction_timeouts)))

    def model_id(self, job: Job) -> str:
        return self.settings.extraction_model or job.payload.get("model_id") or ""

    def model(self, model_id: str):
        "The model, looked up once (llm.UnknownModelError if there is none)."
        if model_id not in self._models:
            self._models[model_id] = llm.get_model(model_id)
        return self._models[model_id]

    def is_local(self, model_id: str) -> bool:
        if model_id not in self._local:
            try:
                self._local[model_id] = is_local_model(self.model(model_id), self.settings)
            except Exception:  # unknown model: the job itself will say so
                self._local[model_id] = model_id in self.settings.local_models
        return self._local[model_id]

    def idle_seconds(self, job: Job) -> int:
        "How long the user must have been idle before this job runs."
        if self.settings.extraction_idle_seconds is not None:
            return self.settings.extraction_idle_seconds
        if job.kind != "extract":  # embedding history: no model call, the short wait
            return IDLE_SECONDS
        return LOCAL_IDLE_SECONDS if self.is_local(self.model_id(job)) else IDLE_SECONDS

    def timeout(self, job: Job) -> int:
        if job.kind != "extract":
            return JOB_TIMEOUT_SECONDS
        model_id = self.model_id(job)
        if model_id in self._timeouts:
            return self._timeouts[model_id]
        return LOCAL_JOB_TIMEOUT_SECONDS if self.is_local(model_id) else JOB_TIMEOUT_SECONDS

    @staticmethod
    def user_activity(queue: JobQueue) -> tuple[int, bool]:
        """(when the user last did something, ms; whether a turn is under
        way now). A turn is under way from its start until its end is marked."""
        started, ended = _mtime_ms(TURN_STARTED_FILENAME), _mtime_ms(TURN_ENDED_FILENAME)
        last = max(started, ended, queue.newest_created_at() or 0)
        answering = started > ended and now_ms() - started < MAX_ANSWER_SECONDS * 1000
        return last, answering

    def ready(self, jobs: list[Job], queue: JobQueue) -> list[Job]:
        "The jobs that may run now: the others wait for the user to go idle."
        last, answering = self.user_activity(queue)
        idle_ms = now_ms() - last
        return [job for job in jobs if not answering and idle_ms >= self.idle_seconds(job) * 1000]

    def seconds_until_ready(self, jobs: list[Job], queue: JobQueue) -> float:
        last, answering = self.user_activity(queue)
        if answering or not jobs:
            return POLL_SECONDS
        soonest = min(last + self.idle_seconds(job) * 1000 for job in jobs)
        return max((soonest - now_ms()) / 1000, 0)


def group_turns(jobs: list[Job]) -> list[list[Job]]:
    """One group per extraction call: a conversation's pending turns
    together (oldest first, at most MAX_TURNS_PER_CALL), every other job on
    its own, in queue order."""
    groups: list[list[Job]] = []
    open_groups: dict[tuple, list[Job]] = {}
    for job in jobs:
        payload = job.payload
        if job.kind != "extract" or not payload.get("conversation_id"):
            groups.append([job])
            continue
        key = (payload["conversation_id"], payload.get("model_id"), payload.get("project"))
        group = open_groups.get(key)
        if group is None or len(group) >= MAX_TURNS_PER_CALL:
            group = open_groups[key] = []
            groups.append(group)
        group.append(job)
    for group in groups:
        group.sort(key=lambda job: job.id)
    return groups


class JobBatch:
    """What the jobs of one batch share: the embedding model (answering the
    recall queries of every extraction call from one batched call) and the
    chat models, each looked up once."""

    def __init__(self, settings: Settings, groups: list[list[Job]], schedule: "Schedule | None" = None):
        from .embeddings import PrecomputedQueries, resolve_embedding_model

        self._schedule = schedule or Schedule(settings)
        self.embedding_model = resolve_embedding_model(settings)
        if self.embedding_model is not None:
            queries = [recall_query(group) for group in groups if group[0].kind == "extract"]
            try:
                self.embedding_model = PrecomputedQueries(self.embedding_model, queries)
            except Exception:
                log.exception("batched query embedding failed; embedding per job")

    def model(self, model_id: str):
        return self._schedule.model(model_id)


def recall_query(group: list[Job]) -> str:
    "What finds the known facts related to a group's turns: their user messages."
    return "\n".join(job.payload.get("user", "") for job in group)


def prepare_batch(settings: Settings, groups: list[list[Job]],
                  schedule: "Schedule | None" = None) -> JobBatch | None:
    "A JobBatch for these groups of jobs, or None (each call then loads what it needs)."
    try:
        return JobBatch(settings, groups, schedule)
    except Exception:
        log.exception("could not prepare a batch of jobs; running them one by one")
        return None


class _JobTimeout(Exception):
    pass


@contextmanager
def _time_limit(seconds: int):
    "SIGALRM-based limit, only in the main thread of a worker process."
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise _JobTimeout(f"timed out after {seconds}s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# Failures that will not go away by trying again.
_PERMANENT = (ExtractionError, llm.UnknownModelError, llm.NeedsKeyException, ValueError)


def process_jobs(store: MemoryStore, jobs: list[Job], settings: Settings,
                 batch: JobBatch | None = None, timeout: int | None = None) -> None:
    """Run one group of claimed jobs (one call) and record its outcome on
    each job; never raises (but for KeyboardInterrupt)."""
    queue = JobQueue(store)
    first = jobs[0]
    timeout = timeout or Schedule(settings).timeout(first)
    started = time.monotonic()
    try:
        runner = JOB_KINDS.get(first.kind)
        if runner is None:
            raise ValueError(f"unknown job kind {first.kind!r}")
        with _time_limit(timeout):
            # An extraction call reads the whole group's turns.
            payload = [job.payload for job in jobs] if first.kind == "extract" else first.payload
            result = runner(store, payload, settings, batch)
    except Exception as ex:
        _record_failure(queue, jobs, ex, timeout)
        return
    result["seconds"] = round(time.monotonic() - started, 3)
    if len(jobs) > 1:
        result["turns"] = len(jobs)
    # The newest turn's job holds the call's result; the others point to it.
    for job in jobs[:-1]:
        queue.finish(job.id, {"batched_with": jobs[-1].id})
    queue.finish(jobs[-1].id, result)
    # One short line per call: the raw answer and the facts are in the job's
    # row, where 'llm memories log -v' shows them.
    log.info("job %s (%s): %s", ",".join(str(job.id) for job in jobs), first.kind,
             {k: v for k, v in result.items() if k not in ("answer", "rejected", "facts")})


def _record_failure(queue: JobQueue, jobs: list[Job], ex: Exception, timeout: int) -> None:
    """Put failed jobs back in the queue or give up on them. A timed-out
    call may still be running on the server: the next attempt waits as long
    again, so the same prompt is never sent while the first one may run."""
    first = jobs[0]
    retry = not isinstance(ex, _PERMANENT) and first.attempts < MAX_JOB_ATTEMPTS
    message = f"{type(ex).__name__}: {ex}"
    if "database" in message.lower():
        message = describe_sqlite_error(ex, "logs.db")
    log.warning("job %s (%s) failed%s: %s", ",".join(str(job.id) for job in jobs), first.kind,
                ", will retry" if retry else "", message)
    # The model's raw answer, as far as it came (a timeout keeps the
    # part received), so 'llm memories log -v' shows what went wrong.
    answer = getattr(ex, "answer", None)
    retry_in = max(timeout, RETRY_DELAY_SECONDS) if isinstance(ex, _JobTimeout) else RETRY_DELAY_SECONDS
    for job in jobs:
        try:
            queue.fail(job.id, message, retry=retry, retry_in=retry_in,
                       result={"answer": answer} if answer is not None and job is jobs[-1] else None)
        except Exception:
            log.exception("could not record the failure of job %s", job.id)


def run_extraction(store: MemoryStore, payloads: list[dict] | dict, settings: Settings,
                   batch: JobBatch | None = None) -> dict:
    """Extract facts from a conversation's pending turns (oldest first) in
    one call and send them through the write path. The facts are the newest
    turn's: its response id, date and project."""
    from .embeddings import resolve_embedding_model
    from .recall import recall
    from .write import write_memories

    payloads = [payloads] if isinstance(payloads, dict) else payloads
    payload = payloads[-1]
    model_id = settings.extraction_model or payload["model_id"]
    project = payload.get("project")  # where the turn ran; None: global facts only
    model = batch.model(model_id) if batch else llm.get_model(model_id)
    user_text = payload.get("user", "")
    embedding_model = batch.embedding_model if batch else resolve_embedding_model(settings)
    # Related facts already stored, so the model does not restate them.
    known = recall(
        store, "\n".join(p.get("user", "") for p in payloads),
        Settings(**{**settings.to_dict(), "recall_limit": 10,
                    "min_cosine_hits": 1, "min_keyword_hits": 1}),
        conversation_id=payload.get("conversation_id"),
        embedding_model=embedding_model, mark_used=False, project=project,
    )
    known_memories = [m for m in known.memories] if known.method != "recent" else []
    turn = Turn(user_text, payload.get("assistant", ""), tuple(m.content for m in known_memories),
                project=project, created_at=payload.get("created_at"),
                earlier=tuple((p.get("user", ""), p.get("assistant", "")) for p in payloads[:-1]))
    extracted = extract_facts(model, turn)
    pinned_at = now_ms()
    report = write_memories(
        store,
        [
            {
                "content": fact,
                "conversation_id": payload.get("conversation_id"),
                "source": "extracted",
                "source_response_id": payload.get("response_id"),
                "created_at": payload.get("created_at"),
                "project": project if i in extracted.project else None,
                # A standing instruction is pinned only if the user said so (auto-pin).
                "pinned_at": pinned_at if settings.auto_pin and i in extracted.instructions else None,
                # The extraction call itself said which known fact this replaces:
                # supersession at no extra model call.
                "supersedes": known_memories[extracted.updates[i]].id
                if i in extracted.updates else None,
            }
            for i, fact in enumerate(extracted.facts)
        ],
        embedding_model=embedding_model,
        max_chars=settings.max_memory_chars,
    )
    return {"facts": extracted.facts, "model": model.model_id, **report.to_dict(),
            "answer": extracted.answer, "rejected": extracted.rejected,
            "project_facts": len(extracted.project), "instructions": len(extracted.instructions)}


HISTORY_BATCH = 200
HISTORY_TEXT_CHARS = 2000


def index_history(store: MemoryStore, payload: dict, settings: Settings,
                  batch: JobBatch | None = None) -> dict:
    """Embed logged conversation turns that have no vector yet, newest first,
    so recall_memory can search history by meaning as well as by keywords."""
    from .embeddings import embed_passages, resolve_embedding_model, to_blob
    from .store import now_ms

    model = batch.embedding_model if batch else resolve_embedding_model(settings)
    if model is None or not store.db["turn_search"].exists():
        return {"embedded": 0}
    rows = store.db.execute(
        """
        select turn_search.turn_id, coalesce(turn_search.prompt, ''), coalesce(turn_search.response, '')
        from turn_search left join kinetaios_turn_embeddings e
          on e.turn_id = turn_search.turn_id and e.embedding_model = ?
        where e.turn_id is null order by turn_search.id desc limit ?
        """,
        [model.model_id, HISTORY_BATCH],
    ).fetchall()
    if not rows:
        return {"embedded": 0}
    texts = [f"{prompt}\n{response}"[:HISTORY_TEXT_CHARS] for _, prompt, response in rows]
    vectors = embed_passages(model, texts)
    with store.transaction():
        store.db["kinetaios_turn_embeddings"].upsert_all(
            [
                {"turn_id": turn_id, "embedding": to_blob(vector),
                 "embedding_model": model.model_id, "embedded_at": now_ms()}
                for (turn_id, _, _), vector in zip(rows, vectors)
            ],
            pk="turn_id",
        )
    return {"embedded": len(rows), "model": model.model_id}


JOB_KINDS = {"extract": run_extraction, "index_history": index_history}


LOG_WAIT_SECONDS = 3.0


def wait_until_logged(store: MemoryStore, seconds: float = LOG_WAIT_SECONDS) -> None:
    """Wait (reading only) until llm has logged the responses of pending jobs.

    The worker starts the moment an answer ends, which is when llm writes it
    to logs.db. llm's logging upgrades a read transaction to a write, and
    fails outright if another process commits in between, so the worker
    keeps out of the way until the turn is in (or --no-log made it never come).
    """
    deadline = time.monotonic() + seconds
    if not store.db["turns"].exists():
        return
    ids = [
        json.loads(row[0]).get("response_id")
        for row in store.db.execute("select payload from memory_jobs where status = 'pending'")
    ]
    ids = sorted({i for i in ids if i})  # a turn queues several jobs: one id each
    while ids and time.monotonic() < deadline:
        marks = ", ".join("?" for _ in ids)
        logged = store.db.execute(f"select count(*) from turns where id in ({marks})", ids).fetchone()[0]
        if logged == len(ids):
            return
        time.sleep(0.05)


def main() -> None:
    configure_file_logging()
    try:
        store = MemoryStore.open()
        try:
            wait_until_logged(store)
            run_queue(store, patient=True)
            # Off the user's path: memories stored before the write-time
            # check existed would otherwise be checked in every turn that
            # shows them.
            from .write import check_stored

            with worker_lock() as acquired:
                if acquired:
                    check_stored(store)
        finally:
            store.close()
    except Exception:
        log.exception("memory worker crashed")


if __name__ == "__main__":
    main()
