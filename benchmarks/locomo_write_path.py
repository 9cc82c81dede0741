#!/usr/bin/env python3
"""LoCoMo recall before and after the write path.

Run from the repository root:

    python benchmarks/locomo_write_path.py                  # everything
    python benchmarks/locomo_write_path.py --limit-conversations 1 --max-questions 40
    python benchmarks/locomo_write_path.py --embed-in-write-path

Every turn of a conversation ("Speaker: text") is stored twice, in two fresh
MemoryStores, with the same multilingual-e5-small vectors (embedded once):

  before   MemoryStore.add_many of all turns, as locomo_recall.py indexes
           them: exact duplicates (same content_key) are stored once.
  after    write.write_memories, one batch per session in session order, each
           turn with its session's date as created_at: secrets dropped,
           relative dates made absolute against that date, exact duplicates
           skipped, near-duplicates of stored memories (cosine >= the model's
           duplicate_similarity) merged. No judge model is given, so nothing
           is superseded.

The shared vectors are of the turns as spoken, as `llm memories import` and
`add` pass them: a turn whose date is rewritten keeps the vector of its
original text. With --embed-in-write-path, write_memories embeds the rewritten
texts itself instead, as extraction does (every turn is embedded twice).

Each stored memory stands for a set of turns: its own, plus the turns whose
input the WriteReport says went into it (merged_into). Every question is then
asked of both stores with locomo_recall's methods (fts, cosine, the cascade
recall.recall() with default Settings, rrf), and Recall@k is the share of the
question's evidence turns among the k memories returned: categories 1-4
pooled, category 5 (adversarial) apart.

To see what moved the numbers, questions are also split by whether an
evidence turn was regrouped (its memory stands for a different set of turns
than before: a near-duplicate merge, or identical turns kept apart because
their dates resolved differently) or was stored with a date rewritten.

Data: as locomo_recall.py (../shared/data/locomo, or KINETAIOS_LOCOMO_DIR);
without it the script says so and exits 0.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import markdown_table, pct  # noqa: E402
from locomo_recall import (  # noqa: E402
    locomo_argument_parser,
    KS,
    METHODS,
    CachingQueryModel,
    Conversation,
    IndexedConversation,
    Tally,
    by_category,
    embed_turns,
    index_conversation,
    load_conversations,
    locomo_dir,
    mean,
    score_question,
    scratch_store,
)

from llm_kinetaios.config import Settings  # noqa: E402
from llm_kinetaios.embeddings import MultilingualE5Small  # noqa: E402
from llm_kinetaios.write import write_memories  # noqa: E402

EXAMPLES = 5


@dataclass
class Written:
    index: IndexedConversation
    counts: Counter
    rewritten: dict[str, str]  # dia_id -> stored text, for turns whose date was rewritten
    seconds: float


def write_conversation(conv: Conversation, model, db_path: Path, vectors) -> Written:
    "Store the turns through write_memories, one batch per session; ``vectors``: one per turn, or None."
    store = scratch_store(db_path)
    dia_ids: dict[str, set[str]] = defaultdict(set)
    counts: Counter = Counter()
    rewritten: dict[str, str] = {}
    start = 0
    started = time.perf_counter()
    for _, group in itertools.groupby(conv.turns, key=lambda t: t.dia_id.split(":")[0]):
        session = list(group)
        items = [dict(content=t.content, source="import", created_at=t.created_at) for t in session]
        # Turns of any length, and none held back by the quarantine: dialogue
        # says "you" all the time, which the detector reads as text addressed
        # to the model (docs/safety.md measures the quarantine itself). Here
        # every flagged turn is approved, as a user vouching for it would.
        report = write_memories(store, items, embedding_model=model, max_chars=None,
                                vectors=None if vectors is None else vectors[start : start + len(session)])
        for memory in report.added:
            if memory.flag:
                store.approve(memory.id)
        start += len(session)
        for memory, i in zip(report.added, report.added_from):
            dia_ids[memory.id].add(session[i].dia_id)
            # write_memories only removes hiding characters and resolves
            # dates, so any other difference is a date rewrite.
            if memory.content != " ".join(session[i].content.split()):
                rewritten[session[i].dia_id] = memory.content
        for i, memory_id in report.merged_into:
            dia_ids[memory_id].add(session[i].dia_id)
        counts.update(stored=len(report.added), merged=report.merged,
                      duplicates=report.duplicates, secrets=report.secrets,
                      flagged=report.flagged)
    seconds = time.perf_counter() - started
    return Written(IndexedConversation.of(store, model, dict(dia_ids), 0.0), counts, rewritten, seconds)


def turn_groups(index: IndexedConversation) -> dict[str, frozenset[str]]:
    "dia_id -> the set of turns its memory stands for."
    return {dia: frozenset(group) for group in index.dia_ids.values() for dia in group}


@dataclass
class Run:
    before: Tally = field(default_factory=Tally)
    after: Tally = field(default_factory=Tally)
    counts: Counter = field(default_factory=Counter)
    seconds: Counter = field(default_factory=Counter)
    # One entry per question, in tally order: (category, regrouped?, rewritten?).
    flags: list[tuple[int, bool, bool]] = field(default_factory=list)
    merge_examples: list[str] = field(default_factory=list)
    rewrite_examples: list[str] = field(default_factory=list)


def run_conversation(conv: Conversation, model, tmp: Path, run: Run, embed_in_write_path: bool) -> None:
    vectors, seconds = embed_turns(conv, model)
    run.seconds["embed"] += seconds
    started = time.perf_counter()
    before = index_conversation(conv, model, tmp / f"{conv.name}-before.db", vectors)
    run.seconds["add_many"] += time.perf_counter() - started
    written = write_conversation(conv, model, tmp / f"{conv.name}-after.db",
                                 None if embed_in_write_path else vectors)
    after = written.index
    run.seconds["write_memories"] += written.seconds
    run.counts.update(written.counts)
    run.counts.update(turns=len(conv.turns), stored_before=len(before.ids),
                      rewritten=len(written.rewritten))

    old, new = turn_groups(before), turn_groups(after)
    regrouped = {dia for dia in new if new[dia] != old.get(dia)}
    text = {t.dia_id: t.content for t in conv.turns}
    started = time.perf_counter()
    for q in conv.questions:
        score_question(q, before, model, run.before)
        score_question(q, after, model, run.after)
        moved, dated = q.evidence & regrouped, q.evidence & written.rewritten.keys()
        run.flags.append((q.category, bool(moved), bool(dated)))
        # Examples only where the cascade's answer changed: those explain the deltas.
        deltas = [run.after.recall[("cascade", k)][-1][1] - run.before.recall[("cascade", k)][-1][1]
                  for k in KS]
        if not any(deltas):
            continue
        change = "cascade R@" + "/".join(map(str, KS)) + " " + "/".join(f"{d:+.2f}" for d in deltas)
        if moved and len(run.merge_examples) < EXAMPLES:
            dia = min(moved)
            others = "; ".join(f"{d} {text[d]!r}" for d in sorted(new[dia] - {dia}))
            run.merge_examples.append(f"{q.text!r} ({change}): evidence {dia} {text[dia]!r} stored with "
                                      f"{others or 'nothing (kept apart from its exact twin)'}")
        if dated and len(run.rewrite_examples) < EXAMPLES:
            dia = min(dated)
            run.rewrite_examples.append(f"{q.text!r} ({change}): {dia} {text[dia]!r} -> "
                                        f"{written.rewritten[dia]!r}")
    run.seconds["questions"] += time.perf_counter() - started
    before.store.close()
    after.store.close()
    print(f"[{conv.name}] {len(conv.turns)} turns: {len(before.ids)} memories before, "
          f"{len(after.ids)} after ({written.counts['merged']} merged, "
          f"{len(written.rewritten)} dates rewritten); {len(conv.questions)} questions",
          file=sys.stderr, flush=True)


# Reporting --------------------------------------------------------------------


def points(before: float | None, after: float | None) -> str:
    "after - before, in percentage points."
    if before is None or after is None:
        return "–"
    return f"{100 * (after - before):+.1f} pp"


def report(run: Run) -> str:
    out = []
    cats = {1, 2, 3, 4}
    n_own = sum(run.before.questions[c] for c in cats)
    rows = []
    for method in METHODS:
        for k in KS:
            b, a = run.before.recall[(method, k)], run.after.recall[(method, k)]
            own = by_category(b, cats), by_category(a, cats)
            adv = by_category(b, {5}), by_category(a, {5})
            rows.append([method, k, pct(own[0]), f"**{pct(own[1])}**", points(*own),
                         pct(adv[0]), pct(adv[1]), points(*adv)])
    out += [
        "## Recall@k before (add_many) and after (write_memories)",
        "",
        markdown_table(["method", "k", f"before 1-4 (n={n_own})", "after 1-4", "Δ 1-4",
                        f"before cat 5 (n={run.before.questions[5]})", "after cat 5", "Δ cat 5"], rows),
        "",
    ]

    c = run.counts
    rows = [
        ["turns", c["turns"], ""],
        ["stored before (add_many)", c["stored_before"], pct(c["stored_before"] / c["turns"])],
        ["stored after (write_memories)", c["stored"], pct(c["stored"] / c["turns"])],
        ["merged (near-duplicates)", c["merged"], pct(c["merged"] / c["turns"])],
        ["exact duplicates", c["duplicates"], pct(c["duplicates"] / c["turns"])],
        ["secrets dropped", c["secrets"], pct(c["secrets"] / c["turns"])],
        ["stored with a date rewritten", c["rewritten"], pct(c["rewritten"] / c["turns"])],
    ]
    out += ["## What the write path did", "",
            markdown_table(["", "count", "of turns"], rows), "",
            f"After/before stored: {c['stored'] / max(c['stored_before'], 1):.3f}.", ""]

    # R@15 (the default recall_limit) on the questions each change touches.
    def at_15(tally, method):
        return [r for _, r in tally.recall[(method, 15)]]

    before, after = at_15(run.before, "cascade"), at_15(run.after, "cascade")
    fts = at_15(run.before, "fts"), at_15(run.after, "fts")
    cosine = at_15(run.before, "cosine"), at_15(run.after, "cosine")
    subsets = [
        ("all 1-4", lambda cat, moved, dated: cat in cats),
        ("1-4, evidence regrouped", lambda cat, moved, dated: cat in cats and moved),
        ("1-4, evidence date rewritten", lambda cat, moved, dated: cat in cats and dated),
        ("cat 5, evidence regrouped", lambda cat, moved, dated: cat == 5 and moved),
        ("cat 5, evidence date rewritten", lambda cat, moved, dated: cat == 5 and dated),
    ]
    rows = []
    for name, keep in subsets:
        chosen = [i for i, flags in enumerate(run.flags) if keep(*flags)]
        b, a = mean(before[i] for i in chosen), mean(after[i] for i in chosen)
        rows.append([name, len(chosen), pct(b), pct(a), points(b, a),
                     sum(after[i] > before[i] for i in chosen),
                     sum(after[i] < before[i] for i in chosen)]
                    + [points(mean(x[i] for i in chosen), mean(y[i] for i in chosen))
                       for x, y in (fts, cosine)])
    out += ["## R@15 on the questions the write path touched", "",
            "before/after/better/worse: the cascade; better and worse count questions.", "",
            markdown_table(["questions", "n", "before", "after", "Δ", "better", "worse",
                            "fts Δ", "cosine Δ"], rows), ""]

    if run.merge_examples:
        out += ["Regrouped evidence where the cascade's recall changed:", ""]
        out += [f"- {e}" for e in run.merge_examples] + [""]
    if run.rewrite_examples:
        out += ["Date-rewritten evidence where the cascade's recall changed:", ""]
        out += [f"- {e}" for e in run.rewrite_examples] + [""]
    return "\n".join(out)


def main(argv=None) -> int:
    parser = locomo_argument_parser(__doc__)
    parser.add_argument("--embed-in-write-path", action="store_true",
                        help="let write_memories embed the date-rewritten texts, as extraction does")
    args = parser.parse_args(argv)

    folder = locomo_dir()
    if not folder.is_dir() or not any(folder.glob("*.json")):
        print(f"LoCoMo data not found in {folder.name}/; set KINETAIOS_LOCOMO_DIR to its folder. "
              "Skipping the benchmark.")
        return 0

    started = time.perf_counter()
    conversations = load_conversations(folder, args.limit_conversations, args.max_questions)
    base_model = MultilingualE5Small()
    model = CachingQueryModel(base_model)
    run = Run()
    with tempfile.TemporaryDirectory(prefix="kinetaios-locomo-write-") as tmp:
        for conv in conversations:
            run_conversation(conv, model, Path(tmp), run, args.embed_in_write_path)
    total = time.perf_counter() - started

    s = run.seconds
    print(f"# LoCoMo recall before and after the write path: {len(conversations)} conversations, "
          f"{run.counts['turns']} turns, {sum(run.before.questions.values())} questions\n")
    vectors = ("write_memories embeds the stored (date-rewritten) texts" if args.embed_in_write_path
               else "both stores share the vectors of the turns as spoken")
    print(f"Model {base_model.model_id} (duplicate_similarity {base_model.duplicate_similarity}; "
          f"{vectors}), default Settings (recall_limit {Settings().recall_limit}). Embedding {s['embed']:.0f}s, "
          f"add_many {s['add_many']:.1f}s, write_memories {s['write_memories']:.1f}s, "
          f"questions (both stores) {s['questions']:.0f}s; whole run {total:.0f}s.\n")
    print(report(run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
