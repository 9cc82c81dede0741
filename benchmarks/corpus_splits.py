"""Which corpus split is which (issue 16): the lists of blind sets that the
report and every training script read, in one place, so that merging a new
batch of sets or measuring one changes a number here rather than a range in
each script and test.

What each split is, and which rounds measured, read or trained on it, is
recorded in docs/safety-history.md.
"""

from __future__ import annotations

# The newest blind set merged (benchmarks/corpora/fresh233).
NEWEST_SET = 233
# The newest set in the report's default; the sets after it are the pool of
# a round under way or of the next (unmeasured, or measured only as its
# 'before').
NEWEST_MEASURED_SET = 233
# The fifty-second round's first report set: no training script of the
# shipped code (the sixty-third round's) reads it or any set after it.
FIRST_REPORT_SET = 87


def fresh_sets(first: int, last: int) -> tuple[str, ...]:
    "fresh<first> to fresh<last>, both included."
    return tuple(f"fresh{n}" for n in range(first, last + 1))


# Never loaded by a training script: the report sets, confirmation sets and
# pools measured since the fifty-second round, and the sets kept unmeasured.
REPORT_SETS = fresh_sets(FIRST_REPORT_SET, NEWEST_SET)
# The report's default: every report set measured, none read before it was.
SHIPPED_CODE_NEVER_READ = fresh_sets(FIRST_REPORT_SET, NEWEST_MEASURED_SET)
