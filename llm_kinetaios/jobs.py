"""The job queue: background work (extraction, history embedding) kept in the
``memory_jobs`` table of logs.db, so it survives a killed worker.

It owns a job's life: queued (``enqueue``), claimed by a worker (``claim``),
then done (``finish``), failed, or back in the queue for another attempt
(``fail``); which jobs a worker may take now and in what order (the current
turn's before a backlog); and the rule that no attempt starts while an
earlier one may still be running on the model's server. When to run them
(the user's idle time, batching a conversation's turns) is the worker's
business (worker.py), the queue's only consumer.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Iterable, Sequence

from .store import MemoryStore, now_ms

# A job marked running for longer than this, or whose worker has died, is
# taken to be abandoned and is picked up again (once its attempt's deadline,
# below, has passed).
STALE_JOB_SECONDS = 600
MAX_JOB_ATTEMPTS = 3
# A failed job waits this long before it is tried again, so a network
# outage is not hammered by immediate retries.
RETRY_DELAY_SECONDS = 30
# Jobs older than this are a backlog: they run after the current turn's.
BACKLOG_SECONDS = 120


@dataclass
class Job:
    id: int
    kind: str
    payload: dict
    attempts: int
    created_at: int = 0


class JobQueue:
    """The queue in one store's database. Every method is one short
    transaction, as the store's are."""

    def __init__(self, store: MemoryStore):
        self.store = store
        self.db = store.db

    def enqueue(self, kind: str, payload: dict) -> int:
        "Queue background work; returns the job id."
        with self.store.transaction():
            cursor = self.db.execute(
                "insert into memory_jobs (kind, payload, status, attempts, created_at) "
                "values (?, ?, 'pending', 0, ?)",
                [kind, json.dumps(payload), now_ms()],
            )
        return cursor.lastrowid

    def claim_next(self, worker_pid: int | None = None, *, sole_worker: bool = False,
                   hold_seconds: int = 0) -> Job | None:
        """Take the next runnable job, atomically, or None if there is none:
        the oldest of those queued in the last BACKLOG_SECONDS, else the
        oldest of the backlog.

        Runnable: pending (a retried one only once its retry time has come),
        or running but abandoned, with attempts left. Abandoned means its
        worker died or it is older than STALE_JOB_SECONDS; a caller holding
        the single-worker lock passes ``sole_worker=True``, and then every job
        still marked running is abandoned, since no other worker can exist.
        ``hold_seconds``: how long the attempt may run (its timeout); no
        other attempt starts before then, unless a caller says ``eager``.
        """
        first = self.runnable(1, sole_worker=sole_worker, eager=True)
        claimed = self.claim([job.id for job in first], worker_pid, sole_worker=sole_worker,
                             eager=True, hold_seconds=hold_seconds)
        return claimed[0] if claimed else None

    def claim(self, job_ids: Sequence[int], worker_pid: int | None = None, *,
              sole_worker: bool = False, eager: bool = False, hold_seconds: int = 0) -> list[Job]:
        """Claim those of ``job_ids`` that are still runnable, atomically, in
        queue order: one attempt over them all (a batch is one model call)."""
        worker_pid = worker_pid or os.getpid()
        wanted = set(job_ids)
        conn = self.db.conn
        conn.execute("begin immediate")
        try:
            claimed = []
            now = now_ms()
            for job in self._runnable(sole_worker, eager, now):
                if job.id not in wanted:
                    continue
                conn.execute(
                    "update memory_jobs set status = 'running', worker_pid = ?, started_at = ?, "
                    "next_attempt_at = ?, attempts = attempts + 1 where id = ?",
                    [worker_pid, now, now + hold_seconds * 1000, job.id],
                )
                job.attempts += 1
                claimed.append(job)
            conn.execute("commit")
            return claimed
        except BaseException:
            conn.execute("rollback")
            raise

    def runnable(self, limit: int | None = None, *, sole_worker: bool = False,
                 eager: bool = False) -> list[Job]:
        """The next jobs a worker would take, in queue order, without claiming
        them. ``eager`` (``llm memories process``: the user asked for it now)
        also takes an abandoned job whose last attempt may still be running."""
        jobs = []
        for job in self._runnable(sole_worker, eager, now_ms()):
            jobs.append(job)
            if limit is not None and len(jobs) >= limit:
                break
        return jobs

    def runnable_count(self, *, eager: bool = True) -> int:
        "How many jobs a worker could take now."
        return len(self.runnable(eager=eager))

    def _runnable(self, sole_worker: bool, eager: bool, now: int) -> Iterable[Job]:
        stale_before = now - STALE_JOB_SECONDS * 1000
        retry_before = now - RETRY_DELAY_SECONDS * 1000
        # Jobs queued in the last BACKLOG_SECONDS first, oldest first among
        # them: the turn that just ended is not kept waiting behind a backlog
        # queued while no worker ran (LLM_KINETAIOS_WORKER=off).
        rows = self.db.execute(
            "select id, kind, payload, attempts, status, worker_pid, started_at, finished_at, "
            "next_attempt_at, created_at from memory_jobs where status in ('pending', 'running') "
            "and attempts < ? order by created_at < ?, id",
            [MAX_JOB_ATTEMPTS, now - BACKLOG_SECONDS * 1000],
        ).fetchall()
        for (job_id, kind, payload, attempts, status, pid, started_at, finished_at,
             next_attempt_at, created_at) in rows:
            if status == "running":
                if not sole_worker and (started_at or 0) >= stale_before and _process_alive(pid):
                    continue  # a live worker has it
                if not eager and (next_attempt_at or 0) > now:
                    continue  # its worker is gone, but the model call it made may still run
            elif attempts and (
                (next_attempt_at or 0) > now if next_attempt_at is not None
                else (finished_at or 0) > retry_before
            ):
                continue  # failed recently; back off
            yield Job(job_id, kind, json.loads(payload), attempts, created_at)

    def finish(self, job_id: int, result: dict | None = None) -> None:
        with self.store.transaction():
            self.db.execute(
                "update memory_jobs set status = 'done', finished_at = ?, result = ?, "
                "error = null where id = ?",
                [now_ms(), json.dumps(result or {}), job_id],
            )

    def fail(self, job_id: int, error: str, *, retry: bool = False,
             result: dict | None = None, retry_in: int = RETRY_DELAY_SECONDS) -> None:
        """Record a failure; with retry=True the job goes back in the queue,
        to be tried again in ``retry_in`` seconds, unless it has used up
        MAX_JOB_ATTEMPTS. ``result`` keeps what the attempt produced all the
        same (the model's raw answer)."""
        now = now_ms()
        with self.store.transaction():
            self.db.execute(
                "update memory_jobs set status = case when ? and attempts < ? "
                "then 'pending' else 'failed' end, finished_at = ?, error = ?, "
                "next_attempt_at = ?, result = coalesce(?, result) where id = ?",
                [retry, MAX_JOB_ATTEMPTS, now, error, now + retry_in * 1000,
                 json.dumps(result) if result is not None else None, job_id],
            )

    def pending_count(self) -> int:
        return self.db["memory_jobs"].count_where("status in ('pending', 'running')")

    def newest_created_at(self) -> int | None:
        "When the newest job was queued (ms), or None for an empty queue."
        return self.db.execute("select max(created_at) from memory_jobs").fetchone()[0]

    def recent(self, limit: int | None = 20, kind: str | None = None) -> list[dict]:
        "The newest jobs (of one kind, if given), for ``llm memories log``."
        where, params = ("where kind = ?", [kind]) if kind else ("", [])
        rows = self.db.query(
            f"select * from memory_jobs {where} order by id desc limit ?",
            params + [limit if limit else -1],  # 0 or None: all, as llm logs -n 0
        )
        return [
            {**row, "payload": json.loads(row["payload"]), "result": json.loads(row["result"])
             if row["result"] else None}
            for row in rows
        ]


def _process_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed worker nobody has reaped yet is a zombie: dead
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True
