"""A wallet's recovery phrase is refused however it is introduced (issue 16,
eighth round): 12 to 24 words of one BIP-39 list whose last word carries the
checksum, in any of the space-separated lists. Phrases are made from fixed
entropy with the mnemonic package, so each run tests the same ones."""

import pytest
from mnemonic import Mnemonic

from llm_kinetaios.secret_filter import secret_reason

PHRASE = "a wallet recovery phrase"


def phrase(language: str, size: int = 16, seed: int = 7) -> str:
    words = Mnemonic(language).to_mnemonic(bytes((seed * 31 + i) % 256 for i in range(size)))
    return " ".join(words.split())  # Japanese joins with an ideographic space


@pytest.mark.parametrize("language", ["english", "spanish", "french", "italian", "portuguese", "czech", "korean", "japanese"])
@pytest.mark.parametrize("size", [16, 32])  # 12 and 24 words
def test_a_recovery_phrase_is_refused_without_being_named(language, size):
    assert secret_reason(f"Keep these for me, in this order: {phrase(language, size)}.") == PHRASE


@pytest.mark.parametrize("frame", ["Mis palabras: {}", "Notiere bitte: {} (nicht verlieren)", "{}"])
def test_a_recovery_phrase_is_refused_in_any_frame(frame):
    assert secret_reason(frame.format(phrase("english", seed=3))) == PHRASE


def test_a_numbered_recovery_phrase_is_refused():
    words = phrase("english", seed=3).split()
    assert secret_reason("Wallet backup: " + " ".join(f"{i + 1}. {w}" for i, w in enumerate(words))) == PHRASE


def test_list_words_whose_checksum_fails_are_not_a_phrase():
    checker = Mnemonic("english")
    words = phrase("english", seed=5).split()
    broken = next(" ".join(words[:-1] + [last]) for last in checker.wordlist
                  if not checker.check(" ".join(words[:-1] + [last])))
    assert secret_reason(f"Keep these for me: {broken}.") is None
    assert secret_reason(" ".join(["abandon"] * 12)) is None


@pytest.mark.parametrize("text", [
    "The user keeps their seed phrase on a steel plate in a fire safe.",
    "The user wants to learn about the ability to absorb and abstract access across account boundaries.",
    # twelve list words whose checksum passes (1 in 16 do): a list, not a phrase
    "Her grocery list: apple, bread, butter, cheese, coffee, egg, honey, lemon, milk, onion, rice, salt.",
])
def test_prose_with_list_words_is_not_a_phrase(text):
    assert secret_reason(text) is None
