"""Secrets the filter let through on the read splits up to fresh30 (issue 16,
twenty-fourth round), in new words: passwords of letters alone that no name
is made of (also two runs joined by "_", and after a Chinese or Japanese word
glued to the Latin name of what it opens), "pw" right before a password, a new password given "after
the reset", a user and "pass" around a slash or bar; bank accounts after a
routing number whose checksum fails in a text about a bank, after a sort
code and "a/c no", IBANs followed by upper-case words; a wallet phrase with
one word off the list; an authenticator's seed of letters alone; an alarm's
code; a passport number named further on; a drawn password where a network,
a portal or what "opens with" it is named; what one types to unlock. Each with the ordinary text
beside it that must still pass."""

import pytest

from llm_kinetaios.secret_filter import secret_reason


@pytest.mark.parametrize("text", [
    "Le mot de passe du NAS est eQTaoxiUbz, noté nulle part.",
    "Mijn wachtwoord voor de bieb is OBAYRUKHmA, onthoud het.",
    "Das Passwort für den Drucker lautet KWRTZUBmE, bitte nicht weitergeben.",
    "Router密码是 eQTaoxiUbz",
    "Gmailのパスワードは OBAYRUKHmA です",
    "Hasło do skrzynki to kLMeta_WOrzUp.",
])
def test_passwords_of_letters_no_name_is_made_of_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Our password manager is KeePassXC, synced weekly.",
    "The password hint mentions LinkedIn.",
    "Das Passwort steht im iCloudSchlüsselbund.",
    "Le mot de passe est dans PostgreSQL, chiffré.",
    "Password stored in mRemoteNG.",
    "The password is on a sticky note on OldTownRoad.",
    "Password stored in MY_SQL_Server.",
    "The password is in secret_manager.",
    "路由器密码是 unknown",
])
def test_names_after_a_password_word_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Shared drive pw kot5Wemi^Ra, ask before using it.",
    "The club laptop, PW Hup4%Xeri9, stays in the office.",
    "Password since the breach on Monday: Otter_4471kq",
    "Password after the change: Birch_2210pa",
    "Kiosk: ida.b / pass Hv82kqLw",
    "Username ronja | pass Hv82kqLw for the library kiosk",
])
def test_short_words_and_new_passwords_are_refused(text):
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", [
    "Run pwd to print the directory.",
    "The PW 4000 engine needs an overhaul.",
    "pw is short for password in most forums.",
    "Password reset link expired: request a new one.",
    "The password after the reset is the same as the old one.",
    "Select input_a / pass through mode.",
])
def test_short_words_and_resets_without_a_password_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Savings at First Federal: routing 271904117, account 99887766.",
    "Payroll goes to routing 271904117 account 55123908.",
    "Sort code 40-47-84, a/c no 71234567, in my name.",
    "Sort code 30-94-57 acc no 11223344",
])
def test_domestic_accounts_are_refused(text):
    assert secret_reason(text) == "a bank account number"


@pytest.mark.parametrize("text", [
    # no bank named: a routing number's checksum is still needed
    "BGP routing 338512702 prefixes, account 4099158146 of the cloud.",
    "Sort code 40-47-84 belongs to HSBC.",
    "The acc no field takes 8 digits.",
])
def test_routing_and_sort_codes_alone_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Pay the refund into BE41 5260 1815 9083 when the form is in.",
    "Przelew na PL43 0166 1318 6091 3909 9603 0824 TAKE CARE",
])
def test_an_iban_before_words_is_refused(text):
    assert secret_reason(text) == "an IBAN"


def test_an_iban_shape_that_fails_its_check_passes_before_words():
    assert secret_reason("Send INVOICE BE41 5260 1815 9084 when the form is in.") is None


def test_a_named_wallet_phrase_with_one_word_off_the_list_is_refused():
    text = "Trezor words: lunar tiger brave copper melody ostrich plastic harbor winter gravel sunny cabbage"
    assert secret_reason(text) == "a wallet recovery phrase"


@pytest.mark.parametrize("text", [
    "Ledger notes: the meeting went long and we will pick up the budget next week",
    "Wallet ideas: leather brown slim card holder with coin pocket and zipper for travel",
])
def test_wallet_texts_in_prose_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "2FA for the forum, typed in by hand: kzrv mxqt abhw pldc",
    "Clé pour l'authentificateur : QOXD WRTM BNSY FJEL.",
])
def test_authenticator_seeds_of_letters_alone_are_refused(text):
    assert secret_reason(text) == "a one-time-password seed"


@pytest.mark.parametrize("text", [
    "Google Authenticator works for your mail sync too.",
    "Authenticator: sync your http data.",
    "2FA apps: Authy, Aegis and FreeOTP.",
])
def test_two_factor_prose_passes(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Alarmanlage im Laden: 48213",
    "Alarme du garage : 7719",
    "Shop alarm: arm it with 5582 when you leave.",
])
def test_alarm_codes_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Alarm: 0715 every weekday.",
    "Fire alarm test: 1430 on Friday.",
    "The alarm was armed at 2200 by the night guard.",
    "Alarm: 3000 hz tone.",
])
def test_alarm_times_pass(text):
    assert secret_reason(text) is None


def test_a_passport_number_named_further_on_is_refused():
    assert secret_reason("Passport no. needed for the hotel check-in form: K7721904") == "a national id number"


@pytest.mark.parametrize("text", [
    "Passport number for the visa form goes in box 12.",
    "My passport photo reference number from the booth is Z65NVAOV.",
    "Passport number format: two letters and seven digits, e.g. AB1234567.",
])
def test_passport_texts_without_its_number_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Mobile hotspot on the tablet is Rk7$mWqLpz",
    "The shed opens with Tr4#kLmzQw now.",
    "For the tenants' portal I go in as r.ahmadi with Qe5!wuPz0x.",
])
def test_drawn_passwords_beside_what_they_open_are_refused(text):
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", [
    "The hotspot supports WiFi6E+BT5.3 adapters.",
    "The portal build uses Node18+Vite and ships weekly.",
    "The gate opens with a remote, model RX-7.",
])
def test_names_beside_what_opens_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Zum Entsperren des Tablets tippe ich moonLake_2207 ein.",
    "What I enter to unlock the work laptop is pRkeWotUx58.",
    "Pour déverrouiller la tablette je tape Soleil_Rouge84.",
])
def test_what_one_types_to_unlock_is_refused(text):
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", [
    "To sign in, enter the code from Authenticator on your iPhone15.",
    "To log in, type your username and press Enter.",
    "Unlock the prototype Box_2207 before the demo.",
])
def test_what_one_types_that_is_no_password_passes(text):
    assert secret_reason(text) is None
