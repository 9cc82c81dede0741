"""Rebuild llm_kinetaios/data/query_priors.json: the mean vector of each prompt
bank recall compares queries with (recall.PRIOR_BANKS), for the default
embedding model, in both scripts.

    python benchmarks/ship_query_priors.py

Run it after changing a bank; tests/test_recall.py fails until the shipped
file matches the banks' text. Shipping the vectors means no user's turn waits
for the banks to be embedded (about 3 s a script with e5).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from llm_kinetaios.embeddings import MultilingualE5Small, embed_query  # noqa: E402
from llm_kinetaios.recall import PRIOR_BANKS, SHIPPED_PRIORS, prior_entry  # noqa: E402


def main() -> int:
    model = MultilingualE5Small()
    shipped = {}
    for bank in PRIOR_BANKS.values():
        for script, texts in bank.items():
            vector = np.mean([embed_query(model, text) for text in texts], axis=0)
            shipped[prior_entry(model.model_id, script, texts)] = [round(float(x), 6) for x in vector]
    SHIPPED_PRIORS.write_text(json.dumps(shipped, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(shipped)} vectors to {SHIPPED_PRIORS.name} ({SHIPPED_PRIORS.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
