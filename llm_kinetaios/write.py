"""The write path: what happens to a fact between extraction (or add, or
import, or edit) and the ``memories`` table.

1. ``check_memory``, the one check every write path shares: text over the
   ``max_memory_chars`` setting is refused before any other work; characters
   that can hide instructions are removed (the only change to the text:
   lines, spelling and symbols stay as written); secrets are refused
   (secret_filter.py); text the detector suspects of carrying instructions
   is stored but quarantined (safety.py), for the user to approve. Once
   the facts are embedded, the learned detector (learned_detector.py) may
   quarantine more of them, from the same vectors.
2. The text is otherwise stored as written: no rewriting (relative dates
   are made absolute by the extraction call itself, which is given the
   turn's date; a regex cannot tell "tomorrow" from a book title).
3. Exact duplicates (normalised text) of current memories, or of each other,
   are skipped.
4. Each remaining fact is compared with its nearest current memories, by
   embedding (one matrix product for the whole batch) or, without vectors,
   by word overlap. A near-duplicate is merged: not added.
5. A fact may update an older one (moved city, changed job). Extraction says
   so itself, in the same call (``supersedes``), so the common path costs no
   extra call. Otherwise, when a judge model is given, the close pairs (and
   only those) go to one extra call for the whole batch, which says whether
   the new fact duplicates, updates or is unrelated to the old one.
   An update supersedes the old fact: kept as history, no longer recalled.

``write_memories`` reads as these stages, one function each: ``_check_items``
(1, 2 and in-batch duplicates), ``_skip_stored_duplicates`` (3),
``_embed_candidates``, ``_flag_by_learned_detector`` and ``_nearest_memories`` (4), ``_merge_near_duplicates``,
``_judge_close_calls`` and ``_apply_judgements`` (4, 5), ``_insert``, and
``_supersede``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from .safety import MAX_MEMORY_CHARS, injection_reason, strip_hiding_characters
from .secret_filter import secret_reason
from .store import Memory, MemoryStore, content_key, now_ms

log = logging.getLogger("llm_kinetaios")

# Cosine levels for models that do not declare their own (see
# MultilingualE5Small for E5's, whose scores live in a narrow band).
DEFAULT_DUPLICATE_SIMILARITY = 0.92
DEFAULT_RELATED_SIMILARITY = 0.6
WORD_OVERLAP_DUPLICATE = 0.85
NEIGHBOURS = 3

JUDGE_SYSTEM = """\
You keep a memory of facts about a user. For each numbered pair below, say how the
NEW fact relates to the OLD one:
- "duplicate": it says the same thing (maybe in other words),
- "updates": it replaces the old fact, which is no longer true (moved, changed job,
  changed preference),
- "unrelated": both can be true at once.
Return JSON: {"decisions": [{"pair": 1, "relation": "duplicate"}, ...]}"""

JUDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "decisions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "pair": {"type": "integer"},
                    "relation": {"type": "string", "enum": ["duplicate", "updates", "unrelated"]},
                },
                "required": ["pair", "relation"],
            },
        }
    },
    "required": ["decisions"],
}


@dataclass
class MemoryCheck:
    "The shared check's verdict on one text."

    text: str  # as it would be stored: hiding characters removed, trimmed
    refused: str | None = None  # why it must not be stored at all
    flag: str | None = None  # why it is stored quarantined
    too_long: bool = False
    secret: bool = False


def check_memory(text: str, max_chars: int | None = MAX_MEMORY_CHARS) -> MemoryCheck:
    """The one check of every write path: extraction, add, import, edit.

    The length limit comes first, so an absurd input costs nothing; every
    later step is linear in the text.
    """
    if max_chars and len(text) > max_chars:
        return MemoryCheck(text="", too_long=True, refused=(
            f"A memory can be at most {max_chars} characters (this one has {len(text)}); "
            "see 'llm memories config max-memory-chars'"))
    cleaned = strip_hiding_characters(text).strip()
    if not cleaned:
        return MemoryCheck(text="", refused="A memory cannot be empty")
    secret = secret_reason(cleaned)
    if secret:
        return MemoryCheck(text=cleaned, secret=True, refused=(
            f"That looks like a secret ({secret}): not stored"))
    # The detector reads the text as given: hidden characters are evidence.
    return MemoryCheck(text=cleaned, flag=injection_reason(text))


def check_stored(store: MemoryStore, limit: int = 1000, max_chars: int | None = MAX_MEMORY_CHARS) -> int:
    """Bring up to ``limit`` memories stored without the write-time check
    (before it existed, or written straight to the table) under it: cleared,
    or quarantined with the reason, as if written today. Their text is left
    as it is. Until then each is checked whenever a block shows it, which
    costs a turn the detector's compilation (about 100 ms) and its run.
    The learned detector runs too, on the memory's stored vector where it has
    one of the model the detector was trained on, as the write path would.
    Returns how many were checked."""
    unchecked = store.unchecked(limit)
    checks = {memory_id: check_memory(content, max_chars) for memory_id, content in unchecked}
    texts = {memory_id: content for memory_id, content in unchecked if not checks[memory_id].refused}
    learned = _learned_flags_of_stored(store, texts, {memory_id: checks[memory_id].flag for memory_id in texts})
    verdicts = []
    for memory_id, content in unchecked:
        verdict = checks[memory_id]
        if verdict.secret:
            reason = "looks like a secret (the write path would refuse it)"
        elif verdict.too_long:
            reason = "longer than max-memory-chars"
        else:
            # refused here: empty once hidden characters go
            reason = verdict.refused or learned.get(memory_id, verdict.flag)
        verdicts.append((memory_id, reason))
    if verdicts:
        store.record_checks(verdicts)
    return len(verdicts)


def _learned_flags_of_stored(store: MemoryStore, texts: dict[str, str],
                             pattern_flags: dict[str, str | None]) -> dict[str, str | None]:
    """The learned detector on these memories' stored vectors (``texts`` and
    ``pattern_flags`` by id): id -> final reason or None, for those with a vector it reads."""
    if not texts:
        return {}
    from .learned_detector import stored_reasons

    try:
        return stored_reasons(store.vectors_of(list(texts)), texts, pattern_flags)
    except Exception:  # a broken vector must not stop the patterns' verdicts
        log.exception("learned detector failed on stored vectors; patterns only")
        return {}


@dataclass
class WriteReport:
    added: list[Memory] = field(default_factory=list)
    # Where each input went, by its index in ``items``: the input each added
    # memory came from (same order as ``added``), and the inputs not added
    # because a current memory already says the same (exact duplicate,
    # near-duplicate, or judged duplicate) with that memory's id.
    added_from: list[int] = field(default_factory=list)
    merged_into: list[tuple[int, str]] = field(default_factory=list)  # (input index, memory id)
    duplicates: int = 0
    merged: int = 0
    secrets: int = 0
    too_long: int = 0
    empty: int = 0
    flagged: int = 0  # added, but quarantined until the user approves them
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (old id, new id)
    close_pairs: int = 0  # (new, old) pairs close enough to go to the judge
    judge_calls: int = 0

    @property
    def skipped(self) -> int:
        return self.duplicates + self.merged + self.secrets + self.too_long + self.empty

    def to_dict(self) -> dict:
        return {
            "added": len(self.added),
            "skipped": self.skipped,
            "duplicates": self.duplicates,
            "merged": self.merged,
            "secrets": self.secrets,
            "too_long": self.too_long,
            "flagged": self.flagged,
            "superseded": len(self.superseded),
            "close_pairs": self.close_pairs,
            "judge_calls": self.judge_calls,
        }


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) > 2 or not w.isascii()}


def word_overlap(a: str, b: str) -> float:
    "Jaccard overlap of the two texts' words."
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def write_memories(
    store: MemoryStore,
    items: list[dict],
    *,
    embedding_model=None,
    judge_model=None,
    vectors=None,
    max_chars: int | None = MAX_MEMORY_CHARS,
    progress=None,
) -> WriteReport:
    """Store facts through the whole write path; see the module docstring.

    ``items`` are dicts of MemoryStore.add arguments. ``vectors`` may carry
    precomputed embeddings (one per item, from ``embedding_model``).
    ``max_chars`` is the ``max_memory_chars`` setting. ``progress``: the
    CLI's progress bar for the learned detector's sentence pass
    (``learned_detector.quarantine_reasons``).

    Each stage below takes the batch's working state, decides about some
    candidates, and leaves the rest to the next stage.
    """
    batch = _Batch()
    _check_items(batch, items, max_chars)
    _skip_stored_duplicates(batch, store)
    if batch.candidates:
        matrix = _embed_candidates(batch.candidates, embedding_model, vectors)
        _flag_by_learned_detector(batch.candidates, matrix, embedding_model, progress)
        neighbours, duplicate_level = _nearest_memories(
            store, batch.candidates, matrix, embedding_model)
        close_calls = _merge_near_duplicates(batch, neighbours, duplicate_level)
        decisions = _judge_close_calls(batch, close_calls, judge_model)
        supersedes = _apply_judgements(batch, close_calls, decisions)
        added_by_key = _insert(batch, store)
        _supersede(batch, store, supersedes, added_by_key)
    return batch.placed()


@dataclass
class _Batch:
    """One write's working state, handed from stage to stage.

    ``candidates`` are the facts still to be written, as dicts of
    MemoryStore.add arguments plus ``_index`` (their input index) and
    ``_key`` (their content key); each stage removes the ones it settles.
    """

    report: WriteReport = field(default_factory=WriteReport)
    candidates: list[dict] = field(default_factory=list)
    first_with_key: dict[str, int] = field(default_factory=dict)  # content key -> first input index
    repeats: list[tuple[int, str]] = field(default_factory=list)  # (input index, key): in-batch repeats
    home: dict[int, str] = field(default_factory=dict)  # input index -> id of the memory standing for it

    def placed(self) -> WriteReport:
        """The report, with ``merged_into`` filled from ``home``; an in-batch
        repeat goes wherever the first input with its content went."""
        for index, key in self.repeats:
            if self.first_with_key[key] in self.home:
                self.home[index] = self.home[self.first_with_key[key]]
        added = set(self.report.added_from)
        self.report.merged_into = sorted(
            (i, memory_id) for i, memory_id in self.home.items() if i not in added)
        return self.report


def _check_items(batch: _Batch, items: list[dict], max_chars: int | None) -> None:
    """Stage 1: the shared check (length, hiding characters, secrets,
    quarantine) on every input, and in-batch exact duplicates skipped."""
    report = batch.report
    for index, item in enumerate(items):
        # The text as written: line breaks stay (joining lines would hide a
        # heading or role line from the checks); the block makes it one bullet.
        check = check_memory(item["content"], max_chars)
        if check.refused:
            if check.secret:
                report.secrets += 1
            elif check.too_long:
                report.too_long += 1
            else:
                report.empty += 1
            continue
        key = content_key(check.text, item.get("project"))
        if key in batch.first_with_key:
            report.duplicates += 1
            batch.repeats.append((index, key))
            continue
        batch.first_with_key[key] = index
        batch.candidates.append({**item, "content": check.text, "flag": check.flag,
                                 "checked_at": now_ms(), "_index": index, "_key": key})


def _skip_stored_duplicates(batch: _Batch, store: MemoryStore) -> None:
    """Stage 2: exact duplicates of current memories are skipped. A project
    fact that a global memory already states is a duplicate too: the global
    one is recalled in every project."""
    candidates = batch.candidates
    existing = store.existing_keys(
        [c["_key"] for c in candidates]
        + [content_key(c["content"]) for c in candidates if c.get("project")]
    )
    fresh = []
    for candidate in candidates:
        found = existing.get(candidate["_key"]) or (
            existing.get(content_key(candidate["content"])) if candidate.get("project") else None)
        if found:
            batch.home[candidate["_index"]] = found
        else:
            fresh.append(candidate)
    batch.report.duplicates += len(candidates) - len(fresh)
    batch.candidates = fresh


def _embed_candidates(candidates: list[dict], embedding_model, vectors):
    """Stage 3: vectors for the new facts (precomputed ``vectors`` if given),
    set on each candidate. Returns the (facts, dimensions) matrix, or None
    without an embedding model or when embedding fails: the facts are then
    stored without vectors."""
    from .embeddings import embed_passages, to_blob

    if embedding_model is None:
        return None
    try:
        if vectors is not None:
            import numpy as np

            matrix = np.stack([vectors[c["_index"]] for c in candidates])
        else:
            matrix = embed_passages(embedding_model, [c["content"] for c in candidates])
        for candidate, vector in zip(candidates, matrix):
            candidate["embedding"] = to_blob(vector)
            candidate["embedding_model"] = embedding_model.model_id
    except Exception:
        log.exception("embedding failed; facts stored without vectors")
        return None
    return matrix


def _flag_by_learned_detector(candidates: list[dict], matrix, embedding_model, progress=None) -> None:
    """Stage 3b: the learned detector (learned_detector.py) on the vectors just
    made: its heads' reasons for facts the patterns let through (read a
    sentence at a time too, where a fact has several), and a
    bare-order flag cleared where the wish head reads a standing wish;
    skipped for other models' vectors."""
    from .learned_detector import quarantine_reasons

    texts = [candidate["content"] for candidate in candidates]
    flags = [candidate["flag"] for candidate in candidates]
    for candidate, reason in zip(candidates, quarantine_reasons(matrix, embedding_model, texts, flags, progress)):
        candidate["flag"] = reason


Neighbours = list[list[tuple[Memory, float]]]


def _nearest_memories(store: MemoryStore, candidates: list[dict], matrix,
                      embedding_model) -> tuple[Neighbours, float]:
    """Stage 4: the nearest current memories of every new fact, closest
    first, with the score at which a neighbour counts as a duplicate: by
    embedding when the facts have vectors, else by word overlap."""
    if matrix is None:
        return _nearest_by_words(store, candidates), WORD_OVERLAP_DUPLICATE
    duplicate_level = getattr(embedding_model, "duplicate_similarity", DEFAULT_DUPLICATE_SIMILARITY)
    related_level = getattr(embedding_model, "related_similarity", DEFAULT_RELATED_SIMILARITY)
    neighbours: Neighbours = [[] for _ in candidates]
    ids, stored = store.current_vectors(embedding_model.model_id)
    if not ids or stored.shape[1] != matrix.shape[1]:
        return neighbours, duplicate_level
    scores = matrix @ stored.T  # (new, stored) in one product
    _mask_other_scopes(store, scores, ids, [c.get("project") for c in candidates])
    id_pairs = []
    for row in range(len(candidates)):
        best = scores[row].argsort()[::-1][:NEIGHBOURS]
        id_pairs.append([(ids[i], float(scores[row, i])) for i in best
                         if scores[row, i] >= related_level])
    memories = {m.id: m for m in store.get_many(
        list(dict.fromkeys(i for pairs in id_pairs for i, _ in pairs)))}
    neighbours = [[(memories[i], s) for i, s in pairs if i in memories] for pairs in id_pairs]
    return neighbours, duplicate_level


def _nearest_by_words(store: MemoryStore, candidates: list[dict]) -> Neighbours:
    "Without vectors: full-text search hits whose words overlap the fact's enough."
    neighbours: Neighbours = []
    for candidate in candidates:
        hits = store.search(candidate["content"], NEIGHBOURS)
        overlaps = [(m, word_overlap(candidate["content"], m.content)) for m, _ in hits
                    if m.project in (None, candidate.get("project"))]
        neighbours.append([(m, o) for m, o in overlaps if o >= WORD_OVERLAP_DUPLICATE])
    return neighbours


def _merge_near_duplicates(batch: _Batch, neighbours: Neighbours,
                           duplicate_level: float) -> list[tuple[int, Memory]]:
    """Stage 5: a fact whose nearest memory is a near-duplicate is merged
    into it (not added). Returns the close calls for the judge: (index in the
    remaining candidates, old memory)."""
    to_add: list[dict] = []
    close_calls: list[tuple[int, Memory]] = []
    for candidate, near in zip(batch.candidates, neighbours):
        if near and near[0][1] >= duplicate_level:
            batch.report.merged += 1
            batch.home[candidate["_index"]] = near[0][0].id
            continue
        to_add.append(candidate)
        for memory, _ in near:
            close_calls.append((len(to_add) - 1, memory))
    batch.candidates = to_add
    batch.report.close_pairs = len(close_calls)
    return close_calls


def _judge_close_calls(batch: _Batch, close_calls: list[tuple[int, Memory]],
                       judge_model) -> dict[int, str]:
    """Stage 6: one judge call for all close pairs, when a judge model is
    given. Returns the relation by pair number (from 1); a failed call
    decides nothing, so close facts are kept side by side."""
    if not close_calls or judge_model is None:
        return {}
    try:
        decisions = judge(judge_model,
                          [(batch.candidates[i]["content"], m.content) for i, m in close_calls])
    except Exception:
        log.exception("the update judge failed; close facts are kept side by side")
        return {}
    batch.report.judge_calls = 1
    return decisions


def _apply_judgements(batch: _Batch, close_calls: list[tuple[int, Memory]],
                      decisions: dict[int, str]) -> list[tuple[str, str]]:
    """Stage 7: judged duplicates are merged; the updates found, by
    extraction (``supersedes``) or by the judge, are returned as
    (content key of the new fact, id of the old memory). A quarantined fact
    retires nothing: it is not known to be true."""
    candidates = batch.candidates
    supersedes = [(c["_key"], c["supersedes"]) for c in candidates
                  if c.get("supersedes") and not c["flag"]]
    drop: set[int] = set()
    for pair_number, (add_index, memory) in enumerate(close_calls, 1):
        relation = decisions.get(pair_number)
        candidate = candidates[add_index]
        if relation == "duplicate":
            drop.add(add_index)
            batch.home.setdefault(candidate["_index"], memory.id)
        elif relation == "updates" and not candidate["flag"]:
            supersedes.append((candidate["_key"], memory.id))
    batch.report.merged += len(drop)
    batch.candidates = [c for i, c in enumerate(candidates) if i not in drop]
    return supersedes


def _insert(batch: _Batch, store: MemoryStore) -> dict[str, str]:
    """Stage 8: the remaining facts go into the table in one transaction (a
    fact stored meanwhile by another writer is skipped as a duplicate).
    Returns the new memory ids by content key."""
    report = batch.report
    index_by_key = {c["_key"]: c["_index"] for c in batch.candidates}
    added, skipped = store.add_many(
        [{k: v for k, v in c.items() if k not in ("_index", "_key", "supersedes")}
         for c in batch.candidates]
    )
    report.duplicates += skipped
    report.added = added
    report.flagged = sum(1 for m in added if m.flag)
    added_by_key = {content_key(m.content, m.project): m.id for m in added}
    report.added_from = [index_by_key[content_key(m.content, m.project)] for m in added]
    batch.home.update(zip(report.added_from, (m.id for m in added)))
    return added_by_key


def _supersede(batch: _Batch, store: MemoryStore, supersedes: list[tuple[str, str]],
               added_by_key: dict[str, str]) -> None:
    """Stage 9: each update that was stored retires the memory it replaces
    (kept as history, no longer recalled)."""
    for key, old_id in supersedes:
        new_id = added_by_key.get(key)
        if new_id:
            store.supersede(old_id, new_id)
            batch.report.superseded.append((old_id, new_id))


def _mask_other_scopes(store: MemoryStore, scores, ids: list[str], projects: list) -> None:
    """Make project memories no neighbour of a new fact of another scope: a
    fact merged into another project's memory would be lost to its own
    project, a global fact merged into a project's to every other one. A
    project's fact may merge into a global memory, recalled there anyway."""
    import numpy as np

    by_id = store.project_ids()
    if not by_id:
        return
    column_projects = [by_id.get(memory_id) for memory_id in ids]
    for project in set(projects):
        other = np.array([p is not None and p != project for p in column_projects])
        rows = [row for row, p in enumerate(projects) if p == project]
        if other.any():
            scores[np.ix_(rows, np.flatnonzero(other))] = -np.inf


def judge(model, pairs: list[tuple[str, str]]) -> dict[int, str]:
    "One call deciding duplicate/updates/unrelated for every (new, old) pair."
    from .model_output import find_json

    lines = [f"{n}. NEW: {new}\n   OLD: {old}" for n, (new, old) in enumerate(pairs, 1)]
    kwargs = {"system": JUDGE_SYSTEM, "stream": False}
    if getattr(model, "supports_schema", False):
        kwargs["schema"] = JUDGE_SCHEMA
    text = model.prompt("\n".join(lines), **kwargs).text()
    data = find_json(text, lambda value: isinstance(value, dict)
                     and isinstance(value.get("decisions"), list))
    if data is not None:
        return {
            int(d["pair"]): d["relation"]
            for d in data["decisions"]
            if isinstance(d, dict) and isinstance(d.get("pair"), int)
            and d.get("relation") in ("duplicate", "updates", "unrelated")
        }
    raise ValueError(f"Unparseable judge answer: {text[:200]!r}")

