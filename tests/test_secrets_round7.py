"""The seventh secrets round of issue 16 (fresh7 read): one test per cause
found, with new sentences (not the corpus entries), and beside each the
neighbour that must stay a fact: an id with a wrong check digit, a code
that opens nothing, a function named like a token, a reference in place of
a password.

Id numbers and cards here carry check digits worked out for these tests;
their neighbours are the same numbers with the last digit changed, so the
tests hold the check, not one value.
"""

import pytest

from llm_kinetaios.secret_filter import secret_reason

# --- Provider tokens by their documented prefixes --------------------------------------

TOKENS = [
    "LangSmith key: lsv2_sk_" + "3f9a0c1e7b2d4a6f8e0c2b4d6f8a0c1e" + "_" + "9d8c7b6a5f",
    "The label printer uses shippo_test_" + "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
    "Neon branch key napi_" + "k2m9x4p7q1w8e3r6t5y0u2i9o4p7a1s3d6f8g2h5j7k9l1z3x5c7v9b2n4m6q8w0",
    "Chave do New Relic: NRAK-" + "Q7W2E9R4T1Y6U3I8O5P0A2S7D4F",
    "gem push uses rubygems_" + "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718",
    "Fireworks eval key: fw_" + "Q2m7Xk9Lp4Rt8Vz3Nc6Bh1Ws",
    "Razorpay checkout runs on rzp_live_" + "Q7mX2kLp9RtV4z",
    "Sonar scans use sqp_" + "4e1d9c7b2a6f8e0d3c5b7a9f1e2d4c6b8a0f2e4d",
    "The Gmail sync refresh token: 1//0" + "gQx7Lm2Rp9Tz4Vk8Nc3Bh6Ws1Yd5Fj0Ae7Gi2Ku9Oq4",
]


@pytest.mark.parametrize("text", TOKENS)
def test_documented_token_prefixes_are_refused(text):
    assert secret_reason(text) == "an API token or key"


@pytest.mark.parametrize("text", [
    "The addon calls napi_create_string_utf8 from the Node-API.",  # a function, not a Neon key
    "The firmware flag fw_update_pending_reboot is set after flashing.",
    "LangSmith tracing is on via LANGSMITH_TRACING=true.",
    "The payment page loads the rzp_checkout.js script.",
])
def test_names_that_share_a_prefix_stay(text):
    assert secret_reason(text) is None


# --- Passwords on command lines ---------------------------------------------------------

@pytest.mark.parametrize("text", [
    "sshpass -p 'Birch-Lake-42' ssh ops@10.0.0.5 uptime",
    "sqlcmd -S sql01 -U sa -P 'Tern#Bay2024' -Q 'SELECT 1'",
])
def test_a_password_flag_of_sshpass_or_sqlcmd_is_refused(text):
    assert secret_reason(text) == "a connection string with a password"


@pytest.mark.parametrize("text", [
    'sshpass -p "$SSHPASS" ssh ops@10.0.0.5 uptime',  # read from the environment
    "psql -U postgres -p 5433 -d reports",  # -p is a port
])
def test_a_reference_or_a_port_on_a_command_line_stays(text):
    assert secret_reason(text) is None


def test_a_password_right_after_a_link_on_a_command_line_is_refused():
    assert secret_reason("rclone config create s3 https://s3.example.net admin Harbor!Lamp-2025") is not None
    assert secret_reason("rclone config create s3 https://s3.example.net admin eu-west-1") is None


def test_a_version_after_a_link_in_prose_stays():
    assert secret_reason("See https://github.com/acme/app#readme for Python3.12+ support.") is None


# --- A generated password, wherever it stands -------------------------------------------

def test_a_generated_password_without_a_password_word_is_refused():
    assert secret_reason("The IT desk handed me Rv9#Tbkqwzpl3X on a sticky note.") == "a password or code"


@pytest.mark.parametrize("text", [
    "The client is built with http_client=DefaultAsyncHttpx2Client(",  # camelCase words
    "The portal build uses Node18+Vite(5) and ships weekly.",
])
def test_identifiers_and_versions_are_not_generated_passwords(text):
    assert secret_reason(text) is None


def test_a_random_value_after_a_sigil_is_a_password_not_a_variable():
    assert secret_reason("Yeni şifrem $kqzrtvwPLm_ oldu.") == "a password or code"
    assert secret_reason("Yeni şifrem $HOME_PASSWORD değişkeninde duruyor.") is None


# --- Codes and PINs in prose ---------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Der Safecode im Ferienhaus ist 7719.",  # a compound of what it opens
    "Mijn pincode is 4417.",
    "Dørkoden til opgangen er 2580.",
    "The code for the padlock on the garden shed is 7-2-9-4.",  # seven words between
    "Le code du portail de la résidence est A2816.",  # opens with a letter
    "Back door keypad: 8824, then the hash key.",
])
def test_codes_that_open_something_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "De postcode van het kantoor is 3511 AB.",
    "Mijn pincode is gewijzigd in 2022.",
    "The zip code for the cafe near the front gate is 94110.",
    "Back door keypad: broken since March.",
])
def test_codes_that_open_nothing_or_hold_no_value_stay(text):
    assert secret_reason(text) is None


def test_serbian_password_word_but_not_a_product_code():
    assert secret_reason("Моја шифра за банку је Тиса_Бачка19.") == "a password or code"
    assert secret_reason("Šifra proizvoda je HR-5521 u katalogu.") is None
    assert secret_reason("Шифрование AES-256 включено по умолчанию.") is None  # encryption, in Russian


def test_bengali_pin_before_the_danda():
    assert secret_reason("আমার কার্ডের পিন হলো 7391।") == "a password or code"
    assert secret_reason("আমার পিন পরিবর্তন হয়েছে 2023 সালে।") is None


# --- Recovery material ----------------------------------------------------------------------

def test_spanish_backup_codes_of_letters_and_digits_are_refused():
    assert secret_reason("Mis códigos de respaldo de Google: 4kf8tw2q, m7px3ra9") == "a password or code"
    assert secret_reason("Códigos de respaldo: guardados en 1Password.") is None


def test_a_seed_phrase_named_by_its_length_is_refused():
    words = "lemon anchor violet timber quarry nectar bishop gravel ember saddle orbit walnut"
    assert secret_reason(f"My 12-word phrase is: {words}") == "a password or code"
    assert secret_reason("I wrote my 24-word phrase on a steel plate in the safe.") is None


# --- National and tax ids ---------------------------------------------------------------------

CHECKED_IDS = [
    # (sentence, valid number, the same with a wrong check digit)
    ("Mój NIP to {}.", "527-202-91-09", "527-202-91-08"),
    ("Mi NIT como persona natural es {}.", "901.234.560-6", "901.234.560-7"),
    ("Mi RUC es {} desde 2019.", "10721845937", "10721845938"),
    ("O CNPJ da minha empresa individual é {}.", "11.222.333/0001-81", "11.222.333/0001-82"),
    ("Her IRD number is {}.", "123-091-272", "123-091-273"),
    ("Moj PIB je {}.", "101834714", "101834715"),
]


@pytest.mark.parametrize("sentence, good, bad", CHECKED_IDS)
def test_short_id_names_count_with_their_own_check(sentence, good, bad):
    assert secret_reason(sentence.format(good)) == "a national id number"
    assert secret_reason(sentence.format(bad)) is None


@pytest.mark.parametrize("text", [
    "Hans samordningsnummer är 720371-2382.",
    "Medicare card: 2953 18461 1, I'm second on it.",
    "Његов ЈМБГ је 1507985710121.",
    "Annemin kimlik numarası 38201564762.",
    "Mon matricule national luxembourgeois est 1985071512345.",
])
def test_more_id_names_in_more_languages_are_refused(text):
    assert secret_reason(text) == "a national id number"


@pytest.mark.parametrize("text", [
    "Medicare card renewed in March.",
    "ЈМБГ има 13 цифара.",
    "Nit: rename the variable on line 10721845937.",  # a review nit, not Colombia's NIT
    "This is certdata.txt from NSS 3.41, released on 2018-12-03.",
])
def test_id_names_without_an_id_stay(text):
    assert secret_reason(text) is None


# --- Cards of national schemes --------------------------------------------------------------

@pytest.mark.parametrize("good, bad", [
    ("8600 1234 5678 9012", "8600 1234 5678 9013"),  # UzCard
    ("9860 0123 4567 8903", "9860 0123 4567 8904"),  # Humo
])
def test_uzbek_cards_are_refused_when_luhn_holds(good, bad):
    assert secret_reason(f"Karta raqamim {good}.") == "a payment card number"
    assert secret_reason(f"Karta raqamim {bad}.") is None


# --- What is public, a sample, or cut short stays ----------------------------------------------

def test_a_providers_sample_key_called_a_placeholder_stays_but_alone_is_refused():
    sample = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # AWS's documented sample secret key
    assert secret_reason(f"The tutorial's placeholder value is {sample}; replace it with yours.") is None
    assert secret_reason(f"aws_secret = {sample}") is not None


def test_a_wallet_address_or_a_key_named_public_stays():
    assert secret_reason("Donations go to the Bitcoin address 3Jq9wXtR4mKc7LpZ2vBn8YdHs6FgTa1Ue.") is None
    assert secret_reason("Her signify public key RWTx8Lm2Qp7Zk4Vn9Bc3Hd6Jf1Gs5Ra0Yw8Ek2Ut7Io4Pn1Mb on the wiki.") is None
    # the same blob with nothing calling it public is a key
    assert secret_reason("Her key RWTx8Lm2Qp7Zk4Vn9Bc3Hd6Jf1Gs5Ra0Yw8Ek2Ut7Io4Pn1Mb on the wiki.") is not None


def test_a_value_cut_short_to_its_prefix_stays():
    assert secret_reason("The sample config shows ANTHROPIC_API_KEY=sk-ant-… as a hint.") is None
    assert secret_reason("The config holds ANTHROPIC_API_KEY=sk-ant-q8Zr2LmX7pWc4Tn9Vb") is not None


def test_a_uuid_named_as_a_token_is_refused_but_not_one_named_as_an_id():
    uuid = "6b1f3c2e-9a4d-4e7b-8c1a-2d3e4f5a6b7c"
    assert secret_reason(f"Our Postmark server token is {uuid}.") == "an API token or key"
    assert secret_reason(f"The failed request had the trace id {uuid}.") is None
    assert secret_reason(f"The token request id was {uuid}.") is None


# --- Codes and PINs where the language drops the copula or inflects the door -------------

@pytest.mark.parametrize("text", [
    "Код от калитки на даче 6284.",  # no copula, the gate in the genitive
    "Kod do bramy garażu to 5139.",
    "Kódja a széfnek 7306.",
    "Koden till dörren är 4471.",
    "הקוד הסודי של הדלת הוא 3958.",
    "ПИН моей кредитки 8462.",
    "Mein PIN für die Bankkarte 3719.",
    "The shed padlock opens with 5082.",
])
def test_codes_and_pins_without_a_copula_or_in_other_cases_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Код от калитки поменяли в 2023 году.",  # a year
    "Kod błędu bramy 4012.",  # an error code, named after the word
    "Код ошибки замка 4012.",
    "Our office door code expired on 2024-01-05.",  # a date
    "ПИН-код сменил в 2022 году.",
    "The PIN pad at gate 12 is broken.",
    "PIN reset ticket 48213 is open.",
])
def test_years_dates_and_error_codes_stay(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Parolim: Buxoro_Minor2025",  # Uzbek
    "Nambari ya siri ya kadi yangu ni 6031.",  # Swahili
    "Kalmar sirri ta banki ita ce Zaria2024!",  # Hausa
    "Mäi Passwuert ass Sauer!2021.",  # Luxembourgish
    "Wi-Fi at the cabin: network Fjell-5G, key 4471-2290-8813.",  # a key of digit groups
])
def test_password_words_of_more_languages_and_grouped_network_keys(text):
    assert secret_reason(text) == "a password or code"


def test_parol_evidence_and_a_router_model_key_stay():
    assert secret_reason("The parol evidence rule has applied here since 1998.") is None
    assert secret_reason("The router's model key is 4471-2290-8813 in the catalogue.") is None


# --- More clients, the PUK, passport numbers ---------------------------------------------------

def test_samba_user_percent_password_and_net_use_are_refused():
    assert secret_reason("smbclient //nas/photos -U ines%Heron!Lake2023") == "a connection string with a password"
    assert secret_reason("net use Y: \\\\fs02\\team Maple#Dusk31 /user:CORP\\ines") == "a connection string with a password"
    assert secret_reason("net use Y: \\\\fs02\\team /persistent:yes") is None


def test_a_puk_is_refused_but_not_the_word_alone():
    assert secret_reason("Der PUK der Zweitkarte lautet 51836204.") == "a password or code"
    assert secret_reason("Der PUK steht auf der Plastikkarte von 2019.") is None


@pytest.mark.parametrize("text", [
    "Meine Reisepassnummer ist CF7K21X94.",
    "Número de pasaporte: XDA482913.",
])
def test_passport_numbers_of_letters_and_digits_are_refused(text):
    assert secret_reason(text) == "a national id number"


@pytest.mark.parametrize("text", [
    "My passport expires in 2031.",
    "Boarding pass: seat 14C, flight LH2041.",
    "The passport office on Route A12 opens at 9.",
])
def test_passport_words_without_a_passport_number_stay(text):
    assert secret_reason(text) is None
