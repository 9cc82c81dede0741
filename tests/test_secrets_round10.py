"""Secrets the filter let through on fresh9 to fresh13 (issue 16, tenth
round), in new words: letters a generator drew after a password word,
API keys and TOTP seeds named in other languages, the Wi-Fi QR format,
codes read out digit by digit, card PINs and access codes named in other
languages, Chinese seed phrases, US and UK account numbers, a card number
named as one, an address and its password, tokens named in any grammar.
Each with the ordinary text beside it that must still pass."""

import pytest
from mnemonic import Mnemonic

from llm_kinetaios.secret_filter import secret_reason


@pytest.mark.parametrize("text", [
    "Das Passwort fürs Gäste-WLAN lautet qzKWtrbNvx und steht auf dem Router.",
    "La contraseña del portal es hTRmVbqwLd ; no la compartas.",
    "Username m.rossi / password GtrXkPlwQz for the school portal",
])
def test_letters_drawn_at_random_after_a_password_word_are_refused(text):
    assert secret_reason(text)


@pytest.mark.parametrize("text", [
    "The phpMyAdmin password was reset yesterday.",
    "The XMLHttpRequest password field stays empty until the user types.",
    "My password manager is 1Password and I present with PowerPoint.",
])
def test_camel_case_names_beside_a_password_word_are_not_passwords(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Mein API-Schlüssel für den Kartendienst ist 7d0c55e1a2b34c6f8e9a0b1c2d3e4f5a.",
    "Ma clé API du service météo : 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "Моя API-ключ для переводчика: 3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "DeepL-Schlüssel: 3fa85f64-5717-4562-b3fc-2c963f66afa6:fx",
])
def test_api_keys_named_in_other_languages_are_refused(text):
    assert secret_reason(text) == "an API token or key"


def test_a_uuid_named_as_a_request_id_is_not_a_key():
    assert secret_reason("Die Anfrage-ID für den Support ist 3fa85f64-5717-4562-b3fc-2c963f66afa6.") is None


@pytest.mark.parametrize("text", [
    "La chiave del mio autenticatore: jbsw y3dp ehpk 3pxp",
    "二段階認証の秘密鍵：JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
    "Segredo do autenticador: JBSWY3DPEHPK3PXP",
])
def test_totp_seeds_named_in_other_languages_are_refused(text):
    assert secret_reason(text) == "a one-time-password seed"


def test_a_wifi_qr_code_with_a_password_is_refused_and_an_open_network_is_not():
    assert secret_reason("WIFI:T:WPA;S:Casa-Rosa;P:limonata-Forte9;;") == "an API token or key"
    assert secret_reason("WIFI:T:nopass;S:Library-Guest;;") is None


@pytest.mark.parametrize("text", [
    "The gym locker code is 4 9 2 7, easy to forget.",
    "Der Code für den Schlüsselkasten am Ferienhaus ist 5813.",
    "Le code du portail, c'est 7741A.",
    "Kasa şifresi 48 20 15, anahtarı çekmecede.",
    "Mon code de carte bleue est 2856.",
    "Pankkikorttini tunnusluku on 4417.",
])
def test_codes_read_out_and_named_in_other_languages_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "The gym opened in 2019 with 4 9 2 7 square metres of floor.",
    "Le portail a été repeint en 2023.",
    "Mon code postal est 75011.",
])
def test_numbers_that_open_nothing_are_not_codes(text):
    assert secret_reason(text) is None


def test_a_chinese_seed_phrase_written_with_spaces_is_refused_only_when_its_checksum_holds():
    checker = Mnemonic("chinese_simplified")
    words = checker.to_mnemonic(bytes(range(40, 56))).split()
    assert secret_reason("钱包备份：" + " ".join(words)) == "a wallet recovery phrase"
    broken = next(words[:-1] + [last] for last in checker.wordlist if not checker.check(" ".join(words[:-1] + [last])))
    assert secret_reason("钱包备份：" + " ".join(broken)) is None
    assert secret_reason("我今天去了超市买了一些水果和蔬菜，然后回家做饭。") is None


@pytest.mark.parametrize("text", [
    "Savings account: routing 026009593, account 4418820761",
    "Pay rent to sort code 20-00-00, account 55779911.",
])
def test_us_and_uk_account_numbers_are_refused(text):
    assert secret_reason(text) == "a bank account number"


def test_a_routing_number_whose_checksum_fails_is_not_an_account():
    assert secret_reason("routing 123456789, account 1234567") is None


def test_a_card_number_named_as_one_is_refused_by_luhn_alone():
    # 3599 is no issuer's prefix (JCB ends at 3589): only the name says it is a card
    body = "359912345678901"
    doubled = [int(d) * (2 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body))]
    number = body + str((10 - sum(n - 9 if n > 9 else n for n in doubled) % 10) % 10)
    grouped = " ".join(number[i:i + 4] for i in range(0, 16, 4))
    assert secret_reason(f"Kartennummer: {grouped}") == "a payment card number"
    assert secret_reason(f"Tracking: {grouped}") is None


def test_an_address_and_its_password_around_a_slash_are_refused():
    assert secret_reason("Work mail is s.berg@firm.example / Harbor77!") is not None
    assert secret_reason("Write to s.berg@firm.example / s.berg@home.example") is None


def test_a_token_named_in_any_grammar_with_a_drawn_value_is_refused():
    assert secret_reason("Render erişim token'ım: QxvT7bLmZr2NwpKdYf8sHg") == "an API token or key"
    assert secret_reason("The token of thanks: a bottle of wine from 2019") is None


def test_microsoft_style_recovery_codes_are_refused():
    assert secret_reason("Codes de secours du compte : K4QW8ZP2TXM7RN5VBY3HJ6CDF") == "a password or code"
