"""``llm memories``: see, fix and move what the plugin remembers."""

from __future__ import annotations

import datetime
import json
import re
import sqlite3
import sys
from contextlib import contextmanager
from pathlib import Path

import click
import llm

from .config import Settings, coerce_setting, load_settings, save_settings
from .store import Memory, MemoryNotFound, MemoryStore, StoreError, describe_sqlite_error

MAX_IMPORT_BYTES = 50 * 1024 * 1024
EXPORT_VERSION = 1
EXPORT_FIELDS = (
    "id",
    "content",
    "conversation_id",
    "source",
    "source_response_id",
    "created_at",
    "updated_at",
    "last_used_at",
    "use_count",
    "superseded_by",
    "valid_until",
    "project",
    "pinned_at",
)


def database_option(fn):
    "``-d/--database``, as on ``llm logs``, ``llm similar`` and ``llm collections``."
    return click.option(
        "-d",
        "--database",
        type=click.Path(dir_okay=False),
        help="Path to the log database (default: llm's logs.db)",
    )(fn)


@contextmanager
def open_store(database: str | None = None, *, create: bool = True):
    """The store for a command; database failures become clean click errors.

    A command that only reads (``create=False``) refuses a ``-d`` path that
    does not exist, as ``llm logs -d`` does, instead of creating an empty
    database there."""
    from .store import logs_db_path

    path = Path(database) if database else logs_db_path()
    if database and not create and not path.exists():
        raise click.ClickException(f"No log database found at {path}")
    try:
        store = MemoryStore.open(path)
    except StoreError as ex:
        raise click.ClickException(str(ex))
    try:
        yield store
    except sqlite3.Error as ex:
        raise click.ClickException(describe_sqlite_error(ex, path))
    finally:
        store.close()


def get_memory(store: MemoryStore, memory_id: str) -> Memory:
    "The memory, or a click error naming the unknown id."
    try:
        return store.get(memory_id)
    except MemoryNotFound:
        raise click.ClickException(f"No memory with id {memory_id}")


def latest_conversation_id(store: MemoryStore) -> str:
    "The newest conversation in llm's logs, for ``-c``."
    tables = [t for t in ("threads", "conversations") if store.db[t].exists()]
    if tables:
        union = " union ".join(f"select id from {t}" for t in tables)
        row = store.db.execute(f"select id from ({union}) order by id desc limit 1").fetchone()
        if row:
            return row[0]
    raise click.ClickException("No conversations found in the logs")


def project_options(fn):
    "--project, --in-project NAME and --global: which project's memories."
    fn = click.option("global_", "--global", is_flag=True, help="Only global memories (of no project)")(fn)
    fn = click.option("--in-project", metavar="PROJECT", help="Only memories of this project (see 'llm memories projects')")(fn)
    fn = click.option("--project", is_flag=True, help="Only memories of the current project")(fn)
    return fn


def resolve_project(project: bool, in_project: str | None, global_: bool) -> str | None:
    "The project named by project_options (None: no project filter)."
    if sum(bool(x) for x in (project, in_project, global_)) > 1:
        raise click.UsageError("Use one of --project, --in-project and --global")
    if project:
        return require_current_project()
    return in_project


def require_current_project() -> str:
    from .projects import current_project

    found = current_project()
    if found is None:
        raise click.ClickException("Cannot tell the current project: the working directory is unreadable")
    return found


_DURATION = re.compile(r"^\s*(\d+)\s*([hdwy]?)\s*$", re.IGNORECASE)
_DURATION_MS = {"h": 3_600_000, "d": 86_400_000, "": 86_400_000, "w": 7 * 86_400_000,
                "y": 365 * 86_400_000}


def parse_duration(text: str) -> int:
    "Milliseconds in a duration like 90d, 12w, 1y or 36h (a bare number is days)."
    match = _DURATION.match(text or "")
    if not match or int(match.group(1)) <= 0:
        raise click.BadParameter(
            f"{text!r} is not a duration like 90d, 12w, 1y or 36h", param_hint="'--unused-for'"
        )
    return int(match.group(1)) * _DURATION_MS[match.group(2).lower()]


def unused_cutoff(unused_for: str | None) -> int | None:
    "The time before which a memory unused for ``unused_for`` was last used."
    from .store import now_ms

    return now_ms() - parse_duration(unused_for) if unused_for else None


def scope_options(fn):
    fn = click.option("conversation_id", "--cid", "--conversation", help="Only memories from this conversation ID")(fn)
    fn = click.option("latest", "-c", "--current", is_flag=True, help="Only memories from the most recent conversation")(fn)
    return fn


def resolve_scope(store, latest: bool, conversation_id: str | None) -> str | None:
    if latest and conversation_id:
        raise click.UsageError("Use -c or --cid, not both")
    if latest:
        return latest_conversation_id(store)
    return conversation_id


def format_time(ms: int | None) -> str:
    if not ms:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


@contextmanager
def progress_bar(total: int, label: str = "Reading sentences"):
    "A progress bar on standard error for ``total`` items, shown from 64 on: yields its update callable."
    with click.progressbar(length=total, label=label, file=sys.stderr, show_pos=True, hidden=total < 64) as bar:
        yield bar.update


def embed_with_progress(texts: list[str], label: str = "Embedding"):
    """(vectors, model) for new memory texts with the configured embedding
    model, with a progress bar on long runs. (None, None) when there is no
    model or embedding fails: the memories are then stored without vectors."""
    from .embeddings import embed_passages_in_batches, resolve_embedding_model

    model = resolve_embedding_model(load_settings())
    if model is None or not texts:
        return None, model
    try:
        with progress_bar(len(texts), label) as advance:
            vectors = embed_passages_in_batches(model, texts, advance)
    except Exception as ex:
        click.echo(
            f"Warning: could not embed with {model.model_id} ({ex}); stored without "
            "vectors: run 'llm memories reindex' later",
            err=True,
        )
        return None, None
    return vectors, model


def memory_json(memory: Memory) -> dict:
    return {name: getattr(memory, name) for name in EXPORT_FIELDS}


@click.group()
def memories():
    """Manage what llm-kinetaios remembers about you.

    \b
    Examples:
        llm memories list
        llm memories add "I prefer metric units"
        llm memories list --search python
        llm memories export memories.json
    """


@memories.command(name="list")
@database_option
@click.option("-n", "--count", type=int, default=None, help="Number of memories to show (default and 0: all)")
@click.option("search_text", "-q", "--search", help="Only memories matching these words, best first")
@scope_options
@click.option("--history", is_flag=True, help="Include facts superseded by newer ones")
@project_options
@click.option("--pinned", is_flag=True, help="Only pinned memories")
@click.option("--unused-for", metavar="DURATION",
              help="Only memories unused for this long (90d, 12w, 1y); pinned ones are left out")
@click.option("--flagged", is_flag=True, help="Only quarantined memories, with the reason")
@click.option("json_", "--json", is_flag=True, help="Output as JSON")
def list_(count, search_text, latest, conversation_id, history, json_, database,
          project=False, in_project=None, global_=False, pinned=False, unused_for=None,
          flagged=False):
    """List memories, newest first (or best match first with --search).

    Quarantined memories (see 'llm memories approve') are marked FLAGGED.

    \b
    Examples:
        llm memories list -n 10
        llm memories list -c            # the latest conversation's
        llm memories list --search "favourite editor" --json
        llm memories list --project     # this project's
        llm memories list --unused-for 90d
        llm memories list --flagged     # awaiting approval, with the reason
    """
    wanted_project = resolve_project(project, in_project, global_)
    unused_before = unused_cutoff(unused_for)
    filters = dict(project=wanted_project, global_only=global_, pinned_only=pinned,
                   unused_before=unused_before)
    with open_store(database, create=False) as store:
        scope = resolve_scope(store, latest, conversation_id)
        if search_text:
            rows = _listed_matches(store, search_text, scope, filters, flagged)[: count or None]
        else:
            rows = store.list(conversation_id=scope, limit=count or None, history=history,
                              flagged=flagged, **filters)
    if json_:
        click.echo(json.dumps([memory_json(m) | ({"flag": m.flag} if m.flag else {})
                               for m in rows], indent=2, ensure_ascii=False))
        return
    echo_memories(rows)


def _listed_matches(store, search_text: str, scope: str | None, filters: dict,
                    flagged: bool) -> list[Memory]:
    "``list --search``: keyword matches, best first, within the scope and filters."
    rows = [memory for memory, _ in store.search(
        search_text, -1, conversation_id=scope, include_flagged=True)]
    if scope:
        rows = [m for m in rows if m.conversation_id == scope]
    if any(filters.values()):
        allowed = {m.id for m in store.list(**filters)}
        rows = [m for m in rows if m.id in allowed]
    if flagged:
        rows = [m for m in rows if m.flag]
    return rows


def echo_memories(rows: list[Memory]) -> None:
    "The plain-text listing of ``list`` and ``search``."
    if not rows:
        click.echo("No memories found.", err=True)
        return
    for memory in rows:
        click.echo(
            f"{memory.id}  {format_time(memory.created_at)}  "
            f"conversation: {memory.conversation_id or 'global'}  "
            + (f"project: {memory.project}  " if memory.project else "")
            + ("pinned  " if memory.pinned else "")
            + f"used: {memory.use_count}x, last {format_time(memory.last_used_at)}"
            + (f"  superseded by {memory.superseded_by}" if memory.superseded_by else "")
        )
        if memory.flag:
            click.echo(f"  FLAGGED: {memory.flag} (not injected until 'llm memories approve {memory.id}')")
        click.echo(f"  {memory.content}\n")


@memories.command()
@database_option
@click.argument("text")
@click.option("-n", "--count", type=int, default=20, help="Maximum number of results (0: all)")
@click.option("--keyword", is_flag=True, help="FTS5 keyword search only (bm25), as list --search")
@scope_options
@click.option("json_", "--json", is_flag=True,
              help="Output as JSON, with the ranking method and score of each hit")
def search(text, count, keyword, latest, conversation_id, json_, database):
    """Search memories, best match first, ranked as recall ranks them for the
    wrapper: by meaning and keywords, fused. Unlike recall it always lists the
    best matches, even for a query it would judge unrelated.

    \b
    Examples:
        llm memories search "what food do I eat"
        llm memories search vegetarian --keyword
        llm memories search "where do I live" --json
    """
    import dataclasses

    from .recall import recall

    if count < 0:
        raise click.ClickException("--count must not be negative")
    with open_store(database, create=False) as store:
        scope = resolve_scope(store, latest, conversation_id)
        limit = count or max(store.count(), 1)
        if keyword:
            hits = store.search(text, limit, conversation_id=scope)
            method = "keyword"
        else:
            from .embeddings import resolve_embedding_model

            settings = dataclasses.replace(
                load_settings(), recall_limit=limit, scope="conversation" if scope else "all")
            result = recall(store, text, settings, conversation_id=scope,
                            embedding_model=resolve_embedding_model(settings),
                            mark_used=False, judge=False)
            scores = result.scores or [None] * len(result.memories)
            hits = list(zip(result.memories, scores))
            method = result.method
    if scope:
        hits = [(m, s) for m, s in hits if m.conversation_id == scope]
    if json_:
        click.echo(json.dumps(
            [memory_json(m) | {"method": method, "score": s} for m, s in hits],
            indent=2, ensure_ascii=False))
        return
    echo_memories([m for m, _ in hits])


SHOW_USES = 10


def describe_method(use: dict) -> str:
    "How a memory came to be shown: 'hybrid 0.0328', 'pinned'."
    if use.get("score") is None:
        return use["method"]
    return f"{use['method']} {use['score']:.4g}"


@memories.command()
@database_option
@click.argument("memory_id")
@click.option("json_", "--json", is_flag=True, help="Output as JSON")
def show(memory_id, json_, database):
    """Show one memory in full, with its history: the facts it replaced and
    the one that replaced it.

    \b
    Example:
        llm memories show 01j9z3k4m5n6p7q8r9s0t1v2w3
    """
    with open_store(database, create=False) as store:
        memory = get_memory(store, memory_id)
        chain = store.chain(memory_id)
        uses = store.uses_of_memory(memory_id)
    data = memory_json(memory) | {
        "embedding_model": memory.embedding_model,
        "flag": memory.flag,
        "approved_at": memory.approved_at,
        "history": [{"id": m.id, "content": m.content, "created_at": m.created_at,
                     "valid_until": m.valid_until} for m in chain],
        "shown_to": [{name: use[name] for name in ("response_id", "conversation_id", "created_at",
                                                  "block", "method", "score")} for use in uses],
    }
    if json_:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    for key, value in data.items():
        if key not in ("history", "shown_to"):
            click.echo(f"{key}: {_shown_value(key, value)}")
    if len(chain) > 1:
        _echo_chain(chain, memory.id)
    _echo_shown_to(uses)


def _shown_value(key: str, value) -> str:
    "A field of ``llm memories show`` in words: times formatted, None named."
    if key == "project" and value is None:
        return "global"
    if key == "pinned_at" and value is None:
        return "not pinned"
    if key.endswith("_at") or key == "valid_until":
        value = format_time(value)
    return str(value) if value is not None else "-"


def _echo_chain(chain: list[Memory], memory_id: str) -> None:
    "A memory's history: the facts it replaced and the one that replaced it, the shown one starred."
    click.echo("history:")
    for item in chain:
        marker = "*" if item.id == memory_id else " "
        until = f" until {format_time(item.valid_until)}" if item.valid_until else " (current)"
        click.echo(f" {marker} {format_time(item.created_at)}{until}  {item.id}  {item.content}")


def _echo_shown_to(uses: list[dict]) -> None:
    "The responses a memory was shown to, newest first, at most SHOW_USES of them."
    if not uses:
        click.echo("shown to: no recorded response")
        return
    click.echo(f"shown to {len(uses)} response{'s' if len(uses) != 1 else ''}, "
               f"last {format_time(uses[0]['created_at'])}:")
    for use in uses[:SHOW_USES]:
        click.echo(f"  {format_time(use['created_at'])}  {use['response_id']}  "
                   f"block {use['block']}, {describe_method(use)}")
    if len(uses) > SHOW_USES:
        click.echo(f"  ... and {len(uses) - SHOW_USES} more (--json lists them all)")


@memories.command()
@database_option
@click.argument("text")
@scope_options
@click.option("--project", is_flag=True, help="A memory of the current project, not a global one")
@click.option("--pin", is_flag=True, help="Pin it: sent on every turn, whatever the question")
@click.option("--approve", is_flag=True,
              help="Inject it even if it reads like instructions to the model (you vouch for it)")
def add(text, latest, conversation_id, database, project=False, pin=False, approve=False):
    """Remember a fact directly (global unless --project, -c or --cid is given).

    Text that reads like instructions to the model is kept but quarantined
    until you approve it; --approve approves your own words at once.

    \b
    Examples:
        llm memories add "I am vegetarian"
        llm memories add "This project targets Python 3.10" --project
        llm memories add "Always answer in French" --pin --approve
    """
    from .write import check_memory, write_memories

    settings = load_settings()
    check = check_memory(text, settings.max_memory_chars)
    if check.refused:
        raise click.ClickException(check.refused)
    with open_store(database) as store:
        scope = resolve_scope(store, latest, conversation_id)
        vectors, model = embed_with_progress([check.text])
        from .store import now_ms

        # write_memories runs the same check on the text as given (hidden
        # characters are evidence) and stores check.text.
        item = {"content": text, "conversation_id": scope, "source": "manual",
                "project": require_current_project() if project else None,
                "pinned_at": now_ms() if pin else None}
        report = write_memories(
            store, [item],
            embedding_model=model if vectors is not None else None, vectors=vectors,
            max_chars=settings.max_memory_chars,
        )
        if report.added and report.added[0].flag and approve:
            report.added[0] = store.approve(report.added[0].id)
    if not report.added:
        raise click.ClickException("That is remembered already")
    memory = report.added[0]
    if memory.flag:
        _warn_flagged(memory)
    click.echo(memory.id)


def _warn_flagged(memory: Memory) -> None:
    click.echo(
        f"Quarantined: {memory.flag}. It will not be injected until you run "
        f"'llm memories approve {memory.id}'",
        err=True,
    )


@memories.command()
@database_option
@click.argument("memory_id")
@click.argument("new_text", required=False)
@click.option("global_", "--global", is_flag=True, help="Make it a global memory")
@click.option("--project", is_flag=True, help="Move it to the current project")
def edit(memory_id, new_text, database, global_=False, project=False):
    """Replace a memory's text (opens $EDITOR when no text is given), or move
    it between global and the current project.

    \b
    Examples:
        llm memories edit 01j9z3k4m5n6p7q8r9s0t1v2w3 "Lives in Lisbon"
        llm memories edit 01j9z3k4m5n6p7q8r9s0t1v2w3
        llm memories edit 01j9z3k4m5n6p7q8r9s0t1v2w3 --global
    """
    if global_ and project:
        raise click.UsageError("Use --global or --project, not both")
    with open_store(database, create=False) as store:
        memory = get_memory(store, memory_id)
        if global_ or project:
            _move_memory(store, memory, require_current_project() if project else None)
            if new_text is None:
                return
        if new_text is None:
            new_text = click.edit(memory.content)
            if new_text is None:
                raise click.ClickException("Edit cancelled: nothing changed")
        new_text = new_text.strip()
        if not new_text:
            raise click.ClickException("A memory cannot be empty; use 'llm memories delete'")
        if new_text == memory.content:
            click.echo("Unchanged", err=True)
            return
        memory = _replace_text(store, memory_id, new_text)
    if memory.flag:
        _warn_flagged(memory)
    click.echo(f"Updated {memory_id}", err=True)


def _move_memory(store, memory: Memory, target: str | None) -> None:
    "``edit --global/--project``: make the memory global (None) or the ``target`` project's."
    if target != memory.project:
        try:
            store.set_project(memory.id, target)
        except ValueError as ex:
            raise click.ClickException(str(ex))
    click.echo(f"{memory.id} is now {'a memory of ' + target if target else 'global'}", err=True)


def _replace_text(store, memory_id: str, new_text: str) -> Memory:
    "``edit``'s new text, through the write path's check, re-embedded and re-checked for quarantine."
    from .embeddings import to_blob
    from .write import check_memory

    check = check_memory(new_text, load_settings().max_memory_chars)
    if check.refused:
        raise click.ClickException(check.refused)
    vectors, model = embed_with_progress([check.text])
    flag = check.flag
    if vectors is not None:
        from .learned_detector import quarantine_reasons

        flag = quarantine_reasons(vectors, model, [check.text], [flag])[0]
    try:
        return store.update(
            memory_id, check.text,
            embedding=to_blob(vectors[0]) if vectors is not None else None,
            embedding_model=model.model_id if vectors is not None else None,
            flag=flag, checked=True,
        )
    except ValueError as ex:
        raise click.ClickException(str(ex))


@memories.command()
@database_option
@click.argument("memory_ids", nargs=-1, required=True)
def approve(memory_ids, database):
    """Approve quarantined memories, so they can be injected again.

    A memory that reads like instructions to the model (see 'llm memories
    list --flagged' for the reason) is kept but never injected or offered by
    recall_memory until you approve it. Editing it later needs a new approval.

    \b
    Example:
        llm memories list --flagged
        llm memories approve 01j9z3k4m5n6p7q8r9s0t1v2w3
    """
    with open_store(database, create=False) as store:
        found = [get_memory(store, memory_id) for memory_id in dict.fromkeys(memory_ids)]
        not_flagged = [m.id for m in found if not m.flag]
        if not_flagged:
            raise click.ClickException(
                f"Not quarantined: {', '.join(not_flagged)}; nothing was approved"
            )
        for memory in found:
            store.approve(memory.id)
    click.echo(f"Approved {len(found)}", err=True)


@memories.command()
@database_option
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("-y", "--yes", is_flag=True, help="Delete without asking")
def delete(memory_ids, yes, database):
    """Delete memories by id, after confirmation.

    \b
    Example:
        llm memories delete 01j9z3k4m5n6p7q8r9s0t1v2w3 -y
    """
    with open_store(database, create=False) as store:
        found = []
        missing = []
        for memory_id in dict.fromkeys(memory_ids):
            try:
                found.append(store.get(memory_id))
            except MemoryNotFound:
                missing.append(memory_id)
        if missing:
            raise click.ClickException(
                f"No memory with id {', '.join(missing)}; nothing was deleted"
            )
        if not yes:
            for memory in found:
                click.echo(f"  {memory.id}: {memory.content}", err=True)
            s = "y" if len(found) == 1 else "ies"
            click.confirm(f"Delete {len(found)} memor{s}?", abort=True, err=True)
        deleted = store.delete([m.id for m in found])
    click.echo(f"Deleted {deleted}", err=True)


@memories.command()
@database_option
@scope_options
@click.option("all_", "--all", is_flag=True, help="Forget every memory")
@click.option("--unused-for", metavar="DURATION",
              help="Forget memories not used in this long (90d, 12w, 1y); pinned ones are kept")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation")
def forget(latest, conversation_id, all_, yes, database, unused_for=None):
    """Forget every memory of one conversation, those unused for a while, or
    all of them.

    \b
    Examples:
        llm memories forget --cid 01j9z3k4m5n6p7q8r9s0t1v2w3
        llm memories forget --unused-for 90d
        llm memories forget --all -y
    """
    if unused_for is not None:
        if all_ or latest or conversation_id:
            raise click.UsageError("Use --unused-for on its own")
        _forget_unused(database, unused_for, yes)
        return
    with open_store(database, create=False) as store:
        if all_ and (latest or conversation_id):
            raise click.UsageError("Use --all or a conversation, not both")
        scope = resolve_scope(store, latest, conversation_id)
        if not all_ and not scope:
            raise click.UsageError(
                "Say which: --cid ID, -c (latest conversation), --unused-for 90d or --all")
        count = store.count() if all_ else store.count(scope)
        if not yes:
            what = "ALL memories" if all_ else f"the memories of conversation {scope}"
            click.confirm(f"Forget {what} ({count})?", abort=True, err=True)
        deleted = store.forget(conversation_id=scope, everything=all_)
    click.echo(f"Forgot {deleted}", err=True)


def _forget_unused(database, unused_for: str, yes: bool) -> None:
    "``forget --unused-for``: the memories unused that long (pinned ones kept), after confirmation."
    cutoff = unused_cutoff(unused_for)
    with open_store(database, create=False) as store:
        stale = store.list(unused_before=cutoff)
        if not stale:
            click.echo(f"No memories unused for {unused_for}", err=True)
            return
        if not yes:
            for memory in stale[:20]:
                click.echo(f"  {memory.id}: {memory.content}", err=True)
            if len(stale) > 20:
                click.echo(f"  ... and {len(stale) - 20} more", err=True)
            click.confirm(f"Forget {len(stale)} memories unused for {unused_for}?",
                          abort=True, err=True)
        deleted = store.delete([m.id for m in stale])
    click.echo(f"Forgot {deleted}", err=True)


@memories.command()
@database_option
@click.argument("path", type=click.Path(dir_okay=False, writable=True, allow_dash=True), required=False)
@click.option("--vectors", "with_vectors", is_flag=True,
              help="Include each memory's embedding, so an import with the same model skips embedding")
def export(path, database, with_vectors):
    """Export all memories as JSON, to PATH or standard output.

    The format is {"version": 1, "exportedAt": <epoch ms>, "memories": [...]},
    which 'llm memories import' reads back. With --vectors each memory also
    carries "embedding_model" and "vector" (base64 of little-endian float32).

    \b
    Examples:
        llm memories export memories.json
        llm memories export --vectors backup.json
    """
    import base64

    from .store import now_ms

    with open_store(database, create=False) as store:
        rows = store.list()
        vectors = store.vectors_of([m.id for m in rows]) if with_vectors else {}
    items = []
    for memory in reversed(rows):  # oldest first
        item = memory_json(memory)
        if memory.id in vectors:
            model_id, blob = vectors[memory.id]
            item |= {"embedding_model": model_id, "vector": base64.b64encode(blob).decode("ascii")}
        items.append(item)
    document = {
        "version": EXPORT_VERSION,
        "exportedAt": now_ms(),
        "memories": items,
    }
    text = json.dumps(document, indent=2, ensure_ascii=False)
    if path and path != "-":
        with open(path, "w", encoding="utf-8") as fp:
            fp.write(text + "\n")
        click.echo(f"Exported {len(rows)} memories to {path}", err=True)
    else:
        click.echo(text)


class ImportFileError(click.ClickException):
    pass


def parse_import(raw: bytes, max_entries: int | None = None, max_chars: int | None = None) -> list[dict]:
    """Validate an import file completely, before anything is written.

    Accepts the export format or a plain JSON list of strings. Raises
    ImportFileError naming the first problem. ``max_entries`` and
    ``max_chars`` are the limit settings, checked before any per-entry work.
    """
    items = _import_entries(_import_json(raw))
    if max_entries and len(items) > max_entries:
        raise ImportFileError(
            f"File has {len(items)} entries; the limit is {max_entries} "
            "(see 'llm memories config max-import-entries')"
        )
    dims: dict[str, int] = {}  # embedding model -> vector length in bytes
    return [_import_entry(item, f"memories[{index}]", max_chars, dims)
            for index, item in enumerate(items)]


def _import_json(raw: bytes):
    "The file's JSON value: a size limit first, then UTF-8 (a BOM allowed), then JSON."
    if len(raw) > MAX_IMPORT_BYTES:
        raise ImportFileError(f"File is too large ({len(raw)} bytes; the limit is {MAX_IMPORT_BYTES})")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as ex:
        raise ImportFileError(f"File is not valid UTF-8 (byte {ex.start})")
    try:
        return json.loads(text)
    except RecursionError:
        raise ImportFileError("File is not valid JSON: nested too deeply")
    except ValueError as ex:
        raise ImportFileError(f"File is not valid JSON: {ex}")


def _import_entries(data) -> list:
    "The entries of the export format, or the plain list itself."
    if isinstance(data, list):
        return data
    if not isinstance(data, dict) or "version" not in data or "memories" not in data:
        raise ImportFileError('Expected {"version": 1, "memories": [...]} or a list of strings')
    if data["version"] != EXPORT_VERSION or isinstance(data["version"], bool):
        raise ImportFileError(f"Unsupported version {data['version']!r}; this plugin reads version 1")
    if not isinstance(data["memories"], list):
        raise ImportFileError('"memories" must be a list')
    return data["memories"]


# The optional fields of an entry, and their JSON types.
IMPORT_FIELDS = (("id", str), ("conversation_id", str), ("created_at", int),
                 ("project", str), ("pinned_at", int))


def _import_entry(item, where: str, max_chars: int | None, dims: dict[str, int]) -> dict:
    "One entry (a string or an object) as MemoryStore.add arguments, with its vector if any."
    if isinstance(item, str):
        item = {"content": item}
    if not isinstance(item, dict):
        raise ImportFileError(f"{where} must be a string or an object")
    content = item.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ImportFileError(f"{where}.content must be a non-empty string")
    if "\x00" in content:
        raise ImportFileError(f"{where}.content contains a NUL character")
    _check_encodable(content, f"{where}.content")
    if max_chars and len(content) > max_chars:
        raise ImportFileError(
            f"{where}.content has {len(content)} characters; the limit is {max_chars} "
            "(see 'llm memories config max-memory-chars')"
        )
    record = {"content": content.strip(), "source": "import"}
    for name, kind in IMPORT_FIELDS:
        value = _import_field(item.get(name), f"{where}.{name}", kind)
        if value is None or (name == "project" and not value.strip()):
            continue  # a project of "" is no project: a global memory
        record[name] = value
    if item.get("vector") is not None:
        record["vector"], record["embedding_model"] = _parse_vector(item, where, dims)
    return record


def _import_field(value, where: str, kind: type):
    "An optional field's value, checked: a string, or an integer in SQLite's safe range."
    if value is None:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ImportFileError(f"{where} must be {'a string' if kind is str else 'an integer'}")
    if kind is int and not 0 < value < 2**53:
        raise ImportFileError(f"{where} is out of range")
    if kind is str:
        _check_encodable(value, where)
    return value


def _check_encodable(text: str, where: str) -> None:
    "JSON can spell a lone surrogate (\\ud800); it is not text SQLite or a model can take."
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as ex:
        raise ImportFileError(
            f"{where} holds a lone surrogate ({text[ex.start]!r} at character {ex.start}), "
            "which is not valid Unicode"
        )


def _parse_vector(item: dict, where: str, dims: dict[str, int]) -> tuple[bytes, str]:
    "An exported vector: base64 float32, finite, one length per model."
    import base64
    import binascii

    import numpy as np

    model_id, text = item.get("embedding_model"), item["vector"]
    if not isinstance(model_id, str) or not model_id:
        raise ImportFileError(f"{where}.vector needs a string embedding_model")
    if not isinstance(text, str):
        raise ImportFileError(f"{where}.vector must be a base64 string")
    try:
        blob = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ImportFileError(f"{where}.vector is not valid base64")
    if not blob or len(blob) % 4 or dims.setdefault(model_id, len(blob)) != len(blob):
        raise ImportFileError(f"{where}.vector has the wrong length for {model_id}")
    if not np.all(np.isfinite(np.frombuffer(blob, dtype="<f4"))):
        raise ImportFileError(f"{where}.vector contains a value that is not a finite number")
    return blob, model_id


@memories.command(name="import")
@database_option
@click.argument("path", type=click.File("rb"))
def import_(path, database):
    """Import memories from a JSON file (or - for standard input).

    Reads the export format or a plain JSON list of strings. Memories whose
    content is already stored (compared case- and space-insensitively) are
    skipped. Vectors in the file (export --vectors) are reused when they come
    from the configured embedding model; other memories are embedded. The
    file is checked completely first: a bad file imports nothing.
    Prints {"imported": N, "skipped": N}.

    \b
    Examples:
        llm memories import memories.json
        llm memories export --vectors b.json && llm memories import b.json
        echo '["I use vim", "I live in Porto"]' | llm memories import -
    """
    from .store import content_key
    from .write import write_memories

    settings = load_settings()
    raw = path.read(MAX_IMPORT_BYTES + 1)
    records = parse_import(raw, settings.max_import_entries, settings.max_memory_chars)
    with open_store(database) as store:
        existing = store.existing_keys(content_key(r["content"], r.get("project")) for r in records)
        fresh, seen, seen_ids = [], set(existing), set()
        for record in records:
            key = content_key(record["content"], record.get("project"))
            if key in seen:
                continue
            seen.add(key)
            # An id already taken (or repeated in the file) gets a new one.
            if "id" in record and (record["id"] in seen_ids or _id_taken(store, record["id"])):
                del record["id"]
            if "id" in record:
                seen_ids.add(record["id"])
            fresh.append(record)
        vectors, model = _import_vectors(fresh)
        for record in fresh:
            record.pop("vector", None)
            record.pop("embedding_model", None)
        report = write_memories(
            store, fresh, embedding_model=model if vectors is not None else None, vectors=vectors,
            max_chars=settings.max_memory_chars, progress=progress_bar,
        )
    if report.secrets:
        click.echo(f"Skipped {report.secrets} that looked like secrets", err=True)
    if report.flagged:
        click.echo(
            f"Quarantined {report.flagged} that read like instructions to the model: "
            "see 'llm memories list --flagged', then 'llm memories approve ID'",
            err=True,
        )
    click.echo(json.dumps({"imported": len(report.added), "skipped": len(records) - len(report.added)}))


def _import_vectors(records: list[dict]):
    """(vectors, model) for imported records: the file's own vectors where
    they come from the configured model, the rest embedded."""
    import numpy as np

    from .embeddings import resolve_embedding_model

    model = resolve_embedding_model(load_settings())
    if model is None:
        return None, None
    todo = [n for n, r in enumerate(records) if r.get("embedding_model") != model.model_id]
    vectors: list = [None] * len(records)
    if todo:
        embedded, model = embed_with_progress([records[n]["content"] for n in todo],
                                              label="Embedding memories")
        if embedded is None:
            return None, None
        for n, vector in zip(todo, embedded):
            vectors[n] = vector
    for n, record in enumerate(records):
        if vectors[n] is None:
            vectors[n] = np.frombuffer(record["vector"], dtype="<f4")
    if len({len(v) for v in vectors}) > 1:
        raise click.ClickException(
            f"The file's vectors do not have {model.model_id}'s dimension; "
            "import without them (remove the \"vector\" fields)")
    return vectors, model


def _id_taken(store: MemoryStore, memory_id: str) -> bool:
    try:
        store.get(memory_id)
    except MemoryNotFound:
        return False
    return True


@memories.command()
def pause():
    """Stop learning new memories (recall keeps working).

    \b
    Example:
        llm memories pause
    """
    _set("paused", True)
    click.echo("Memory extraction paused; 'llm memories resume' turns it back on", err=True)


@memories.command()
def resume():
    """Start learning new memories again after 'pause'.

    \b
    Example:
        llm memories resume
    """
    _set("paused", False)
    click.echo("Memory extraction resumed", err=True)


def _set(key, value) -> Settings:
    settings = load_settings()
    setattr(settings, key, value)
    save_settings(settings)
    return settings


def memory_models(settings: Settings) -> dict[str, str]:
    "Each memory model's id -> what it wraps, as ``llm models`` lists them."
    from .wrapper import memory_model_specs, wrapped_label

    return {model_id: wrapped_label(inner_id) for model_id, inner_id in memory_model_specs(settings)}


def _setting_name(key: str) -> str:
    aliases = {"extract_model": "extraction_model", "threshold": "min_similarity"}
    key = key.replace("-", "_")
    return aliases.get(key, key)


@memories.command()
@click.argument("key", required=False)
@click.argument("value", required=False)
@click.option("json_", "--json", is_flag=True, help="Output as JSON")
def config(key, value, json_):
    """Show or change settings.

    \b
    Examples:
        llm memories config                      # show all
        llm memories config min-similarity 0.3
        llm memories config extract-model claude-haiku-5.5
        llm memories config scope conversation
        llm memories config embedding-model none # keyword recall only
    """
    settings = load_settings()
    if key is None:
        data = settings.to_dict()
        wrappers = memory_models(settings)
        if json_:
            click.echo(json.dumps({**data, "wrappers": wrappers}, indent=2))
        else:
            for name, current in data.items():
                click.echo(f"{name.replace('_', '-')}: {json.dumps(current)}")
            click.echo("wrappers:")
            for model_id, wraps in wrappers.items():
                click.echo(f"  {model_id}: wraps {wraps}")
        return
    name = _setting_name(key)
    if value is None:
        if name not in Settings.field_names():
            raise click.ClickException(f"Unknown setting '{key}'")
        click.echo(json.dumps(getattr(settings, name)))
        return
    try:
        setattr(settings, name, coerce_setting(name, value))
    except ValueError as ex:
        raise click.ClickException(str(ex))
    save_settings(settings)
    click.echo(f"{name.replace('_', '-')}: {json.dumps(getattr(settings, name))}", err=True)


@memories.command()
@click.argument("model_id")
@click.option("--prefix", is_flag=True, help="Prefix the memory block to the prompt text instead of sending it as a message")
def wrap(model_id, prefix):
    """Add a memory-aware wrapper of another installed model: memory-MODEL_ID.

    \b
    Example:
        llm memories wrap gpt-4o-mini
        llm -m memory-gpt-4o-mini "What should I cook tonight?"
    """
    try:
        model = llm.get_model(model_id)
    except llm.UnknownModelError as ex:
        raise click.ClickException(str(ex))
    from .wrapper import MemoryModel

    if isinstance(model, MemoryModel):
        raise click.ClickException(f"{model_id} is a memory model already")
    settings = load_settings()
    if model.model_id not in settings.wrapped_models:
        settings.wrapped_models.append(model.model_id)
    if prefix and model.model_id not in settings.prefix_models:
        settings.prefix_models.append(model.model_id)
    save_settings(settings)
    click.echo(f"memory-{model.model_id}")


@memories.command()
@click.argument("model_id")
def unwrap(model_id):
    """Remove a wrapper added with 'llm memories wrap'.

    \b
    Example:
        llm memories unwrap gpt-4o-mini
    """
    settings = load_settings()
    model_id = model_id.removeprefix("memory-")
    if model_id not in settings.wrapped_models:
        raise click.ClickException(f"{model_id} is not wrapped")
    settings.wrapped_models.remove(model_id)
    if model_id in settings.prefix_models:
        settings.prefix_models.remove(model_id)
    save_settings(settings)
    click.echo(f"Removed memory-{model_id}", err=True)


@memories.command()
def path():
    """Print the path of the database that holds the memories (llm's logs.db).

    \b
    Example:
        sqlite-utils tables "$(llm memories path)"
    """
    from .store import logs_db_path

    click.echo(logs_db_path())


@memories.command(name="datasette-metadata")
@database_option
def datasette_metadata(database):
    """Print a Datasette metadata file that makes memories searchable.

    Only needed when Datasette runs from another environment than llm: where
    both are installed together, this plugin tells Datasette itself.

    \b
    Example:
        llm memories datasette-metadata > memories.json
        datasette "$(llm logs path)" -m memories.json
    """
    from .datasette_plugin import metadata_for
    from .store import logs_db_path

    name = Path(database or logs_db_path()).stem
    click.echo(json.dumps(metadata_for([name]), indent=2))


@memories.command()
@database_option
@click.option("json_", "--json", is_flag=True, help="Output as JSON")
def stats(json_, database):
    """Counts: memories, per conversation, per source, embedding coverage, jobs.

    \b
    Example:
        llm memories stats --json
    """
    with open_store(database, create=False) as store:
        data = store.stats()
    if json_:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"Memories: {data['memories']} ({data['global']} global, "
               f"from {data['conversations']} conversations)")
    for source, count in sorted(data["by_source"].items()):
        click.echo(f"  {source}: {count}")
    total = data["memories"] or 1
    if data["embedded"]:
        for model_id, count in data["embedded"].items():
            click.echo(f"Embedded with {model_id}: {count} ({100 * count / total:.0f}%)")
    else:
        click.echo("Embedded: none")
    if data["jobs"]:
        click.echo("Jobs: " + ", ".join(f"{k} {v}" for k, v in sorted(data["jobs"].items())))
    if data["flagged"]:
        click.echo(f"Quarantined: {data['flagged']} (see 'llm memories list --flagged')")


def job_summary(job: dict) -> str:
    """One honest line about a job's outcome, in the words of its kind."""
    from .jobs import MAX_JOB_ATTEMPTS

    if job["status"] == "failed" or (job["status"] == "pending" and job["error"]):
        retry = job["status"] == "pending" and job["attempts"] < MAX_JOB_ATTEMPTS
        return ("will retry: " if retry else "gave up: ") + (job["error"] or "")
    result = job["result"]
    if not result:
        return ""
    if job["kind"] == "index_history":
        n = result.get("embedded", 0)
        return f"embedded {n} turn{'s' if n != 1 else ''} of history"
    parts = [f"added {result.get('added', 0)}"]
    for name in ("duplicates", "merged", "secrets", "superseded"):
        if result.get(name):
            parts.append(f"{name} {result[name]}")
    return ", ".join(parts)


def job_answer(job: dict) -> str:
    "The raw model answer of an extraction job, indented, for 'log -v'."
    result = job["result"] or {}
    answer = result.get("answer")
    if answer is None:
        text = "  answer: (none recorded)"
    elif not answer.strip():
        text = "  answer: (empty: nothing received)"
    else:
        text = "  answer: " + answer.strip().replace("\n", "\n    ")
    for item in result.get("rejected") or []:
        text += f"\n  refused as a fact: {item}"
    return text


@memories.command()
@database_option
@click.option("-n", "--count", type=int, default=10, help="Number of jobs to show (0: all)")
@click.option("json_", "--json", is_flag=True, help="Output as JSON")
@click.option("-v", "--verbose", is_flag=True,
              help="Show each extraction job's raw model answer and the items refused as facts")
def log(count, json_, verbose, database):
    """Show recent background jobs (extraction), with errors, and the log file.

    \b
    Examples:
        llm memories log -n 5
        llm memories log -v
    """
    from .worker import log_path

    with open_store(database, create=False) as store:
        from .jobs import JobQueue

        jobs = JobQueue(store).recent(count or None)
    if json_:
        click.echo(json.dumps(jobs, indent=2, ensure_ascii=False))
        return
    if not jobs:
        click.echo("No jobs yet.", err=True)
    for job in jobs:
        click.echo(f"#{job['id']} {job['kind']} {job['status']} "
                   f"{format_time(job['created_at'])} attempts={job['attempts']} {job_summary(job)}")
        if verbose and job["kind"] == "extract":
            click.echo(job_answer(job))
    path = log_path()
    if path.exists():
        lines = path.read_text(errors="replace").splitlines()[-(count or 10):]
        if lines:
            click.echo(f"\nLast lines of {path}:")
            for line in lines:
                click.echo(line)


@memories.command()
@database_option
def process(database):
    """Run queued background jobs now, in the foreground.

    \b
    Example:
        LLM_KINETAIOS_WORKER=off llm -m memory "I'm a dentist"; llm memories process
    """
    from .worker import run_queue

    with open_store(database) as store:
        processed = run_queue(store)
    click.echo(f"Processed {processed} job{'s' if processed != 1 else ''}", err=True)


@memories.command()
@database_option
@click.option("all_", "--all", is_flag=True, help="Re-embed every memory, not just those missing a vector")
def reindex(all_, database):
    """Embed memories with the configured embedding model.

    Run after changing 'embedding-model': memories embedded with another
    model are re-embedded, so vectors of two models are never compared.

    \b
    Example:
        llm memories config embedding-model 3-small && llm memories reindex
    """
    from .embeddings import embed_passages, resolve_embedding_model, to_blob

    settings = load_settings()
    model = resolve_embedding_model(settings)
    if model is None:
        raise click.ClickException(
            "No embedding model is configured or installed; see 'llm memories config embedding-model'"
        )
    with open_store(database, create=False) as store:
        if all_:
            todo = [(m.id, m.content) for m in store.list()]
        else:
            todo = store.missing_embeddings(model.model_id)
        done = 0
        with click.progressbar(length=len(todo), label=f"Embedding with {model.model_id}",
                               file=sys.stderr, show_pos=True) as bar:
            for start in range(0, len(todo), 32):
                chunk = todo[start : start + 32]
                try:
                    vectors = embed_passages(model, [content for _, content in chunk])
                except Exception as ex:
                    raise click.ClickException(f"Embedding failed after {done}: {ex}")
                done += store.set_embeddings(
                    [(memory_id, to_blob(v)) for (memory_id, _), v in zip(chunk, vectors)],
                    model.model_id,
                )
                bar.update(len(chunk))
    click.echo(f"Embedded {done} memories with {model.model_id}", err=True)


# Projects, pins and "why was this recalled" ------------------------------


def _pin(memory_ids, database, pinned: bool, json_: bool) -> None:
    from .pins import over_budget

    with open_store(database, create=False) as store:
        try:
            changed = store.set_pinned(memory_ids, pinned)
        except MemoryNotFound as ex:
            raise click.ClickException(f"No memory with id {ex.args[0]}; nothing was changed")
        rows = store.pinned()
        budget = load_settings().pinned_tokens
        left_out = over_budget(store, budget)
    if json_:
        click.echo(json.dumps([memory_json(m) for m in rows], indent=2, ensure_ascii=False))
    verb = "Pinned" if pinned else "Unpinned"
    click.echo(f"{verb} {changed}; {len(rows)} pinned in all", err=True)
    for memory in left_out:
        click.echo(f"Warning: {memory.id} does not fit the pinned-tokens budget ({budget}) "
                   f"and is not sent: unpin another or raise it with "
                   f"'llm memories config pinned-tokens N'", err=True)


@memories.command()
@database_option
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("json_", "--json", is_flag=True, help="Output the pinned memories as JSON")
def pin(memory_ids, json_, database):
    """Pin memories: sent on every turn whatever the question, first in the
    block, as many as fit the pinned-tokens setting.

    \b
    Example:
        llm memories pin 01j9z3k4m5n6p7q8r9s0t1v2w3
        llm memories list --pinned
    """
    _pin(memory_ids, database, True, json_)


@memories.command()
@database_option
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("json_", "--json", is_flag=True, help="Output the pinned memories as JSON")
def unpin(memory_ids, json_, database):
    """Unpin memories: recalled only when relevant again.

    \b
    Example:
        llm memories unpin 01j9z3k4m5n6p7q8r9s0t1v2w3
    """
    _pin(memory_ids, database, False, json_)


@memories.command()
@database_option
@click.option("-n", "--count", type=int, default=None, help="Number of projects to show (default and 0: all)")
@click.option("json_", "--json", is_flag=True, help="Output as JSON")
def projects(count, json_, database):
    """List the projects memories belong to, with counts; * marks the
    current one. A project is the git checkout you work in, named by its
    remote URL (else its path), or the directory itself outside git.

    \b
    Example:
        llm memories projects
        llm memories list --in-project github.com/me/app
    """
    from .projects import current_project

    here = current_project()
    with open_store(database, create=False) as store:
        rows = store.projects()
    if here is not None and not any(r["project"] == here for r in rows):
        rows.append({"project": here, "memories": 0, "pinned": 0, "last_used_at": None})
    rows = [{**r, "current": r["project"] == here} for r in rows][: count or None]
    if json_:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        name = row["project"] or "(global)"
        marker = "*" if row["current"] else " "
        click.echo(f"{marker} {name}  {row['memories']} memor{'y' if row['memories'] == 1 else 'ies'}"
                   f", {row['pinned']} pinned, last used {format_time(row['last_used_at'])}")


def logged_responses(store: MemoryStore, conversation_id: str | None = None,
                     response_id: str | None = None) -> list[dict]:
    """Responses in llm's logs, oldest first, with their prompt text: one, a
    conversation's, or (neither given) the latest one."""
    tables = []
    if store.db["turns"].exists():
        prompt = ("(select prompt from turn_search where turn_search.turn_id = turns.id)"
                  if store.db["turn_search"].exists() else "null")
        tables.append(f"select id, thread_id as conversation_id, datetime_utc, {prompt} as prompt "
                      "from turns")
    if store.db["responses"].exists():
        tables.append("select id, conversation_id, datetime_utc, prompt from responses")
    # Responses whose log row is missing (--no-log) are still known by their uses.
    tables.append("select distinct response_id as id, conversation_id, null as datetime_utc, "
                  "null as prompt from kinetaios_memory_uses")
    union = " union all ".join(tables)
    if response_id:
        where, params, order = "where id = ?", [response_id], "id"
    elif conversation_id:
        where, params, order = "where conversation_id = ?", [conversation_id], "id"
    else:
        where, params, order = "", [], "id desc limit 1"
    rows = store.db.query(
        f"select id, max(conversation_id) as conversation_id, max(datetime_utc) as datetime_utc, "
        f"max(prompt) as prompt from ({union}) {where} group by id order by {order}", params)
    return list(rows)


@memories.command()
@database_option
@click.argument("response_id", required=False)
@scope_options
@click.option("-n", "--count", type=int, default=None,
              help="With -c/--cid: the last N responses (default and 0: all)")
@click.option("json_", "--json", is_flag=True, help="Output as JSON")
def used(response_id, latest, conversation_id, count, json_, database):
    """Which memories a response was shown: the latest response, one by id,
    or every response of a conversation. For each memory: the block it was
    in, and how it was chosen (pinned, hybrid, cosine, keyword, recent,
    update, retracted) with its score.

    \b
    Examples:
        llm memories used               # the latest response
        llm memories used -c            # each response of the latest conversation
        llm memories used 01j9z3k4m5n6p7q8r9s0t1v2w3 --json
    """
    if response_id and (latest or conversation_id):
        raise click.UsageError("Give a response id or -c/--cid, not both")
    with open_store(database, create=False) as store:
        scope = resolve_scope(store, latest, conversation_id)
        responses = logged_responses(store, scope, response_id)
        if not responses:
            if response_id:
                raise click.ClickException(f"No response with id {response_id}")
            raise click.ClickException(
                f"No responses in conversation {scope}" if scope else "No responses logged yet")
        if count:
            responses = responses[-count:]
        report = [_uses_report(store, response) for response in responses]
    if json_:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    for number, item in enumerate(report):
        if number:
            click.echo()
        _echo_uses(item)


def _uses_report(store, response: dict) -> dict:
    "One response of ``llm memories used``: its memories, as recorded when it was answered."
    uses = store.uses_of_response(response["id"])
    by_id = {m.id: m for m in store.get_many([u["memory_id"] for u in uses])}
    return {
        "response_id": response["id"],
        "conversation_id": response["conversation_id"],
        "datetime_utc": response["datetime_utc"],
        "prompt": response["prompt"],
        "memories": [
            {"id": u["memory_id"],
             "content": by_id[u["memory_id"]].content if u["memory_id"] in by_id else None,
             **{name: u[name] for name in ("block", "position", "method", "score", "sent_by")}}
            for u in uses
        ],
    }


def _echo_uses(item: dict) -> None:
    "One response of ``llm memories used`` as text: a heading, then its memories block by block."
    when = f" ({item['datetime_utc'][:16].replace('T', ' ')})" if item["datetime_utc"] else ""
    click.echo(f"Response {item['response_id']}{when}"
               + (f" in conversation {item['conversation_id']}" if item["conversation_id"] else ""))
    if item["prompt"]:
        prompt_line = " ".join(item["prompt"].split())
        click.echo(f"  > {prompt_line[:100]}{'...' if len(prompt_line) > 100 else ''}")
    if not item["memories"]:
        click.echo("  no memories shown")
        return
    block = None
    for memory in item["memories"]:
        if memory["block"] != block:
            block = memory["block"]
            sent = ("this response" if memory["sent_by"] == item["response_id"]
                    else f"response {memory['sent_by']}")
            click.echo(f"  block {block}, first sent with {sent}:")
        click.echo(f"    {describe_method(memory):<16} {memory['id']}  "
                   f"{memory['content'] if memory['content'] is not None else '(deleted)'}")
