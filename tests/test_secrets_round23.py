"""Secrets the filter let through on the read splits up to fresh27 (issue 16,
twenty-third round), in new words: a card with its expiry after it, keys
named by their compound name (a GCP key's private_key_id, client secrets,
application keys, Wi-Fi PSKs) and session ids; door and box codes (German
compounds, a Cyrillic letter in an intercom's code, a key safe, a keypad
that asks, Japanese and Chinese), a code one keys in; PINs as Swedish, Urdu
and French write them; passwords of random letters alone, a new value after
a change, the remembered-password recipe in its other orders, "user ... pass
..."; two-factor seeds and recovery codes in more languages; a wallet phrase
named as one whose checksum fails; ids and bank cards by name. Each with the
ordinary text beside it that must still pass."""

import pytest

from llm_kinetaios.secret_filter import secret_reason


@pytest.mark.parametrize("text", [
    "Travel card: 4539 1488 0343 6467 09/28 312",
    "Spare card 5222 3301 2200 3223 11/27 904, keep it in the drawer.",
])
def test_a_card_with_its_expiry_after_it_is_refused(text):
    assert secret_reason(text) == "a payment card number"


@pytest.mark.parametrize("text", [
    "Order 1234 5678 9012 3456 78 shipped on 09/28.",
    "Invoice 4000 1234 5678 9010 12/24 paid.",
])
def test_long_numbers_that_are_no_card_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "The CI service account's private_key_id is 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567.",
    "Intranet-Client-Secret for the registration: Xy9~aB3.kLm-Qr7~tUv8wZ2pLq4",
    "applicationKey K005hGt7LmQ2xVb9RtYp3WcZ8nJq1Ds for the photo bucket",
    "Sensor VLAN, psk Rt7yWq2ZpL9xKm4Nv8Bc",
    "client secret 7Qp~Lm2.xT9vBz4-Kr8wNy3Hd6Fg",
    "Cookie from the forum: sessionid=k3j9x0m2p8q7w6e5r4t1y2u3i9o0p8a7",
    "PHPSESSID=9f8e7d6c5b4a39281706f5e4d3c2b1a0",
])
def test_keys_named_by_their_name_are_refused(text):
    assert secret_reason(text) == "an API token or key"


@pytest.mark.parametrize("text", [
    "Each service account key carries a private_key_id that names it.",
    "The client secret is shown only once in the portal, so copy it then.",
    "Rotate the application key every ninety days.",
    "The sessionid cookie expires when the browser closes.",
    "session_id = None",
    "The PSK for the lab network is on the whiteboard.",
])
def test_key_names_without_a_value_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Der Code für die Kellertür lautet 4412.",
    "Der Code fürs Hoftor ist 73118.",
    "Код домофона у мамы: 5521К",
    "Key safe by the garage: 7312",
    "Le clavier près de la porte demande 4821A, puis la touche verte.",
    "金庫の暗証番号は 7731 です。",
    "門禁密碼是 8842",
    "Per la carta carburante il codice da digitare è 44107.",
])
def test_door_and_box_codes_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Der Code für den Motor ist 4412 laut Handbuch.",
    "Key safe installers charge around 80 pounds.",
    "The keypad asks for the code twice before it opens.",
    "The area code to dial is 0471.",
    "ロッカーの番号は 1234 です。",
    "Il codice da digitare è sul retro della tessera.",
])
def test_codes_that_open_nothing_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Pinkoden till kortet är 5521.",
    "میرا پن 4471 ہے",
    "Le code de ma carte est le 4471.",
])
def test_pins_as_other_languages_write_them_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Pinkoden skickas med posten.",
    "میرا بچپن 1995 میں لاہور میں گزرا",
    "Le code de la carte est le même que l'ancien.",
])
def test_pin_words_without_a_pin_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Mein Passwort fürs Büro ist KrbqTuwXmz",
    "社内Wikiのパスワードは XbdtQwRmpa です。",
    "Guest wifi: CabinNet, key WqzTrbLmxP",
    "Email password changed yesterday, the new one is Harbor_Lamp552.",
    "Backup NAS: Meadow77!rain",
    "Harbour#2291xy is what I use now.",
    "Forum: user alma.k77 pass Ferntree908",
    "Blizzard: nightowl#4471 / Tqm83xLpw2z",
    "imaps://me@home.example:Pw7xLq2mZ@imap.example.org:993",
    "WLAN im Keller: Box-7F2A, Schlüssel 38271946502817364950",
])
def test_passwords_and_logins_are_refused(text):
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", [
    "I changed my password for GitHub.",
    "I reset the password for LinkedIn.",
    "The wifi network key is printed on the router.",
    "The password policy changed, the new one is stricter.",
    "The portal build uses Node18+Vite and ships weekly.",
    "Decodes ``~2Ffoo~2Fbar`` back to ``/foo/bar``.",
    "Every user must pass the quiz before they get access.",
    "User guide: pass --verbose2 to the tool.",
    "Platforms: windows / linux",
    "imaps://me@home.example:993/INBOX",
    "Our network key rotation happens every 20 days.",
])
def test_ordinary_words_near_passwords_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Clé de double authentification : JBSWY3DPEHPK3PXQ",
    "Seed for the authenticator on my phone: MZXW 6YTB OI23 4ABC",
    "Запасные коды для почты: 4kq7z-9mxp2 r8t3w-2bn6c",
])
def test_two_factor_seeds_and_codes_are_refused(text):
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", [
    "Double authentification is now required for all staff.",
    "The random seed is 42 for every run.",
    "Резервные коды лучше хранить в сейфе.",
])
def test_two_factor_words_without_a_seed_pass(text):
    assert secret_reason(text) is None


def test_a_named_wallet_phrase_is_refused_though_its_checksum_fails():
    text = "Words for the hardware wallet: orbit cannon meadow puzzle silver kitten velvet thunder garden ribbon lizard piano"
    assert secret_reason(text) == "a wallet recovery phrase"


@pytest.mark.parametrize("text", [
    "My wallet shopping list: orbit, cannon, meadow, puzzle, silver, kitten, velvet, thunder, garden, ribbon, lizard, piano",
    "Twelve words describe the cabin: quiet, warm, small, dark.",
])
def test_words_that_are_no_phrase_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "National ID number: XK48817Q2",
    "Ο ΑΦΤ μου είναι 10259033P",
    "Мой УНП 191458734",
    "我的建设银行卡号是 6217000010001234567",
])
def test_ids_and_bank_cards_by_name_are_refused(text):
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", [
    "Passport renewal form PR2024 takes three weeks.",
    # a short id name counts only in capitals
    "The tin holds A1B2C3D4 pellets.",
    "Ο ΑΦΤ χρειάζεται για την εφορία.",
    "银行卡号在卡的正面。",
])
def test_id_and_card_names_without_a_number_pass(text):
    assert secret_reason(text) is None
