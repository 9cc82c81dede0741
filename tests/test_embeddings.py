"""The bundled embedding model, for real: offline, normalised, multilingual."""

import json

import llm
import numpy as np
import pytest
from llm.cli import cli

from llm_kinetaios.config import Settings
from llm_kinetaios.embeddings import embed_passages, embed_query, to_blob
from llm_kinetaios.recall import about_user_margins, is_cjk, recall


def test_default_model_loads_offline_and_is_normalised(e5):
    assert llm.get_embedding_model("e5-small") is not None
    vectors = embed_passages(e5, ["User lives in Berlin", "我住在柏林"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    query = embed_query(e5, "Where does the user live?")
    assert query.shape == (384,)
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-4


def test_llm_embed_uses_it(runner, no_network):
    result = runner.invoke(cli, ["embed", "-m", "multilingual-e5-small", "-c", "hello"],
                           catch_exceptions=False)
    assert result.exit_code == 0
    assert len(json.loads(result.output)) == 384


DISTRACTORS = [
    "User plays the guitar", "User drives a red car", "User works as a teacher",
    "User has two cats", "User enjoys science fiction novels", "User runs every morning",
    "User prefers tea over coffee", "User is learning Japanese", "User supports FC Porto",
    "User uses a standing desk",
]


def seeded(store, model, texts):
    for text, vector in zip(texts, embed_passages(model, texts)):
        store.add(text, embedding=to_blob(vector), embedding_model=model.model_id)


# Default settings: the fact must clear the relevance judgement across
# languages and rank in the top 3. benchmarks/bilingual_recall.py measures
# the same on 48 facts, first and third person, and a mixed store.
@pytest.mark.parametrize("fact, question", [
    ("用户对花生过敏", "What food allergies does the user have?"),
    ("用户住在柏林", "Where does the user live?"),
    ("User is allergic to peanuts", "用户对什么食物过敏?"),
    ("User lives in Berlin", "用户住在哪里?"),
])
def test_cross_language_recall(store, e5, fact, question):
    seeded(store, e5, DISTRACTORS + [fact])
    result = recall(store, question, Settings(), embedding_model=e5)
    assert result.method == "hybrid"
    assert fact in [m.content for m in result.memories][:3]


CHINESE_DISTRACTORS = [
    "用户会弹吉他", "用户开一辆红色的车", "用户是一名老师", "用户养了两只猫", "用户喜欢科幻小说",
    "用户每天早上跑步", "用户喜欢喝茶不喜欢咖啡", "用户在学日语", "用户支持波尔图足球队", "用户用站立式办公桌",
]


def test_mixed_store_ranks_the_other_language_fact_above_same_language_ones(store, e5):
    # Every Chinese memory outscores the English fact on a Chinese question by
    # raw cosine; recall's generic-prompt correction puts them on one scale.
    seeded(store, e5, CHINESE_DISTRACTORS + DISTRACTORS + ["User is allergic to peanuts"])
    result = recall(store, "我对什么食物过敏？", Settings(), embedding_model=e5)
    assert result.method == "hybrid"
    assert "User is allergic to peanuts" in [m.content for m in result.memories][:3]


def test_chinese_question_recalls_a_chinese_fact(store, e5):
    # A Chinese user asking in Chinese: between CJK texts e5's scores spread
    # less, and the fact stands below the full margin bar; the lower bar of
    # its script pair (recall.clears_lower_bar) lets it through.
    seeded(store, e5, CHINESE_DISTRACTORS + ["用户住在柏林"])
    result = recall(store, "我住在哪里？", Settings(), embedding_model=e5)
    assert result.method == "hybrid"
    assert "用户住在柏林" in [m.content for m in result.memories][:3]


@pytest.mark.parametrize("prompt", [
    "解释一下TCP拥塞控制是怎么工作的。", "x^2乘以cos(x)的导数是什么？", "写一首关于大海的诗。",
])
def test_unrelated_chinese_prompt_injects_nothing_from_a_chinese_store(store, e5, prompt):
    seeded(store, e5, CHINESE_DISTRACTORS + ["用户对花生过敏"])
    result = recall(store, prompt, Settings(), embedding_model=e5)
    assert result.method == "none" and result.memories == []


def test_unrelated_chinese_prompt_injects_nothing_from_an_english_store(store, e5):
    # Across scripts the lower bar needs a query about the user
    # (recall.about_user_margins); this request cleared a lower bar once.
    seeded(store, e5, DISTRACTORS + ["User is allergic to peanuts"])
    result = recall(store, "把“早上好”翻译成法语。", Settings(), embedding_model=e5)
    assert result.method == "none" and result.memories == []


QUESTIONS_ABOUT_THE_USER = ["What food allergies does the user have?", "Where does my sister live?",
                             "我对什么食物过敏？", "用户住在哪里?"]
REQUESTS = ["Explain how TCP congestion control works.", "把“早上好”翻译成法语。", "写一首关于大海的诗。",
            "Write a thank-you card for my piano teacher.", "帮我给表弟写一段毕业祝福。"]


def test_questions_about_the_user_read_more_personal_than_requests(e5):
    # Personal-sounding writing requests included: they are everyday requests
    # (recall.REQUEST_PROMPTS), not questions about the user.
    def about(text):
        return about_user_margins(e5, embed_query(e5, text), is_cjk(text), e5.default_min_margin)

    assert min(map(about, QUESTIONS_ABOUT_THE_USER)) > max(map(about, REQUESTS))


@pytest.mark.parametrize("prompt", [
    "Explain how TCP congestion control works.", "What is the derivative of x^2 * cos(x)?",
])
def test_unrelated_prompt_injects_nothing(store, e5, prompt):
    seeded(store, e5, DISTRACTORS + ["User is allergic to peanuts"])
    result = recall(store, prompt, Settings(), embedding_model=e5)
    assert result.method == "none" and result.memories == []


def test_end_to_end_with_the_real_model(runner, store, fake, settings, no_network):
    settings(embedding_model="multilingual-e5-small")
    for text in DISTRACTORS + ["User is allergic to peanuts"]:
        assert runner.invoke(cli, ["memories", "add", text]).exit_code == 0
    assert store.stats()["embedded"] == {"multilingual-e5-small": 11}
    result = runner.invoke(cli, ["prompt", "-m", "memory-fake", "Which snacks are safe for my allergy?"],
                           catch_exceptions=False)
    assert result.exit_code == 0
    block = fake.calls[0][-2][1]
    assert "User is allergic to peanuts" in block
    assert "User drives a red car" not in block


def test_search_finds_by_meaning_what_keywords_miss(runner, settings, no_network):
    settings(embedding_model="multilingual-e5-small")
    for text in DISTRACTORS + ["User is vegetarian"]:
        assert runner.invoke(cli, ["memories", "add", text]).exit_code == 0
    result = runner.invoke(cli, ["memories", "search", "what food do I eat", "--json"],
                           catch_exceptions=False)
    hits = json.loads(result.output)
    assert hits[0]["content"] == "User is vegetarian" and hits[0]["method"] == "hybrid"
    result = runner.invoke(cli, ["memories", "search", "what food do I eat", "--keyword", "--json"],
                           catch_exceptions=False)
    assert json.loads(result.output) == []


def test_switching_models_then_reindex_leaves_no_mixed_vectors(runner, store, settings, no_network):
    for text in DISTRACTORS[:4]:
        runner.invoke(cli, ["memories", "add", text], catch_exceptions=False)
    assert store.stats()["embedded"] == {"fake-embed": 4}
    settings(embedding_model="multilingual-e5-small")
    result = runner.invoke(cli, ["memories", "reindex"], catch_exceptions=False)
    assert result.exit_code == 0
    assert store.stats()["embedded"] == {"multilingual-e5-small": 4}
