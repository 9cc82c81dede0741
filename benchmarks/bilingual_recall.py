#!/usr/bin/env python3
"""Cross-language recall: facts in one language, questions in the other.

Run from the repository root:

    python benchmarks/bilingual_recall.py                 # both splits
    python benchmarks/bilingual_recall.py --split tune

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
judgement, top k of every stored vector) is shown for comparison.

Off-topic: the MT-Bench prompts of the same split (benchmarks/data), in
English and in this project's Chinese translation, are asked of every store;
the share for which recall injects anything is reported per language.

Splits: the facts' "split" column. The ranking was tuned on "tune" only.
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
SPLITS = ("tune", "held-out")


def load_facts() -> list[dict]:
    with open(DATA / "bilingual_facts.tsv", encoding="utf-8") as fh:
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


PROMPT_FILES = {"en": "mt_bench_prompts.jsonl", "zh": "mt_bench_prompts_zh.jsonl"}


def load_prompts(split: str) -> dict[str, list[str]]:
    "Off-topic prompts of ``split``, by language: MT-Bench and its Chinese translation."
    import json

    out = {}
    for language, name in PROMPT_FILES.items():
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
    off = {language: [bool(recall(store, p, Settings(), embedding_model=model,
                                  mark_used=False).memories) for p in texts]
           for language, texts in prompts.items()}
    return (
        [len(judged)]
        + [pct(np.mean(found[k])) for k in KS]
        + [pct(np.mean(cosine[k])) for k in KS]
        + [pct(np.mean(judged))]
        + [f"{pct(np.mean(off[language]))} of {len(off[language])}" for language in PROMPT_FILES]
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=SPLITS + ("both",), default="both")
    args = parser.parse_args(argv)
    os.environ.setdefault("LLM_USER_PATH", tempfile.mkdtemp(prefix="kinetaios-bench-user-"))

    splits = SPLITS if args.split == "both" else (args.split,)
    facts = load_facts()
    model = CachingQueryModel(MultilingualE5Small())  # each question is embedded once
    prompts = {s: load_prompts(s) for s in splits}
    started = time.perf_counter()
    results = {s: [] for s in splits}
    with tempfile.TemporaryDirectory(prefix="kinetaios-bilingual-") as tmp:
        for name, pairs in scenarios(facts).items():
            texts = [fact for fact, _ in pairs]
            store, ids, vectors = build_store(Path(tmp) / f"{name}.db", texts, model)
            for split in splits:
                row = measure(store, ids, vectors, pairs, facts, split, prompts[split], model)
                results[split].append([name] + row)
            store.close()
    print(f"# Bilingual recall, {model.model_id}, default settings; "
          f"run took {time.perf_counter() - started:.0f}s\n")
    headers = ["store", "questions", "recall R@1", "recall R@5", "cosine R@1", "cosine R@5",
               "judged relevant", "off-topic inject (English prompts)",
               "off-topic inject (Chinese prompts)"]
    for split in splits:
        print(f"## {split}\n")
        print(markdown_table(headers, results[split]))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
