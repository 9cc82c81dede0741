"""What the write path keeps out of the store, on LoCoMo's event summaries.

LoCoMo lists, per session, short events about each speaker ("Caroline attends
an LGBTQ support group for the first time."): the kind of fact extraction
writes. Each session's events are written as one batch, in order, through:

* baseline: MemoryStore.add_many, which skips exact duplicates only;
* the write path (write.py) with multilingual-e5-small: secrets, relative
  dates, exact duplicates, near-duplicate merging, and the close pairs that
  a separate judge would have to see (one call per batch that has any; no
  model is called here).

    python benchmarks/write_path.py [--limit-conversations N]
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("KINETAIOS_LOCOMO_DIR", ROOT.parent / "shared" / "data" / "locomo"))


def sessions(path: Path):
    data = json.loads(path.read_text())
    data = data.get("conversation", data)
    n = 1
    while f"session_{n}" in data:
        events = data.get(f"events_session_{n}") or {}
        facts = [fact for speaker, items in events.items() if speaker != "date"
                 for fact in (items or []) if isinstance(fact, str) and fact.strip()]
        if facts:
            yield facts
        n += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit-conversations", type=int, default=0)
    args = parser.parse_args()
    files = sorted(DATA.glob("*.json")) if DATA.is_dir() else []
    if not files:
        print(f"LoCoMo data not found in {DATA.name}/ (set KINETAIOS_LOCOMO_DIR); skipping.")
        return
    if args.limit_conversations:
        files = files[: args.limit_conversations]

    from llm_kinetaios import embeddings
    from llm_kinetaios.store import MemoryStore
    from llm_kinetaios.write import write_memories

    model = embeddings.MultilingualE5Small()
    totals = {"facts": 0, "baseline_stored": 0, "stored": 0, "duplicates": 0, "merged": 0,
              "secrets": 0, "close_pairs": 0, "judge_calls": 0, "batches": 0}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for index, path in enumerate(files):
            baseline = MemoryStore.open(Path(tmp) / f"baseline-{index}.db")
            ours = MemoryStore.open(Path(tmp) / f"ours-{index}.db")
            for facts in sessions(path):
                items = [{"content": fact, "source": "extracted"} for fact in facts]
                totals["facts"] += len(facts)
                totals["batches"] += 1
                added, _ = baseline.add_many(items)
                totals["baseline_stored"] += len(added)
                report = write_memories(ours, items, embedding_model=model, max_chars=None)
                totals["stored"] += len(report.added)
                for key in ("duplicates", "merged", "secrets", "close_pairs"):
                    totals[key] += getattr(report, key)
                totals["judge_calls"] += 1 if report.close_pairs else 0
            baseline.close()
            ours.close()
    seconds = time.perf_counter() - started
    print(f"# Write path on LoCoMo event summaries ({len(files)} conversations, {seconds:.0f}s)\n")
    print("| | count |\n| --- | --- |")
    for key, value in totals.items():
        print(f"| {key.replace('_', ' ')} | {value} |")
    kept_out = totals["baseline_stored"] - totals["stored"]
    print(f"\nThe write path stored {totals['stored']} of {totals['facts']} facts; "
          f"exact-duplicate skipping alone stored {totals['baseline_stored']} "
          f"({kept_out} near-duplicates kept out, "
          f"{100 * kept_out / max(totals['baseline_stored'], 1):.1f}%). "
          f"Close pairs: {totals['close_pairs']}; a separate judge would need "
          f"{totals['judge_calls']} calls for {totals['batches']} batches, which is why "
          f"extraction names the facts it updates itself, at no extra call.")


if __name__ == "__main__":
    main()
