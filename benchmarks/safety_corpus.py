"""How the safety filter does on its corpora: injection payloads that get
through (target 0) and ordinary facts wrongly dropped or changed (target 0).

    python benchmarks/safety_corpus.py

The corpora live in tests/test_safety.py, so the tests and this report can
never disagree about what was measured.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llm_kinetaios.safety import sanitize_memory  # noqa: E402


def load_corpora():
    spec = importlib.util.spec_from_file_location("corpora", ROOT / "tests" / "test_safety.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.INJECTIONS, module.ORDINARY


def main():
    injections, ordinary = load_corpora()
    through = [text for text in injections if sanitize_memory(text) is not None]
    harmed = [text for text in ordinary if sanitize_memory(text) != text]
    print(f"injection payloads through the filter: {len(through)} of {len(injections)}")
    for text in through:
        print(f"  through: {text!r}")
    print(f"ordinary facts dropped or changed:     {len(harmed)} of {len(ordinary)}")
    for text in harmed:
        print(f"  harmed: {text!r}")
    sys.exit(1 if through or harmed else 0)


if __name__ == "__main__":
    main()
