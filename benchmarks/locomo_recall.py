#!/usr/bin/env python3
"""Recall quality of llm-kinetaios on LoCoMo conversations, by split.

Run from the repository root:

    python benchmarks/locomo_recall.py                      # both splits
    python benchmarks/locomo_recall.py --split tune --max-questions 40

Every turn of a conversation becomes one memory ("Speaker: text"; with
--photo-captions a turn that shares a photo ends with "[shares CAPTION]", its
BLIP caption, as LoCoMo's own retrieval code writes turns) in a fresh
MemoryStore, with its session as its conversation (LoCoMo's sessions are
separate chats), embedded with the plugin's default model
(multilingual-e5-small). Vectors are cached between runs in the temp folder
(benchmarks/_common.cached_passages). Each question is asked of:

  fts      FTS5 keyword search alone (MemoryStore.search)
  cosine   plain cosine over every stored vector, top k
  rrf60    reciprocal rank fusion (k=60) of the full cosine and FTS5 rankings
  recall   the plugin's recall.recall() with default Settings, judgement and all
           (a question it judges unrelated retrieves nothing)

For k = 5, 10, 15 it reports, as other LoCoMo retrieval papers do:
turn-level recall (share of a question's evidence turns in the top k),
session-level recall (share of its evidence sessions with a turn in the top
k), and the any-evidence and all-evidence hit rates; per category, and over
categories 1-4 (category 5 is adversarial).

Splits: the ranking was tuned on the first four conversations by sorted file
name ("tune"); the other three ("held-out") are reported apart and were not
looked at while tuning.

Off-topic: the MT-Bench prompts of the same split (benchmarks/data) are asked
of every turn store and of a fact-like store of the same conversation (its
events_session_N summaries: short third-person facts); the share for which
recall injects anything is reported.

Data: ../shared/data/locomo/*.json relative to the repository root, or the
folder named by KINETAIOS_LOCOMO_DIR (see SOURCE.md there). Nothing is
downloaded; without the data the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, cached_passages, markdown_table, pct  # noqa: E402

import numpy as np  # noqa: E402

from llm_kinetaios import recall as recall_mod  # noqa: E402
from llm_kinetaios.config import Settings  # noqa: E402
from llm_kinetaios.embeddings import (  # noqa: E402
    MultilingualE5Small,
    embed_query,
    matrix_from_blob,
    to_blob,
)
from llm_kinetaios.store import MemoryStore, content_key  # noqa: E402

KS = (5, 10, 15)
RRF_K = 60
METHODS = ("fts", "cosine", "cascade", "rrf")
STAGES = ("cosine", "keyword", "recent", "none")
# The embedding stage reports "hybrid" (RRF of cosine and keywords) under the
# default ranking, "cosine" under ranking=cosine: both are the cosine stage.
def stage_of(method):
    return "cosine" if method == "hybrid" else method


TUNE_CONVERSATIONS = 4  # the first four files by sorted name
DATA = Path(__file__).resolve().parent / "data"


def mt_bench_prompts(split: str | None = None) -> list[str]:
    "MT-Bench's first turns (benchmarks/data/SOURCE.md), of one split or all."
    rows = [json.loads(line) for line in open(DATA / "mt_bench_prompts.jsonl", encoding="utf-8")]
    return [r["prompt"] for r in rows if split in (None, r["split"])]


# Data ---------------------------------------------------------------------


@dataclass
class Turn:
    dia_id: str
    content: str
    created_at: int | None


@dataclass
class Question:
    text: str
    evidence: set[str]
    category: int


@dataclass
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[Question]
    dropped_evidence: list[str] = field(default_factory=list)
    skipped_questions: int = 0
    # The per-session event summaries: short third-person facts, much like
    # the memories extraction writes, unlike chatty turns.
    events: list[str] = field(default_factory=list)


def locomo_dir() -> Path:
    env = os.environ.get("KINETAIOS_LOCOMO_DIR")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "data" / "locomo"


def session_time_ms(text) -> int | None:
    "LoCoMo dates look like '1:56 pm on 8 May, 2023'."
    try:
        when = datetime.datetime.strptime(str(text).strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return int(when.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


# Lenient on purpose: the data has "D8:6; D9:17" in one entry and "D:11:26".
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def parse_evidence(raw: list, known: set[str]) -> tuple[set[str], list[str]]:
    "(evidence ids naming a turn of this conversation, entries that could not be used)."
    found: set[str] = set()
    bad: list[str] = []
    for entry in raw or []:
        pieces = _EVIDENCE.findall(str(entry))
        if not pieces:
            bad.append(str(entry))
        for session, turn in pieces:
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id in known:
                found.add(dia_id)
            else:
                bad.append(str(entry))
    return found, bad


def turn_text(turn: dict, photo_captions: bool = False) -> str:
    """A turn as a memory: "Speaker: text". With ``photo_captions``, a turn
    that shares a photo ends with its caption, as LoCoMo's own retrieval code
    writes it: "... [shares a photo of a sunset over a lake]"."""
    text = f"{turn.get('speaker', '?')}: {turn.get('text', '')}".strip()
    if photo_captions and turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def load_conversations(folder: Path, limit: int | None, max_questions: int | None,
                       photo_captions: bool = False):
    conversations = []
    for path in sorted(folder.glob("*.json")):
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        conv = data.get("conversation", data)  # upstream nests it; the subset is flat
        sessions = sorted(
            (k for k in conv if re.fullmatch(r"session_\d+", k)),
            key=lambda k: int(k.split("_")[1]),
        )
        turns = []
        for key in sessions:
            when = session_time_ms(conv.get(f"{key}_date_time"))
            for turn in conv[key]:
                turns.append(Turn(turn["dia_id"], turn_text(turn, photo_captions), when))
        known = {t.dia_id for t in turns}
        result = Conversation(path.stem, turns, [])
        for key in sorted((k for k in data if re.fullmatch(r"events_session_\d+", k)),
                          key=lambda k: int(k.rsplit("_", 1)[1])):
            for speaker, events in (data[key] or {}).items():
                if speaker != "date" and isinstance(events, list):
                    result.events += [str(e).strip() for e in events if str(e).strip()]
        for qa in data.get("qa", []):
            evidence, bad = parse_evidence(qa.get("evidence"), known)
            result.dropped_evidence += bad
            if not evidence or not str(qa.get("question", "")).strip():
                result.skipped_questions += 1
                continue
            result.questions.append(Question(qa["question"], evidence, int(qa["category"])))
        if max_questions:
            result.questions = result.questions[:max_questions]
        conversations.append(result)
        if limit and len(conversations) >= limit:
            break
    return conversations


# Models and stores ----------------------------------------------------------


class CachingQueryModel:
    """The real model, with query embeddings memoised.

    The cascade embeds its query on every call, and the sweep calls it many
    times per question; caching keeps the run short without touching the code
    path being measured. Everything else (model_id, default_min_similarity)
    is the wrapped model's.
    """

    def __init__(self, model):
        self._model = model
        self._cache: dict[str, np.ndarray] = {}

    def __getattr__(self, name):
        return getattr(self._model, name)

    def embed_query(self, text: str):
        if text not in self._cache:
            self._cache[text] = embed_query(self._model, text)
        return self._cache[text]


@dataclass
class IndexedConversation:
    store: MemoryStore
    ids: list[str]
    matrix: np.ndarray
    dia_ids: dict[str, set[str]]  # memory id -> the turns it stands for
    embed_seconds: float

    @classmethod
    def of(cls, store: MemoryStore, model, dia_ids, embed_seconds: float) -> "IndexedConversation":
        "Wrap a filled store, reading back the vectors of its current memories."
        ids, blob = store.vectors(model.model_id)
        return cls(store, ids, matrix_from_blob(blob, len(ids)), dia_ids, embed_seconds)


def scratch_store(db_path: Path) -> MemoryStore:
    store = MemoryStore.open(db_path)
    # A throwaway store: an fsync per mark_used() would dominate the run time.
    store.db.execute("PRAGMA synchronous = OFF")
    return store


def embed_turns(conv: Conversation, model) -> tuple[np.ndarray, float]:
    "(one passage vector per turn, seconds taken; ~0 when cached from an earlier run)."
    start = time.perf_counter()
    vectors = cached_passages(model, [t.content for t in conv.turns], f"locomo-{conv.name}")
    return vectors, time.perf_counter() - start


def session_of(dia_id: str) -> str:
    "'D3:12' -> 'D3'."
    return dia_id.split(":")[0]


def index_conversation(conv: Conversation, model, db_path: Path, vectors=None) -> IndexedConversation:
    "Every turn as one memory, via add_many. ``vectors`` may be embed_turns' output, reused."
    store = scratch_store(db_path)
    if vectors is None:
        vectors, embed_seconds = embed_turns(conv, model)
    else:
        embed_seconds = 0.0
    items = [
        dict(
            content=t.content,
            source="import",
            created_at=t.created_at,
            embedding=to_blob(vector),
            embedding_model=model.model_id,
            conversation_id=f"{conv.name}-{session_of(t.dia_id)}",
        )
        for t, vector in zip(conv.turns, vectors)
    ]
    added, _ = store.add_many(items)
    # Turns that normalise to the same content_key are stored once; that one
    # memory then stands for all of them.
    turns_by_key: dict[str, set[str]] = defaultdict(set)
    for t in conv.turns:
        turns_by_key[content_key(t.content)].add(t.dia_id)
    dia_ids = {m.id: turns_by_key[content_key(m.content)] for m in added}
    return IndexedConversation.of(store, model, dia_ids, embed_seconds)


# Rankings -----------------------------------------------------------------


def rank_fts(store: MemoryStore, query: str, limit: int) -> list[str]:
    return [memory.id for memory, _ in store.search(query, limit)]


def rank_cosine(index: IndexedConversation, qvec: np.ndarray, limit: int | None = None):
    scores = index.matrix @ qvec
    order = np.argsort(-scores, kind="stable")
    if limit is not None:
        order = order[:limit]
    return [index.ids[i] for i in order], scores


def rrf(rankings: list[list[str]], limit: int, k: int = RRF_K) -> list[str]:
    fused: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, memory_id in enumerate(ranking, 1):
            fused[memory_id] += 1.0 / (k + rank)
    return sorted(fused, key=lambda m: -fused[m])[:limit]


def recall_at(ranked: list[str], index: IndexedConversation, evidence: set[str]) -> float:
    found = set()
    for memory_id in ranked:
        found |= index.dia_ids.get(memory_id, set())
    return len(found & evidence) / len(evidence)


# The per-method tallies locomo_write_path.py shares -----------------------------


@dataclass
class Tally:
    # recall[(method, k)] -> list of (category, recall)
    recall: dict = field(default_factory=lambda: defaultdict(list))
    # stages[group] -> Counter of cascade methods (default threshold)
    stages: dict = field(default_factory=lambda: defaultdict(Counter))
    questions: Counter = field(default_factory=Counter)


def group_of(category: int) -> str:
    return "adversarial (5)" if category == 5 else "own (1-4)"


def score_question(q: Question, index: IndexedConversation, model, tally: Tally) -> np.ndarray:
    """Tally Recall@k of every method (and the cascade's stage) for one
    question; returns the cosine scores of all memories."""
    default = Settings()
    tally.questions[q.category] += 1
    qvec = model.embed_query(q.text)
    cos_full, scores = rank_cosine(index, qvec)
    fts_full = rank_fts(index.store, q.text, len(index.ids))
    ranked = {
        "fts": fts_full[: max(KS)],
        "cosine": cos_full[: max(KS)],
        "rrf": rrf([cos_full, fts_full], max(KS)),
    }
    for k in KS:
        for method, ranking in ranked.items():
            tally.recall[(method, k)].append((q.category, recall_at(ranking[:k], index, q.evidence)))
        settings = Settings(recall_limit=k)
        result = recall_mod.recall(index.store, q.text, settings, embedding_model=model)
        tally.recall[("cascade", k)].append(
            (q.category, recall_at([m.id for m in result.memories], index, q.evidence))
        )
        if k == default.recall_limit:
            tally.stages[group_of(q.category)][stage_of(result.method)] += 1
    return scores


# Reporting --------------------------------------------------------------------


def mean(values) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def by_category(pairs, categories) -> float | None:
    return mean(r for c, r in pairs if c in categories)


def locomo_argument_parser(doc: str) -> argparse.ArgumentParser:
    "The options every LoCoMo benchmark takes: which data, and how much of it."
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Data folder: KINETAIOS_LOCOMO_DIR, else ../shared/data/locomo.")
    parser.add_argument("--limit-conversations", type=int, metavar="N",
                        help="use only the first N conversations")
    parser.add_argument("--max-questions", type=int, metavar="N",
                        help="ask at most N questions per conversation")
    return parser


# The split evaluation -------------------------------------------------------

COMPARED = ("fts", "cosine", "rrf60", "recall")
MEASURES = {"turn": "turn-level recall", "session": "session-level recall",
            "any": "any-evidence hit rate", "all": "all-evidence hit rate"}


@dataclass
class SplitTally:
    # rows[(method, k)] -> [(category, {measure: value})]
    rows: dict = field(default_factory=lambda: defaultdict(list))
    judged: list = field(default_factory=list)  # (category, recall returned something)
    off_topic: dict = field(default_factory=lambda: defaultdict(list))  # store kind -> [injected]
    questions: Counter = field(default_factory=Counter)


def evidence_measures(ranked: list[str], index: IndexedConversation, evidence: set[str]) -> dict:
    found: set[str] = set()
    for memory_id in ranked:
        found |= index.dia_ids.get(memory_id, set())
    sessions = {session_of(d) for d in evidence}
    return {
        "turn": len(found & evidence) / len(evidence),
        "session": len(sessions & {session_of(d) for d in found}) / len(sessions),
        "any": float(bool(found & evidence)),
        "all": float(evidence <= found),
    }


def ask(q: Question, index: IndexedConversation, model, tally: SplitTally) -> None:
    qvec = model.embed_query(q.text)
    cos_full, _ = rank_cosine(index, qvec)
    fts_full = rank_fts(index.store, q.text, len(index.ids))
    result = recall_mod.recall(index.store, q.text, Settings(), embedding_model=model,
                               mark_used=False)
    ranked = {
        "fts": fts_full[: max(KS)],
        "cosine": cos_full[: max(KS)],
        "rrf60": rrf([cos_full, fts_full], max(KS)),
        "recall": [m.id for m in result.memories],
    }
    tally.questions[q.category] += 1
    tally.judged.append((q.category, bool(result.memories)))
    for method, ranking in ranked.items():
        for k in KS:
            tally.rows[(method, k)].append((q.category, evidence_measures(ranking[:k], index, q.evidence)))


def fact_store(conv: Conversation, model, db_path: Path) -> MemoryStore | None:
    "The conversation's event summaries as global memories: a fact-like store."
    if not conv.events:
        return None
    store = scratch_store(db_path)
    vectors = cached_passages(model, conv.events, f"locomo-events-{conv.name}")
    store.add_many([dict(content=text, source="import", embedding=to_blob(vector),
                         embedding_model=model.model_id)
                    for text, vector in zip(conv.events, vectors)])
    return store


def off_topic(store: MemoryStore, prompts, model, kind: str, tally: SplitTally) -> None:
    for prompt in prompts:
        result = recall_mod.recall(store, prompt, Settings(), embedding_model=model, mark_used=False)
        tally.off_topic[kind].append(bool(result.memories))


def split_report(name: str, tally: SplitTally, conversations) -> str:
    cats = [c for c in (1, 2, 3, 4) if tally.questions[c]]
    out = [f"## {name}: conversations {', '.join(c.name for c in conversations)}", ""]
    n14 = sum(tally.questions[c] for c in cats)
    for measure, title in MEASURES.items():
        headers = ["method", "k"] + [f"cat {c} (n={tally.questions[c]})" for c in cats]
        headers += [f"cats 1-4 (n={n14})", f"cat 5 (n={tally.questions[5]})"]
        rows = []
        for method in COMPARED:
            for k in KS:
                pairs = [(c, m[measure]) for c, m in tally.rows[(method, k)]]
                rows.append([method, k] + [pct(by_category(pairs, {c})) for c in cats]
                            + [f"**{pct(by_category(pairs, set(cats)))}**", pct(by_category(pairs, {5}))])
        out += [f"### {title}", "", markdown_table(headers, rows), ""]
    judged = [ok for c, ok in tally.judged if c in cats]
    adversarial = [ok for c, ok in tally.judged if c == 5]
    out += [f"Recall judged relevant (returned memories): {pct(mean(judged))} of questions 1-4, "
            f"{pct(mean(adversarial))} of category 5.", ""]
    rows = [[kind, len(v), pct(mean(v))] for kind, v in sorted(tally.off_topic.items())]
    out += ["### Off-topic: MT-Bench prompts of this split that inject anything", "",
            markdown_table(["store", "prompts asked", "inject anything"], rows), ""]
    return "\n".join(out)


def main(argv=None) -> int:
    parser = locomo_argument_parser(__doc__)
    parser.add_argument("--split", choices=("tune", "held-out", "both"), default="both")
    parser.add_argument("--json", metavar="PATH", help="also write the raw figures as JSON")
    parser.add_argument("--photo-captions", action="store_true",
                        help="end a turn that shares a photo with its caption, as LoCoMo's own "
                             "retrieval code does (\"[shares a photo of ...]\")")
    args = parser.parse_args(argv)

    folder = locomo_dir()
    if not folder.is_dir() or not any(folder.glob("*.json")):
        print(f"LoCoMo data not found in {folder}; set KINETAIOS_LOCOMO_DIR to its folder. "
              "Skipping the benchmark.")
        return 0
    # The generic-prompt vectors recall caches go to a scratch user folder.
    os.environ.setdefault("LLM_USER_PATH", tempfile.mkdtemp(prefix="kinetaios-bench-user-"))
    started = time.perf_counter()
    conversations = load_conversations(folder, None, args.max_questions, args.photo_captions)
    splits = {"tune": conversations[:TUNE_CONVERSATIONS],
              "held-out": conversations[TUNE_CONVERSATIONS:]}
    if args.split != "both":
        splits = {args.split: splits[args.split]}
    if args.limit_conversations:
        splits = {k: v[: args.limit_conversations] for k, v in splits.items()}
    base_model = MultilingualE5Small()
    model = CachingQueryModel(base_model)
    reports, raw = [], {}
    with tempfile.TemporaryDirectory(prefix="kinetaios-locomo-") as tmp:
        for split, convs in splits.items():
            tally = SplitTally()
            prompts = mt_bench_prompts(split)
            for conv in convs:
                index = index_conversation(conv, model, Path(tmp) / f"{conv.name}.db")
                for q in conv.questions:
                    ask(q, index, model, tally)
                off_topic(index.store, prompts, model, "turns (every turn a memory)", tally)
                index.store.close()
                facts = fact_store(conv, model, Path(tmp) / f"{conv.name}-events.db")
                if facts is not None:
                    off_topic(facts, prompts, model, "facts (event summaries)", tally)
                    facts.close()
                print(f"[{split} {conv.name}] {len(conv.turns)} turns, {len(conv.questions)} questions, "
                      f"{len(conv.dropped_evidence)} unusable evidence entries, "
                      f"{conv.skipped_questions} questions skipped; embedded in "
                      f"{index.embed_seconds:.1f}s", file=sys.stderr, flush=True)
            reports.append(split_report(split, tally, convs))
            raw[split] = {f"{m}@{k}": v for (m, k), v in tally.rows.items()}
    turns = "turns with photo captions" if args.photo_captions else "turns as text only"
    print(f"# LoCoMo recall, {base_model.model_id}, default settings, {turns}; "
          f"run took {time.perf_counter() - started:.0f}s\n")
    print("\n".join(reports))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(raw, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
