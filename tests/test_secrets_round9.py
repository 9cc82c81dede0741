"""Secrets the filter let through on the read sets (issue 16, ninth round),
in new words: a password made by the word-symbol-word-number recipe wherever
it stands, national card schemes, Asana tokens, Redis clients' -a, recovery
codes as GitLab, Steam and Dropbox print them, seed phrases and "security
code" named in more languages, alarms and padlocks. Each with the ordinary
text beside it that must still pass."""

import pytest

from llm_kinetaios.secret_filter import secret_reason


def with_luhn_digit(prefix: str, length: int = 16) -> str:
    "A card number of this prefix and length whose Luhn check holds."
    body = (prefix + "3917284650193847265")[:length - 1]
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch) * (2 if i % 2 == 0 else 1)
        total += n - 9 if n > 9 else n
    return body + str((10 - total % 10) % 10)


def grouped(number: str) -> str:
    return " ".join(number[i:i + 4] for i in range(0, len(number), 4))


@pytest.mark.parametrize("text", [
    "Pro nákupy na e-shopu používám Lipa!Vltava77.",
    "Sur l'ordinateur du club je tape Mouette#Quai45 chaque matin.",
    "Ordet till skrivaren i källaren: Tall&Sjö2 nej, Tallen&Sjon29.",
    "Wenn ich mich im Portal anmelde, kommt Kiefer$Elbe308 rein.",
    "家里的平板我一般用 Bamboo%River61 打开。",
])
def test_a_word_symbol_word_number_password_is_refused_anywhere(text):
    assert secret_reason(text)  # "Kiefer$Elbe308" reads as a key too


@pytest.mark.parametrize("text", [
    "My Xbox gamertag is Shadow_Wolf99 if you want to add me.",
    "warnings.warn(msg, category=PydanticDeprecatedSince20)",
    "The user's favourite band is Earth, Wind & Fire, since 1979.",
    "The user writes C++20 and Rust 1.75 at work.",
    "Hashtag for the trip: #Lisbon2024",
])
def test_names_tags_and_code_are_not_that_password(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("prefix", ["9704", "9051", "2205"])  # Napas, ArCa, PayPak
def test_national_scheme_cards_are_refused(prefix):
    assert secret_reason(f"Card on file: {grouped(with_luhn_digit(prefix))}") == "a payment card number"


def test_a_national_scheme_number_whose_luhn_fails_is_not_a_card():
    number = with_luhn_digit("9704")
    broken = number[:-1] + str((int(number[-1]) + 1) % 10)
    assert secret_reason(f"Parcel reference {broken}") is None


def test_an_asana_token_is_refused():
    token = "1/1204857392019384:" + "3c" * 16
    assert secret_reason(f"The nightly export talks to Asana with {token}") == "an API token or key"


def test_a_redis_style_client_password_is_refused_but_a_variable_is_not():
    assert secret_reason("redis-cli -h queue.internal -p 6380 -a Marble_Otter_88 ping") == "a connection string with a password"
    assert secret_reason("keydb-cli -a Fennel-Quarry-19 info") == "a connection string with a password"
    assert secret_reason('redis-cli -h queue.internal -a "$REDIS_PASSWORD" ping') is None


@pytest.mark.parametrize("text", [
    "Backup codes for my GitLab two-factor login: 9e0c4a7b21d38f56 and 04f7b2c9e1a6d358",
    "Steam Guard recovery code for the family account: Q73015",
    "Zwei-Faktor-Backup-Codes: 3hq8 k2p7 9zm4 w6t1",
    "Apple IDの復旧キー：ZT4K-8QMD-2WPX-N7LC-5HVB-R3JE-9YFA",
])
def test_recovery_codes_as_providers_print_them_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "The fix landed in commit 9e0c4a7b21d38f56 of the backup tool.",
    "The user keeps their backup codes in a fireproof box.",
    "The recovery room is on ward B, bed 12.",
    "Two-factor recovery codes were regenerated after the phone was lost.",
])
def test_hex_ids_and_talk_of_recovery_codes_are_not_secrets(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Frase di recupero del vecchio wallet: sole nebbia carta vento fiume pane lago ferro seta ombra miele torre",
    "Minha frase de recuperação: gato pedra chuva folha ponte vela sino barco areia nuvem milho trigo",
])
def test_seed_phrases_named_in_more_languages_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Mein Sicherheitscode für das Online-Banking ist 482913.",
    "Il codice di sicurezza della carta è 5521.",
    "Il codice dell'allarme in negozio è 55120.",
    "The shed's padlock opens with 7-3-0-5.",
    "Garage alarm: punch in 2468 within thirty seconds.",
])
def test_codes_named_in_more_languages_and_for_more_locks_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Der Sicherheitscode der Bank wurde letzte Woche geändert.",
    "L'allarme suona alle 7 ogni mattina.",
    "The garden gate opens with a remote since 2019.",
    "The alarm was installed in 2021 by a local firm.",
])
def test_talk_of_codes_and_alarms_is_not_a_secret(text):
    assert secret_reason(text) is None
