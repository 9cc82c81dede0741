"""Secrets the filter let through on fresh14 (issue 16, eleventh round), in
new words: national account formats (CLABE, IFSC, Japanese and Brazilian
accounts), a South African id named as one, passphrases and addresses in a
login, private keys named in other languages,
Backblaze keys, recovery codes as Bitwarden and Twitter print them,
Authy keys, a key box. Each with the
ordinary text beside it that must still pass."""

import pytest

from llm_kinetaios.secret_filter import secret_reason

ACCOUNT = "a bank account number"


@pytest.mark.parametrize("text", [
    "Para la renta uso mi CLABE 032180000118359719.",
    "Salary goes to account 30512987654 at IFSC HDFC0001234.",
    "家賃の引き落としは普通預金 1234567 から。",
    "Agência 0451, conta poupança 88213-4 na Caixa.",
])
def test_national_account_formats_are_refused(text):
    assert secret_reason(text) == ACCOUNT


@pytest.mark.parametrize("text", [
    "The branch's IFSC HDFC0001234 is printed on the cheque book.",
    "Mi banco cambió la CLABE de sus sucursales el año pasado.",
    "La agência 0451 fecha às 16h.",
])
def test_bank_words_without_an_account_are_not_secrets(text):
    assert secret_reason(text) is None


def test_a_south_african_id_named_as_one_is_refused_and_an_order_number_is_not():
    assert secret_reason("My South African ID is 8001015009087") == "a national id number"
    assert secret_reason("Order 8001015009087 shipped on Monday") is None


@pytest.mark.parametrize("text", [
    "NAS admin login: root / maple_otter_lantern",
    "Office mail m.ruiz@corp.example, pass tulip&canal77",
])
def test_login_values_are_refused(text):
    assert secret_reason(text)


@pytest.mark.parametrize("text", [
    "The trail is called north_ridge_loop on the park map.",
    "Send the slides to m.ruiz@corp.example, pass them on to Ana too.",
    "The Wi-Fi router is in the hallway next to the shoe rack.",
])
def test_ordinary_text_beside_login_words_is_not_a_secret(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Der private Schlüssel des Test-Wallets: " + "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
    "Mi clave privada de la cartera: " + "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
])
def test_private_keys_named_in_other_languages_are_refused(text):
    assert secret_reason(text)  # "clave" is a password word in Spanish too


def test_a_sha256_without_a_key_word_is_not_a_secret():
    assert secret_reason("Checksum: 4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318") is None


def test_a_backblaze_key_is_refused():
    assert secret_reason("Backup job key: K004qLm8R2vXp0TgH7bZsN1cYwE5aJ3") == "an API token or key"


@pytest.mark.parametrize("text", [
    "Bitwarden recovery code: K2M8X7QP0L4N9B3V5C6Z1A8S7D0F2G4H",
    "Códigos de respaldo de GitHub: p2kx9d7m4wq1 r8zt3v6b0nc5",
    "Authy manual key: JBSW Y3DP EHPK 3PXP",
])
def test_recovery_codes_and_authy_keys_are_refused(text):
    assert secret_reason(text)


def test_talk_of_recovery_codes_is_not_a_secret():
    assert secret_reason("I keep the Bitwarden recovery code printed in the safe at my parents' home.") is None
    assert secret_reason("Two-factor recovery codes: keep them some safe dark cool spot away from kids") is None


def test_a_key_box_code_is_refused():
    assert secret_reason("Het sleutelkastje bij de achterdeur heeft code 8316.") == "a password or code"
