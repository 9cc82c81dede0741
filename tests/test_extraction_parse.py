"""The strict parse of extraction answers, with the answers real small models gave (issue 14)."""

import json

import pytest
from click.testing import CliRunner
from llm.cli import cli

from llm_kinetaios.extraction import ExtractionError, Turn, accept_fact, parse_answer, third_person
from llm_kinetaios.write import judge
from llm_kinetaios.jobs import JobQueue

ANA = Turn("My daughter is called Ana and she is 7 years old.", "How lovely! Ana sounds wonderful.")


def test_a_bare_list_with_key_names_and_fragments_stores_nothing():
    answer = json.dumps(["The user's age is unchanged from 7 years old to 14 years old.", "User", "updates"])
    with pytest.raises(ExtractionError) as raised:
        parse_answer(answer, ANA)
    assert "'User'" in str(raised.value) and raised.value.answer == answer


def test_a_bare_list_of_sentences_about_the_user_is_facts():
    answer = '["User\'s daughter is called Ana.", "I live in Porto"]'
    assert parse_answer(answer, ANA).facts == ["User's daughter is called Ana.", "User lives in Porto"]


@pytest.mark.parametrize("item", ["User", "updates", "facts", "Ana", "User likes", ""])
def test_keys_and_one_word_fragments_are_never_facts(item):
    assert accept_fact(item) is None


def test_fragments_inside_the_documented_shape_are_dropped_and_listed():
    extracted = parse_answer('{"facts": ["User", "User has a daughter called Ana", "updates"], '
                             '"updates": [{"fact": 2, "known": 1}]}', ANA)
    assert extracted.facts == ["User has a daughter called Ana"]
    assert extracted.rejected == ["User", "updates"]
    assert extracted.updates == {}  # no known facts to update


def test_an_assistant_opinion_is_not_a_user_fact():
    turn = Turn("Which language should I use for my script?", "Python is an excellent programming language.")
    extracted = parse_answer('{"facts": ["Python is an excellent programming language"]}', turn)
    assert extracted.facts == [] and extracted.rejected == ["Python is an excellent programming language"]
    with pytest.raises(ExtractionError):
        parse_answer('["Python is an excellent programming language"]', turn)


def test_a_fact_copied_from_the_prompt_is_refused():
    assert parse_answer('{"facts": ["The user chose to share."]}', ANA).facts == []


@pytest.mark.parametrize("first, third", [
    ("I live in Porto", "User lives in Porto"),
    ("I live in Porto with my wife.", "User lives in Porto with their wife."),
    ("I'm vegetarian", "User is vegetarian"),
    ("I am a nurse", "User is a nurse"),
    ("I have two cats", "User has two cats"),
    ("I’ve been coding for ten years", "User has been coding for ten years"),
    ("I watch anime", "User watches anime"),
    ("I study law", "User studies law"),
    ("I can't eat gluten", "User can't eat gluten"),
    ("I moved to Lisbon", "User moved to Lisbon"),
    ("My daughter is called Ana", "User's daughter is called Ana"),
    ("User lives in Porto", "User lives in Porto"),
])
def test_first_person_facts_are_rewritten_to_third_person(first, third):
    assert accept_fact(first) == third


@pytest.mark.parametrize("first", [
    "I think we should move", "Je vis à Porto", "Ich wohne in Berlin", "I 3D-print things",
])
def test_first_person_that_no_simple_rule_rewrites_is_refused(first):
    assert accept_fact(first) is None


def test_facts_in_other_languages_name_the_user_in_that_language():
    assert accept_fact("L'utilisateur vit à Porto") == "L'utilisateur vit à Porto"
    assert accept_fact("Der Nutzer wohnt in Berlin") == "Der Nutzer wohnt in Berlin"
    assert accept_fact("用户对花生过敏") == "用户对花生过敏"


@pytest.mark.parametrize("answer", [
    "{facts: [], updates: []}",
    "[]",
    "none",
    "None.",
    "Nothing to learn.",
    "Updates: []",
    "Facts: []\nUpdates: []",
    "```json\n{\"facts\": [], \"updates\": []}\n```",
    "{\"updates\": []}",
    "",
    "My daughter is called Ana and she is 7 years old.",  # an echo of the turn
])
def test_nothing_to_learn_in_any_recognisable_form_is_an_empty_success(answer):
    extracted = parse_answer(answer, ANA)
    assert extracted.facts == [] and extracted.answer == answer.strip()


@pytest.mark.parametrize("answer", [
    "{facts: ['User lives in Porto',], updates: [],}",
    "Sure! Here you go:\n```json\n{\"facts\": [\"User lives in Porto\"]}\n```\nHope that helps.",
    "Here is the JSON: {\"facts\": [\"User lives in Porto\"], \"updates\": []} Done.",
    '{"Facts": ["User lives in Porto"]}',
])
def test_the_documented_shape_is_read_through_the_usual_slips(answer):
    assert parse_answer(answer, ANA).facts == ["User lives in Porto"]


@pytest.mark.parametrize("answer", [
    "Sure! Here is what I found: <<<nothing useful>>>",
    '{"name": "Ana", "age": 7}',
    "The user seems nice.",
])
def test_other_answers_are_unparseable(answer):
    with pytest.raises(ExtractionError):
        parse_answer(answer, ANA)


def test_updates_and_marks_follow_their_facts_past_refused_items():
    turn = Turn("I moved to Porto.", "", known=("User lives in Lisbon",), project="app")
    extracted = parse_answer('{"facts": ["updates", "User lives in Porto", "The project uses Django"], '
                             '"updates": [{"fact": 2, "known": 1}], "project": [3], "instructions": [2]}',
                             turn)
    assert extracted.facts == ["User lives in Porto", "The project uses Django"]
    assert extracted.updates == {0: 0} and extracted.project == {1} and extracted.instructions == {0}


class _Answers:
    "A model stand-in that answers with a fixed text."
    supports_schema = False
    model_id = "fixed"

    def __init__(self, text):
        self.text_ = text

    def prompt(self, *args, **kwargs):
        outer = self

        class Response:
            def text(self):
                return outer.text_

        return Response()


def test_the_judge_reads_model_output_with_the_same_parser():
    assert judge(_Answers("Result:\n```\n{decisions: [{pair: 1, relation: 'updates'},]}\n```"),
                 [("User lives in Porto", "User lives in Lisbon")]) == {1: "updates"}
    with pytest.raises(ValueError):
        judge(_Answers("no idea"), [("a b c", "d e f")])


def test_log_verbose_shows_raw_answers_of_successes_and_failures(runner, store, fake):
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I love sailing."], catch_exceptions=False)
    fake.fail_extraction = "garbage"
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I love rowing."], catch_exceptions=False)
    plain = runner.invoke(cli, ["memories", "log"], catch_exceptions=False).output
    assert "  answer:" not in plain and '"facts"' not in plain
    verbose = runner.invoke(cli, ["memories", "log", "-v"], catch_exceptions=False).output
    assert '"facts": ["User love sailing"]' in verbose
    assert "<<<nothing useful>>>" in verbose


def test_log_verbose_shows_the_partial_answer_of_a_timed_out_job(runner, store, fake, monkeypatch):
    from llm_kinetaios import worker

    fake.fail_extraction = worker._JobTimeout("timed out after 300s")
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I love sailing."], catch_exceptions=False)
    [job] = JobQueue(store).recent(kind="extract")
    assert "timed out" in job["error"] and job["result"] == {"answer": ""}
    verbose = runner.invoke(cli, ["memories", "log", "-v"], catch_exceptions=False).output
    assert "answer: (empty: nothing received)" in verbose


# Answers recorded from a real local model: Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4)
# behind llama-cpp-python's OpenAI-compatible server, on turns of the tune split
# of benchmarks/data/extraction_turns.jsonl (benchmarks/local_model.py). Most
# came before the prompt gained its examples and its closing "Answer with the
# JSON object only."; the parse must still hold against them.
RECORDED_1_5B = {
    "plain lines, one vacuous": ("I'm a nurse.", "User is a nurse.\nUser lives in their current location."),
    "plain lines that contradict": ("I hate cilantro.", "User likes cilantro.\nThe user dislikes cilantro."),
    "a fact and a role label": ("Meine Frau heißt Julia.", "The user's wife is Julia.\nUser"),
    "a sentence about the task": ("My budget for the new bike is 800 euros.",
                                  "The user chose to share their budget."),
}


@pytest.mark.parametrize("name", RECORDED_1_5B)
def test_recorded_plain_sentence_answers_of_a_small_model_store_nothing(name):
    user, answer = RECORDED_1_5B[name]
    with pytest.raises(ExtractionError):
        parse_answer(answer, Turn(user, ""))


def test_a_recorded_echo_with_a_role_label_is_nothing_to_learn():
    turn = Turn("I teach maths at a secondary school.", "")
    assert parse_answer("User: I teach maths at a secondary school.", turn).facts == []


def test_recorded_json_after_a_role_labelled_line_is_read():
    answer = ('User The user\'s mother tongue is Polish.\n\n{"facts": ["The user\'s mother tongue '
              'is Polish."], "updates": [], "project": [], "instructions": []}')
    extracted = parse_answer(answer, Turn("My mother tongue is Polish.", ""))
    assert extracted.facts == ["The user's mother tongue is Polish."]


def test_recorded_role_label_and_general_knowledge_items_are_dropped():
    answer = '{\n  "facts": [\n    "The user is 34 years old.",\n    "User"\n  ],\n  "updates": []\n}'
    assert parse_answer(answer, Turn("I'm 34.", "")).facts == ["The user is 34 years old."]
    answer = ('{"facts": ["The user runs a small bakery in Leeds.", "Leeds is in England."], '
              '"updates": [], "project": [], "instructions": []}')
    extracted = parse_answer(answer, Turn("I run a small bakery in Leeds.", ""))
    assert extracted.facts == ["The user runs a small bakery in Leeds."]
    assert extracted.rejected == ["Leeds is in England."]


@pytest.mark.parametrize("sentence", [
    "The user chose to share their budget.",
    "The user's preference for metric units has been updated.",
    "The user currently has no project, and they are not working on any instructions.",
    "The user has a fixed constraint of using Go as their primary programming language.",
    "The user chose to share their long-term goal of deploying applications on Kubernetes, "
    "which is now a stable personal context.",
    "The user updated updates with 1.",  # Qwen2.5-Coder-0.5B, the scripted chat
    "Updates: [1, 3]",  # Qwen2.5-Coder-0.5B, tune split
])
def test_recorded_sentences_about_the_extraction_task_are_not_facts(sentence):
    extracted = parse_answer(json.dumps({"facts": [sentence]}), Turn("I program in Go.", ""))
    assert extracted.facts == [] and extracted.rejected == [sentence]


def test_a_recorded_fenced_answer_is_read():
    answer = ('```json\n{\n  "facts": ["User has budget of 800 euros for new bike."],\n  "updates": [],\n'
              '  "project": [],\n  "instructions": []\n}\n```')
    assert parse_answer(answer, Turn("My budget for the new bike is 800 euros.", "")).facts == [
        "User has budget of 800 euros for new bike."]


def test_the_extraction_call_caps_its_answer_and_ends_with_the_answer_reminder():
    import llm

    from llm_kinetaios.extraction import ANSWER_REMINDER, MAX_ANSWER_TOKENS, extract_facts

    class Capped(llm.Model):
        model_id = "capped"

        class Options(llm.Options):
            max_tokens: int | None = None

        def execute(self, prompt, stream, response, conversation):
            self.seen = (prompt.prompt, prompt.options.max_tokens)
            yield '{"facts": ["User lives in Porto"]}'

    model = Capped()
    assert extract_facts(model, ANA).facts == ["User lives in Porto"]
    assert model.seen[0].endswith(ANSWER_REMINDER) and model.seen[1] == MAX_ANSWER_TOKENS


def test_a_fact_copied_from_the_prompts_examples_is_refused_unless_the_turn_says_it():
    # A real answer of Qwen2.5-Coder-0.5B-Instruct (benchmarks/local_model.py, held-out
    # split: the rule came after that run, see docs/extraction.md).
    copied = "The user's last project was about writing a limerick about a teapot."
    answer = json.dumps({"facts": ["User switched from VS Code to Zed last month.", copied]})
    extracted = parse_answer(answer, Turn("I switched from VS Code to Zed last month.", ""))
    assert extracted.facts == ["User switched from VS Code to Zed last month."]
    assert extracted.rejected == [copied]
    keeper = Turn("I keep bees on my roof.", "")
    assert parse_answer('{"facts": ["User keeps bees on the roof."]}', keeper).facts == [
        "User keeps bees on the roof."]
