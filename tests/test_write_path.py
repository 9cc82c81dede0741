"""The write path: secrets, dates, merging, supersession, the skip heuristic."""

import datetime
import json

import llm
import pytest
from llm.cli import cli

from llm_kinetaios.extraction import worth_extracting
from llm_kinetaios.secret_filter import contains_secret
from llm_kinetaios.write import write_memories

SECRETS = [
    "User's OpenAI key is sk-proj-4f9Kx2LmQ8vN3pR7tY1wZ6aB",
    "Anthropic key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
    "GitHub token ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "AWS key AKIAIOSFODNN7QK3MZV2",  # AWS's documented AKIA...EXAMPLE is a placeholder (issue 16)
    "Slack bot token xoxb-123456789012-abcdefghijkl",
    "Google key AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "User's password is hunter22",
    "wifi passcode: blue-horse-42",
    "The database is postgres://admin:s3cr3t@db.example.com/prod",
    "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA",
    "User's card number is 4111 1111 1111 1111",
    "Card 5500-0000-0000-0004 expires soon",
    "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "Use the token 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a",
    "My PIN is 4821",
    "Bearer abcdefghijklmnopqrstuvwxyz123456",
]
NOT_SECRETS = [
    "User lives in Berlin",
    "User was born in 1987",
    "User's phone is a Pixel 8",
    "User runs 10000 steps a day",
    "User's postcode is 10115",
    "User works on the project internationalization-framework-migration",
    "User prefers passwords managed by 1Password",
    "User's favourite number is 1234567890",
    "User uses the sk-learn library for machine learning",
    "User keeps API keys in a vault",
    "User's order number was 2024-11-05-1234",
    "User studies token economics",
    "User has a PIN pad at the office door",
    "用户住在柏林",
]


@pytest.mark.parametrize("text", SECRETS)
def test_secrets_are_detected(text):
    assert contains_secret(text)


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_facts_are_not_secrets(text):
    assert not contains_secret(text)


def test_secrets_are_never_written_by_any_path(runner, store, fake, tmp_path):
    result = runner.invoke(cli, ["memories", "add", SECRETS[0]])
    assert result.exit_code == 1 and "secret" in result.output
    path = tmp_path / "m.json"
    path.write_text(json.dumps([SECRETS[1], "User likes tea", SECRETS[6]]))
    result = runner.invoke(cli, ["memories", "import", str(path)], catch_exceptions=False)
    assert json.loads(result.stdout) == {"imported": 1, "skipped": 2}
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I use the key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx. I love tea."],
                  catch_exceptions=False)
    contents = [m.content for m in store.list(history=True)]
    assert contents == ["User love tea", "User likes tea"] or sorted(contents) == sorted(["User love tea", "User likes tea"])
    assert not any(contains_secret(c) for c in contents)


WHEN = datetime.datetime(2026, 12, 2, 15, 0)  # a Wednesday


@pytest.mark.parametrize("text", [
    "User is reading 'Tomorrow and Tomorrow and Tomorrow'",
    "User's favourite song is Yesterday by the Beatles",
    "User starts a new job next month",
])
def test_the_write_path_stores_dates_and_titles_as_written(store, text):
    # Issue 14 behaviour change: no regex rewrites relative dates any more.
    write_memories(store, [{"content": text, "created_at": int(WHEN.timestamp() * 1000),
                            "source": "extracted"}])
    assert [m.content for m in store.list()] == [text]


def test_add_and_import_store_the_users_words_unchanged(runner, store, tmp_path):
    runner.invoke(cli, ["memories", "add", "User is reading 'Tomorrow and Tomorrow and Tomorrow'"],
                  catch_exceptions=False)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(["User's favourite song is Yesterday by the Beatles"]))
    runner.invoke(cli, ["memories", "import", str(path)], catch_exceptions=False)
    assert sorted(m.content for m in store.list()) == [
        "User is reading 'Tomorrow and Tomorrow and Tomorrow'",
        "User's favourite song is Yesterday by the Beatles",
    ]


def test_the_extraction_call_is_given_the_turns_date(runner, store, fake, monkeypatch):
    import llm_kinetaios.store as store_module

    monkeypatch.setattr(store_module, "now_ms", lambda: int(WHEN.timestamp() * 1000))
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I start a new job next month."],
                  catch_exceptions=False)
    [[*_, (_, extraction_input)]] = fake.extraction_calls
    assert "<turn_date>\n2026-12-02 (Wednesday)\n</turn_date>" in extraction_input
    # The fake, like a real model, writes the absolute date from the turn's date.
    assert [m.content for m in store.list()] == ["User start a new job in January 2027"]


@pytest.mark.parametrize("text, expected", [
    ("thanks", False),
    ("ok go on", False),
    ("Convert this CSV to JSON please", False),
    ("What is the capital of Peru?", False),
    ("I am allergic to peanuts", True),
    ("My daughter starts school soon", True),
    ("We moved to Lisbon last year", True),
    ("我对花生过敏", True),
    # Issue 14: short first-person statements are learned; requests,
    # questions and suppositions cost no call.
    ("I'm vegetarian.", True),
    ("I'm 34.", True),
    ("Sou professora de inglês.", True),
    ("I work nights, so suggest meals I can eat at 3am.", True),
    ("Write me a haiku about rain.", False),
    ("What should I cook tonight?", False),
    ("Give me one short tip for that.", False),
    ("Should I try Obsidian?", False),
    ("My sister says she's allergic to cats; can she visit a cat café?", False),
    ("Proofread this cover letter:\nDear Sir, I am a motivated graduate. I live in Bristol.", False),
    ("> I have been a loyal customer for ten years.\nHow should we answer this?", False),
    ("Sorry, my mistake.", False),
])
def test_extraction_heuristic(text, expected):
    assert worth_extracting(text) is expected


def test_trivial_turns_cost_no_extra_call(runner, fake):
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "thanks"], catch_exceptions=False)
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "Translate 'cat' to French"], catch_exceptions=False)
    assert fake.extraction_calls == []
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I am a nurse."], catch_exceptions=False)
    assert len(fake.extraction_calls) == 1


@pytest.fixture
def embed():
    return llm.get_embedding_model("fake-embed")


def test_near_duplicates_are_merged_not_added(store, embed):
    write_memories(store, [{"content": "User lives in Berlin Germany"}], embedding_model=embed)
    report = write_memories(store, [{"content": "User lives in Germany, Berlin"}], embedding_model=embed)
    assert report.merged == 1 and not report.added
    assert store.count() == 1


def test_report_says_which_memory_each_input_went_to(store, embed):
    berlin = write_memories(store, [{"content": "User lives in Berlin Germany"}],
                            embedding_model=embed).added[0]
    report = write_memories(store, [
        {"content": "User plays the cello"},
        {"content": "User lives in Germany, Berlin"},  # near-duplicate of a stored memory
        {"content": "user lives in berlin germany"},  # exact duplicate of a stored memory
        {"content": "User plays the cello."},  # exact duplicate of an earlier input
    ], embedding_model=embed)
    cello = report.added[0]
    assert report.added_from == [0]
    assert report.merged_into == [(1, berlin.id), (2, berlin.id), (3, cello.id)]
    assert report.to_dict()["merged"] == 1 and report.to_dict()["duplicates"] == 2


def test_near_duplicates_are_merged_without_embeddings(store):
    old = write_memories(store, [{"content": "User lives in Berlin Germany"}]).added[0]
    report = write_memories(store, [{"content": "User lives in Germany, Berlin!"}])
    assert report.merged == 1 and store.count() == 1
    assert report.merged_into == [(0, old.id)]


def test_an_update_supersedes_the_old_fact(runner, store, embed, fake):
    old = write_memories(store, [{"content": "User lives in Berlin"}], embedding_model=embed).added[0]
    write_memories(store, [{"content": "User plays the cello"}], embedding_model=embed)
    report = write_memories(store, [{"content": "User lives in Lisbon"}],
                            embedding_model=embed, judge_model=fake)
    assert report.judge_calls == 1 and len(fake.judge_calls) == 1
    new = report.added[0]
    assert report.superseded == [(old.id, new.id)]
    assert sorted(m.content for m in store.list()) == ["User lives in Lisbon", "User plays the cello"]
    kept = store.get(old.id)
    assert kept.superseded_by == new.id and kept.valid_until
    # History is kept and shown; recall never sees the old fact.
    from llm_kinetaios.config import Settings
    from llm_kinetaios.recall import recall
    result = recall(store, "Where does the user live? Berlin?", Settings(min_cosine_hits=1),
                    embedding_model=embed)
    assert "User lives in Berlin" not in [m.content for m in result.memories]
    assert "User lives in Berlin" not in [m.content for m, _ in store.search("Berlin", 5)]
    listing = runner.invoke(cli, ["memories", "list", "--history"], catch_exceptions=False).output
    assert "User lives in Berlin" in listing and f"superseded by {new.id}" in listing
    assert "User lives in Berlin" not in runner.invoke(cli, ["memories", "list"]).output
    shown = json.loads(runner.invoke(cli, ["memories", "show", new.id, "--json"]).output)
    assert [h["content"] for h in shown["history"]] == ["User lives in Berlin", "User lives in Lisbon"]
    # A fact may come back after being superseded.
    again = write_memories(store, [{"content": "User lives in Berlin"}], embedding_model=embed,
                           judge_model=fake)
    assert again.added and again.superseded == [(new.id, again.added[0].id)]


def test_unrelated_close_facts_are_both_kept(store, embed, fake):
    write_memories(store, [{"content": "User likes green tea"}], embedding_model=embed)
    report = write_memories(store, [{"content": "User drinks green tea daily"}],
                            embedding_model=embed, judge_model=fake)
    assert report.added and not report.superseded
    assert store.count() == 2


def test_judge_is_called_only_for_close_facts(store, embed, fake):
    write_memories(store, [{"content": "User lives in Berlin"}], embedding_model=embed)
    write_memories(store, [{"content": "User plays the cello"}, {"content": "Cooking pasta weekly"}],
                   embedding_model=embed, judge_model=fake)
    assert fake.judge_calls == []


def test_extraction_through_the_cli_supersedes(runner, store, fake):
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I live in Berlin."], catch_exceptions=False)
    runner.invoke(cli, ["prompt", "-m", "memory-fake", "I live in Lisbon now."], catch_exceptions=False)
    assert [m.content for m in store.list()] == ["User live in Lisbon now"]
    assert len(store.list(history=True)) == 2
    # The extraction call named the fact it replaces: no judge call was needed.
    assert fake.judge_calls == [] and len(fake.extraction_calls) == 2
    assert "[1] User live in Berlin" in fake.extraction_calls[1][-1][1]
