"""benchmarks/bilingual_recall.py's implicit questions: those that share no word with their fact."""


def line(question, fact):
    return {"q_en": question, "en_first": fact, "en_third": fact}


def test_a_question_naming_its_fact_is_not_implicit(bench):
    assert bench.names_its_fact(line("Which city do I live in?", "I live in Hangzhou"))
    # Words compared by their first five letters: "travelled" meets "travels".
    assert bench.names_its_fact(line("Where have I travelled?", "User travels to Japan every year"))


def test_a_question_sharing_only_common_words_is_implicit(bench):
    assert not bench.names_its_fact(line("What is my job?", "I work as a nurse at a children's hospital"))
    assert not bench.names_its_fact(line("Would an MRI scan be a problem for me?",
                                         "I'm claustrophobic, so I take the stairs instead of the lift"))


def test_the_tune_file_has_implicit_questions_of_both_splits(bench):
    facts = bench.load_facts(bench.FACT_FILES["tune"])
    implicit = {row["split"] for row in facts if not bench.names_its_fact(row)}
    assert implicit == {"tune", "held-out"}
