"""benchmarks/learned_gate.py, the eleventh round's experiment: it reads only
the read splits, replays main's lower bar as recall.py judges, and its
logistic regression and threshold do what docs/recall.md says they do."""

import numpy as np
import pytest

from conftest import import_benchmark


@pytest.fixture(scope="module")
def gate():
    return import_benchmark("learned_gate")


def reading(about, memories, personal=True, named=False, full=0, spread_pass=0, kind="q", top5=True,
            store="s"):
    return dict(about=about, memories=memories, personal=personal, named=named, full=full,
                spread_pass=spread_pass, kind=kind, top5=top5, implicit=False, store=store, spread=0.3)


def test_only_the_read_splits_are_read(gate, bench):
    assert set(gate.READ_SPLITS) <= set(bench.SPLITS)
    assert not {"fresh7", "fresh8"} & set(gate.READ_SPLITS)
    with pytest.raises(ValueError):
        gate.dump("fresh7", model=None)


def test_mains_lower_bar_is_replayed_as_recall_judges(gate):
    from llm_kinetaios.recall import PERSONAL_BAR, PERSONAL_BAR_WEIGHT, PERSONAL_PAIR_SCALES

    # A first-person query: about + weight * margins / scale against the bar.
    needed = (PERSONAL_BAR - 0.5) / PERSONAL_BAR_WEIGHT * PERSONAL_PAIR_SCALES["other"]
    assert gate.main_lower_bar(reading(0.5, [(needed + 0.01, "other", False)]))
    assert not gate.main_lower_bar(reading(0.5, [(needed - 0.01, "other", False)]))
    # A third-person query: only a memory that shares a name with it, by the older line.
    assert gate.main_lower_bar(reading(0.4, [(2.0, "other", True)], personal=False, named=True))
    assert not gate.main_lower_bar(reading(0.4, [(2.0, "other", False)], personal=False, named=True))
    # A request about no one: nothing below the full bars.
    assert not gate.main_lower_bar(reading(0.9, [(5.0, "other", False)], personal=False))


def test_the_logistic_regression_weighs_the_feature_that_separates(gate):
    rng = np.random.default_rng(0)
    x = np.column_stack([np.r_[rng.normal(1, 0.3, 50), rng.normal(-1, 0.3, 50)], rng.normal(0, 1, 100)])
    y = np.r_[np.ones(50), np.zeros(50)]
    coef, bias = gate.fit_logistic(x, y)
    assert coef[0] > 0 and abs(coef[0]) > 5 * abs(coef[1])
    assert ((x @ coef + bias >= 0) == (y == 1)).mean() > 0.95


def test_the_threshold_is_the_lowest_that_keeps_off_topic_within_the_cap(gate):
    questions = [reading(a, [(1.0, "other", False)]) for a in (0.9, 0.8, 0.7)]
    prompts = [reading(a, [(1.0, "other", False)], kind=k, top5=None)
               for a in (0.85, 0.1, 0.1, 0.1) for k in ("off-en", "off-zh")]
    for row in questions + prompts:
        row.update(gate.candidate_features(row), main_lower=False)
    data = {"tune": questions + prompts}
    scorer = gate.Gate(("about",), np.array([1.0]), 0.0, "personal")
    # One prompt of four per language may get in at a 25% cap, none at 10%.
    loose = gate.with_threshold(scorer, data, ["tune"], {"tune": 25.0}, {"tune": 100.0})
    assert loose.threshold == pytest.approx(0.7)
    strict = gate.with_threshold(scorer, data, ["tune"], {"tune": 10.0}, {"tune": 100.0})
    assert strict.threshold == pytest.approx(0.9)
    assert gate.evaluate(data["tune"], strict)["mean"] == pytest.approx(100 / 3)
