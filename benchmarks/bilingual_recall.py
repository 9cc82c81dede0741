#!/usr/bin/env python3
"""Cross-language recall: facts in one language, questions in the other.

Run from the repository root:

    python benchmarks/bilingual_recall.py                 # tune and held-out
    python benchmarks/bilingual_recall.py --split tune
    python benchmarks/bilingual_recall.py --split fresh   # the fresh split alone
    python benchmarks/bilingual_recall.py --split fresh2  # the fresh2 split alone
    python benchmarks/bilingual_recall.py --split fresh3  # the fresh3 split alone
    python benchmarks/bilingual_recall.py --split fresh4  # the fresh4 split alone
    python benchmarks/bilingual_recall.py --split fresh5  # the fresh5 split alone (held out)
    python benchmarks/bilingual_recall.py --split fresh6  # the fresh6 split alone (kept for a later round)
    python benchmarks/bilingual_recall.py --split fresh7  # the fresh7 split alone (kept for a later round)
    python benchmarks/bilingual_recall.py --split fresh8  # the fresh8 split alone (kept for a later round)
    python benchmarks/bilingual_recall.py --split all     # all ten

benchmarks/data/bilingual_facts.tsv holds 48 facts about one user, each
written four ways (English and Chinese, third and first person), with the
question a user would ask about it in each language. Six stores of all 48
facts are built with the default embedding model (multilingual-e5-small):

  zh-third / zh-first   Chinese facts, English questions
  en-third / en-first   English facts, Chinese questions
  mixed-third / -first  facts alternating in pairs between English and
                        Chinese, each asked in the other language, so a
                        Chinese question meets 24 Chinese facts that are not
                        its answer
  zh-third-zhq          Chinese facts, Chinese questions (a Chinese user
                        asking in Chinese)
  en-third-enq          English facts, English questions

Each question goes through recall.recall() with default Settings; it counts
as found at k when its fact is among the first k memories recall returns (a
question recall judges unrelated returns nothing: a miss). Plain cosine (no
judgement, top k of every stored vector) is shown for comparison. "Implicit
R@5" is recall's R@5 on the questions that share no word with their fact
(``names_its_fact``): they need the fact without naming it.

Off-topic: the prompts of the same split, in English and in Chinese, are
asked of every store; the share for which recall injects anything is reported
per language. tune and held-out use MT-Bench and this project's Chinese
translation of it; fresh uses benchmarks/data/offtopic_prompts_fresh*.jsonl
(LongBench-Write prompts and prompts written in Chinese, each with a
translation); fresh2 uses benchmarks/data/offtopic_prompts_fresh2*.jsonl (HELM's
best ChatGPT prompts and prompts written in Chinese, each with a translation);
fresh3 uses benchmarks/data/offtopic_prompts_fresh3*.jsonl (FreshQA questions and
prompts written in Chinese); fresh4 uses benchmarks/data/offtopic_prompts_fresh4*.jsonl
(WritingBench requests, and factual and advice questions written for this project);
fresh5 uses benchmarks/data/offtopic_prompts_fresh5*.jsonl (HHH alignment prompts from
BIG-bench, and prompts written in Chinese first); fresh6 uses
benchmarks/data/offtopic_prompts_fresh6*.jsonl (TruthfulQA questions, and requests and
advice written for this project); fresh7 uses benchmarks/data/offtopic_prompts_fresh7*.jsonl
(Vicuna benchmark questions, and requests, factual questions and advice written for this
project); fresh8 uses benchmarks/data/offtopic_prompts_fresh8*.jsonl (NQ-open questions,
and requests and advice written for this project).

Splits: the facts' "split" column. The ranking was first tuned on "tune"
only; each later round tuned on every split already read (docs/recall.md says
which), and each fresh split was read only after the round it was written for.
"fresh" is a second held-out set with its own file,
benchmarks/data/bilingual_facts_fresh.tsv: 48 facts about another user, on
subjects none of bilingual_facts.tsv's are about, written before any recall
change was measured on it. Its stores hold those 48 facts only. It is run only
when asked (--split fresh or all), so a tuning run never shows it, and it is
reported only in aggregate (benchmarks/data/SOURCE.md). Once read, it
became tune material for the next round. "fresh2" is the third held-out set
(benchmarks/data/bilingual_facts_fresh2.tsv, 48 facts about a third user),
written the same way while that round ran, and reported the same way;
"fresh3" (benchmarks/data/bilingual_facts_fresh3.tsv, a fourth user) and
"fresh4" (bilingual_facts_fresh4.tsv, a fifth user) and "fresh5"
(bilingual_facts_fresh5.tsv, a sixth user) likewise for the rounds after.
"fresh6" (bilingual_facts_fresh6.tsv, a seventh user) is kept for a later round:
nothing has been measured on it yet.
"fresh7" (bilingual_facts_fresh7.tsv, an eighth user) is kept for a later round too:
nothing has been measured on it yet.
"fresh8" (bilingual_facts_fresh8.tsv, a ninth user) is kept for a later round as well:
nothing has been measured on it yet.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cached_passages, markdown_table, pct  # noqa: E402

import numpy as np  # noqa: E402

from llm_kinetaios.config import Settings  # noqa: E402
from llm_kinetaios.embeddings import MultilingualE5Small, to_blob  # noqa: E402
from llm_kinetaios.recall import recall  # noqa: E402
from llm_kinetaios.store import MemoryStore  # noqa: E402
from locomo_recall import CachingQueryModel  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
KS = (1, 5)
SPLITS = ("tune", "held-out", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8")
# --split both (the default) is the two splits of bilingual_facts.tsv, as before
# the fresh split was written; all adds fresh.
SPLIT_CHOICES = {"both": ("tune", "held-out"), "all": SPLITS} | {s: (s,) for s in SPLITS}
FACT_FILES = {"tune": "bilingual_facts.tsv", "held-out": "bilingual_facts.tsv",
              "fresh": "bilingual_facts_fresh.tsv", "fresh2": "bilingual_facts_fresh2.tsv",
              "fresh3": "bilingual_facts_fresh3.tsv", "fresh4": "bilingual_facts_fresh4.tsv",
              "fresh5": "bilingual_facts_fresh5.tsv", "fresh6": "bilingual_facts_fresh6.tsv",
              "fresh7": "bilingual_facts_fresh7.tsv", "fresh8": "bilingual_facts_fresh8.tsv"}
LANGUAGES = ("en", "zh")
MT_BENCH = {"en": "mt_bench_prompts.jsonl", "zh": "mt_bench_prompts_zh.jsonl"}
PROMPT_FILES = {"tune": MT_BENCH, "held-out": MT_BENCH,
                "fresh": {"en": "offtopic_prompts_fresh.jsonl", "zh": "offtopic_prompts_fresh_zh.jsonl"},
                "fresh2": {"en": "offtopic_prompts_fresh2.jsonl", "zh": "offtopic_prompts_fresh2_zh.jsonl"},
                "fresh3": {"en": "offtopic_prompts_fresh3.jsonl", "zh": "offtopic_prompts_fresh3_zh.jsonl"},
                "fresh4": {"en": "offtopic_prompts_fresh4.jsonl", "zh": "offtopic_prompts_fresh4_zh.jsonl"},
                "fresh5": {"en": "offtopic_prompts_fresh5.jsonl", "zh": "offtopic_prompts_fresh5_zh.jsonl"},
                "fresh6": {"en": "offtopic_prompts_fresh6.jsonl", "zh": "offtopic_prompts_fresh6_zh.jsonl"},
                "fresh7": {"en": "offtopic_prompts_fresh7.jsonl", "zh": "offtopic_prompts_fresh7_zh.jsonl"},
                "fresh8": {"en": "offtopic_prompts_fresh8.jsonl", "zh": "offtopic_prompts_fresh8_zh.jsonl"}}


# Words a question shares with its fact without naming what the fact is about.
COMMON_WORDS = frozenset("""
a an the i me my mine you your we our us he she it its they them their is am are was were be been
being do does did doing have has had having to of in on at for with from by about as and or but not
no so if then than that this these those what which who whom whose when where why how can could
should would will shall may might must any some all each every more most much many other into over
under up down out off again just also only very too own same such there here after before during
while because until against between through tell say said told remind go get got going need want
like know
""".split())


def content_words(text: str) -> set[str]:
    "The words of English ``text`` outside COMMON_WORDS, each cut to its first five letters."
    import re

    return {word[:5] for word in re.findall(r"[a-z0-9]+", text.lower())
            if word not in COMMON_WORDS and len(word) > 2}


def names_its_fact(line: dict) -> bool:
    """Whether the English question of a line of the data shares a word with
    its fact (either person). One that does not needs the fact without naming
    it ("Would an MRI scan be a problem for me?" of "I'm claustrophobic"):
    an implicit question, whose R@5 the table shows apart."""
    return bool(content_words(line["q_en"])
                & (content_words(line["en_first"]) | content_words(line["en_third"])))


def load_facts(name: str = "bilingual_facts.tsv") -> list[dict]:
    "The facts of one file of benchmarks/data (lines starting with # are comments)."
    with open(DATA / name, encoding="utf-8") as fh:
        lines = [line for line in fh if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def scenarios(facts: list[dict]) -> dict[str, list[tuple[str, str]]]:
    "name -> [(stored fact, question about it)], one per line of the data."
    out = {}
    for person in ("third", "first"):
        out[f"zh-{person}"] = [(f[f"zh_{person}"], f["q_en"]) for f in facts]
        out[f"en-{person}"] = [(f[f"en_{person}"], f["q_zh"]) for f in facts]
        out[f"mixed-{person}"] = [
            (f[f"en_{person}"], f["q_zh"]) if (i // 2) % 2 == 0 else (f[f"zh_{person}"], f["q_en"])
            for i, f in enumerate(facts)
        ]
    # The same language both ways: a Chinese user asking in Chinese must not
    # fare worse than an English one.
    out["zh-third-zhq"] = [(f["zh_third"], f["q_zh"]) for f in facts]
    out["en-third-enq"] = [(f["en_third"], f["q_en"]) for f in facts]
    return out


def load_prompts(split: str) -> dict[str, list[str]]:
    "Off-topic prompts of ``split``, by language (PROMPT_FILES)."
    import json

    out = {}
    for language, name in PROMPT_FILES[split].items():
        with open(DATA / name, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        out[language] = [row["prompt"] for row in rows if row["split"] == split]
    return out


def build_store(path: Path, texts: list[str], model) -> tuple[MemoryStore, list[str], np.ndarray]:
    store = MemoryStore.open(path)
    store.db.execute("PRAGMA synchronous = OFF")
    vectors = cached_passages(model, texts, "bilingual")
    added, _ = store.add_many([
        dict(content=text, source="import", embedding=to_blob(v), embedding_model=model.model_id)
        for text, v in zip(texts, vectors)
    ])
    assert len(added) == len(texts), "a fact was stored twice: the data has duplicates"
    return store, [m.id for m in added], vectors


def measure(store, ids, vectors, pairs, facts, split, prompts, model) -> list:
    "One table row: recall and plain cosine R@k for ``split``'s questions, then off-topic."
    found = {k: [] for k in KS}
    cosine = {k: [] for k in KS}
    implicit = []  # found at 5, questions that do not name their fact
    judged = []
    for (fact, question), memory_id, line in zip(pairs, ids, facts):
        if line["split"] != split:
            continue
        result = recall(store, question, Settings(), embedding_model=model, mark_used=False)
        returned = [m.id for m in result.memories]
        order = np.argsort(-(vectors @ model.embed_query(question)))
        judged.append(bool(returned))
        for k in KS:
            found[k].append(memory_id in returned[:k])
            cosine[k].append(memory_id in [ids[i] for i in order[:k]])
        if not names_its_fact(line):
            implicit.append(memory_id in returned[:5])
    off = {language: [bool(recall(store, p, Settings(), embedding_model=model,
                                  mark_used=False).memories) for p in texts]
           for language, texts in prompts.items()}
    return (
        [len(judged)]
        + [pct(np.mean(found[k])) for k in KS]
        + [f"{pct(np.mean(implicit)) if implicit else '–'} of {len(implicit)}"]
        + [pct(np.mean(cosine[k])) for k in KS]
        + [pct(np.mean(judged))]
        + [f"{pct(np.mean(off[language]))} of {len(off[language])}" for language in LANGUAGES]
    )


def measure_file(name: str, splits, prompts, model, tmp: Path) -> dict[str, list]:
    "Table rows for ``splits``, all read from fact file ``name``: one store per scenario."
    facts = load_facts(name)
    results = {s: [] for s in splits}
    for scenario, pairs in scenarios(facts).items():
        texts = [fact for fact, _ in pairs]
        store, ids, vectors = build_store(tmp / f"{Path(name).stem}-{scenario}.db", texts, model)
        for split in splits:
            row = measure(store, ids, vectors, pairs, facts, split, prompts[split], model)
            results[split].append([scenario] + row)
        store.close()
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=tuple(SPLIT_CHOICES), default="both",
                        help="both (default): tune and held-out; all: those and the fresh, fresh2, fresh3, fresh4, fresh5, "
                             "fresh6, fresh7 and fresh8 splits")
    args = parser.parse_args(argv)
    os.environ.setdefault("LLM_USER_PATH", tempfile.mkdtemp(prefix="kinetaios-bench-user-"))

    splits = SPLIT_CHOICES[args.split]
    model = CachingQueryModel(MultilingualE5Small())  # each question is embedded once
    prompts = {s: load_prompts(s) for s in splits}
    started = time.perf_counter()
    results = {}
    with tempfile.TemporaryDirectory(prefix="kinetaios-bilingual-") as tmp:
        for name in dict.fromkeys(FACT_FILES[s] for s in splits):
            file_splits = [s for s in splits if FACT_FILES[s] == name]
            results |= measure_file(name, file_splits, prompts, model, Path(tmp))
    print(f"# Bilingual recall, {model.model_id}, default settings; "
          f"run took {time.perf_counter() - started:.0f}s\n")
    headers = ["store", "questions", "recall R@1", "recall R@5", "implicit R@5",
               "cosine R@1", "cosine R@5",
               "judged relevant", "off-topic inject (English prompts)",
               "off-topic inject (Chinese prompts)"]
    for split in splits:
        print(f"## {split}\n")
        print(markdown_table(headers, results[split]))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
