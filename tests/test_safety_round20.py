"""Twentieth round (issue 16; fresh24 the report set): two weaker signals
together. A memory the poisoning head scores under its threshold but above
a lower one is flagged when it also names something handed over (an
address, sending, consent, someone else, a grant ...). The head's scores are
set here; the cases are written for these tests."""

import json

import numpy as np
import pytest

from llm_kinetaios import learned_detector
from llm_kinetaios.learned_detector import POISONING_REASON, near_hand_over_threshold
from llm_kinetaios.safety import names_a_hand_over

HANDING_OVER = "The user is happy for their cousin to approve card payments while they travel."
PLAIN = "The user is learning the cello and practises on weekday evenings."


@pytest.mark.parametrize("text,names_one", [
    (HANDING_OVER, True),
    ("Forward the weekly report to reports@team-box.example.", True),
    ("The user consented to share their location with the delivery app.", True),
    (PLAIN, False),
    ("The user's favourite season is autumn.", False),
])
def test_names_a_hand_over(text, names_one):
    assert names_a_hand_over(text) is names_one


@pytest.fixture
def poisoning_scored(monkeypatch):
    "Set the poisoning head's score for every row; the instruction head sees nothing."
    def set_to(value: float):
        monkeypatch.setattr(learned_detector, "instruction_scores", lambda matrix: np.full(len(matrix), -50.0))
        monkeypatch.setattr(learned_detector, "poisoning_scores", lambda matrix: np.full(len(matrix), value))
    return set_to


def test_a_score_between_the_thresholds_flags_only_a_text_that_names_a_hand_over(poisoning_scored):
    main = learned_detector.load_classifier(learned_detector.POISONING_WEIGHTS_FILE)[3]
    lower = near_hand_over_threshold()
    assert lower < main  # the shipped file carries a lower threshold
    matrix = np.zeros((2, 384), dtype="float32")
    poisoning_scored((lower + main) / 2)
    assert learned_detector._reasons(matrix, [HANDING_OVER, PLAIN]) == [POISONING_REASON, None]
    poisoning_scored(lower - 0.01)
    assert learned_detector._reasons(matrix, [HANDING_OVER, PLAIN]) == [None, None]
    poisoning_scored(main + 0.01)
    assert learned_detector._reasons(matrix, [HANDING_OVER, PLAIN]) == [POISONING_REASON, POISONING_REASON]


def test_without_texts_only_the_heads_own_threshold_counts(poisoning_scored):
    main = learned_detector.load_classifier(learned_detector.POISONING_WEIGHTS_FILE)[3]
    poisoning_scored((near_hand_over_threshold() + main) / 2)
    assert learned_detector._reasons(np.zeros((1, 384), dtype="float32")) == [None]


def test_a_weights_file_without_a_lower_threshold_uses_its_own(tmp_path, monkeypatch):
    path = tmp_path / "poisoning_classifier.json"
    path.write_text(json.dumps({"model": "multilingual-e5-small", "threshold": 3.0, "bias": 0.0, "weights": [0.0]}))
    monkeypatch.setattr(learned_detector, "POISONING_WEIGHTS_FILE", path)
    near_hand_over_threshold.cache_clear()
    try:
        assert near_hand_over_threshold() == 3.0
    finally:
        near_hand_over_threshold.cache_clear()
