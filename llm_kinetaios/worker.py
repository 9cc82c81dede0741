"""The background worker: drains the job queue in a process of its own.

After a response, the wrapper queues an extraction job in logs.db and starts
``python -m llm_kinetaios.worker`` detached from the terminal, so a one-shot
``llm`` returns to the shell at once and ``llm chat`` takes the next message
while extraction runs. A lock file keeps one worker at a time; a job left
"running" by a killed worker is picked up again by the next one.

``LLM_KINETAIOS_WORKER`` chooses how jobs run: ``background`` (the default),
``inline`` (in the calling process, after the answer: for debugging, and for
tests whose fake models live in-process) or ``off`` (queue only; run
``llm memories process`` to drain the queue).
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

from .config import Settings, load_settings
from .extraction import ExtractionError, Turn, extract_facts
from .store import MAX_JOB_ATTEMPTS, Job, MemoryStore, describe_sqlite_error

log = logging.getLogger("llm_kinetaios")

LOG_FILENAME = "kinetaios.log"
LOCK_FILENAME = "kinetaios-worker.lock"
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
def worker_lock():
    "Yields True if this process holds the single-worker lock, else False."
    path = llm.user_dir() / LOCK_FILENAME
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


def run_queue(store: MemoryStore | None = None, settings: Settings | None = None) -> int:
    """Process jobs until the queue is empty; returns how many were processed.

    If another worker holds the lock this returns 0 at once: that worker will
    see the new job. After releasing the lock the queue is checked again, so
    a job queued just as a worker finished is not stranded.
    """
    own_store = store is None
    store = store or MemoryStore.open()
    settings = settings or load_settings()
    processed = 0
    # WAL with synchronous=NORMAL syncs at checkpoints, not at each of a job's
    # commits: still safe if the process dies, and a power cut can only roll
    # back the newest jobs, whole (they are then run again).
    synchronous = store.db.execute("pragma synchronous").fetchone()[0]
    store.db.execute("pragma synchronous = normal")
    try:
        while True:
            with worker_lock() as acquired:
                if not acquired:
                    return processed
                while upcoming := store.runnable_jobs(BATCH_JOBS, sole_worker=True):
                    batch = prepare_batch(settings, upcoming)
                    # Claimed one at a time, as each starts: a killed worker
                    # costs an attempt only of the job it was running.
                    for _ in upcoming:
                        job = store.claim_job(sole_worker=True)
                        if job is None:
                            break
                        process_job(store, job, settings, batch)
                        processed += 1
            if not store.runnable_job_count():
                return processed
    finally:
        if own_store:
            store.close()
        else:
            store.db.execute(f"pragma synchronous = {int(synchronous)}")


# Jobs run as one batch: what they share (the models, the query vectors,
# embedded in one call) is loaded once per batch.
BATCH_JOBS = 16


class JobBatch:
    """What the jobs of one batch share: the embedding model (answering the
    recall queries of every extraction job from one batched call) and the
    chat models, each looked up once."""

    def __init__(self, settings: Settings, jobs: list[Job]):
        from .embeddings import PrecomputedQueries, resolve_embedding_model

        self._models: dict[str, object] = {}
        self.embedding_model = resolve_embedding_model(settings)
        if self.embedding_model is not None:
            queries = [job.payload.get("user", "") for job in jobs if job.kind == "extract"]
            try:
                self.embedding_model = PrecomputedQueries(self.embedding_model, queries)
            except Exception:
                log.exception("batched query embedding failed; embedding per job")

    def model(self, model_id: str):
        if model_id not in self._models:
            self._models[model_id] = llm.get_model(model_id)
        return self._models[model_id]


def prepare_batch(settings: Settings, jobs: list[Job]) -> JobBatch | None:
    "A JobBatch for these jobs, or None (each job then loads what it needs)."
    try:
        return JobBatch(settings, jobs)
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


def process_job(store: MemoryStore, job: Job, settings: Settings,
                batch: JobBatch | None = None) -> None:
    "Run one job and record its outcome; never raises (but for KeyboardInterrupt)."
    started = time.monotonic()
    try:
        runner = JOB_KINDS.get(job.kind)
        if runner is None:
            raise ValueError(f"unknown job kind {job.kind!r}")
        with _time_limit(JOB_TIMEOUT_SECONDS):
            result = runner(store, job.payload, settings, batch)
    except Exception as ex:
        retry = not isinstance(ex, _PERMANENT) and job.attempts < MAX_JOB_ATTEMPTS
        message = f"{type(ex).__name__}: {ex}"
        if "database" in message.lower():
            message = describe_sqlite_error(ex, "logs.db")
        log.warning("job %s (%s) failed%s: %s", job.id, job.kind,
                    ", will retry" if retry else "", message)
        # The model's raw answer, as far as it came (a timeout keeps the
        # part received), so 'llm memories log -v' shows what went wrong.
        answer = getattr(ex, "answer", None)
        try:
            store.fail_job(job.id, message, retry=retry,
                           result={"answer": answer} if answer is not None else None)
        except Exception:
            log.exception("could not record the failure of job %s", job.id)
        return
    result["seconds"] = round(time.monotonic() - started, 3)
    store.finish_job(job.id, result)
    # One short line per job: the raw answer and the facts are in the job's
    # row, where 'llm memories log -v' shows them.
    log.info("job %s (%s): %s", job.id, job.kind,
             {k: v for k, v in result.items() if k not in ("answer", "rejected", "facts")})


def run_extraction(store: MemoryStore, payload: dict, settings: Settings,
                   batch: JobBatch | None = None) -> dict:
    """Extract facts from one turn and send them through the write path."""
    from .embeddings import resolve_embedding_model
    from .recall import recall
    from .store import now_ms
    from .write import write_memories

    model_id = settings.extraction_model or payload["model_id"]
    project = payload.get("project")  # where the turn ran; None: global facts only
    model = batch.model(model_id) if batch else llm.get_model(model_id)
    user_text = payload.get("user", "")
    embedding_model = batch.embedding_model if batch else resolve_embedding_model(settings)
    # Related facts already stored, so the model does not restate them.
    known = recall(
        store, user_text, Settings(**{**settings.to_dict(), "recall_limit": 10,
                                      "min_cosine_hits": 1, "min_keyword_hits": 1}),
        conversation_id=payload.get("conversation_id"),
        embedding_model=embedding_model, mark_used=False, project=project,
    )
    known_memories = [m for m in known.memories] if known.method != "recent" else []
    turn = Turn(user_text, payload.get("assistant", ""), tuple(m.content for m in known_memories),
                project=project, created_at=payload.get("created_at"))
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
            run_queue(store)
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
