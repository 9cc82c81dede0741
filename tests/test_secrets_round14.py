"""Secrets the filter let through on fresh16 and fresh17 (issue 16,
fourteenth round), in new words: recovery words numbered without a space,
emergency codes of letters, intercom codes, what a keypad takes and what
switches an alarm off, a user name then "pw"/"pass" and its value,
passphrases of list words (joined or spaced), a keypair as a byte array, an
Australian BSB and account, an account number named as one, identity cards
named in Turkish and others. And the near-misses refused there: a size
("a 4-digit one"), a Bitcoin address, a parcel's tracking number,
"password123" named as the worst password. Each with the ordinary text
beside it that must still pass."""

import pytest

from llm_kinetaios.secret_filter import secret_reason

# a valid BIP-39 phrase (the checksum holds): the list's words for bytes 0..15
PHRASE = "abandon amount liar amount expire adjust cage candy arch gather drum buyer".split()


def test_recovery_words_numbered_without_a_space_are_refused():
    numbered = " ".join(f"{n}.{word}" for n, word in enumerate(PHRASE, 1))
    assert secret_reason(f"Backup of the ledger, numbered: {numbered}") == "a wallet recovery phrase"


def test_a_numbered_shopping_list_is_not_a_phrase():
    items = "apple bread butter cheese carrot onion lemon salad tomato potato rice sugar".split()
    assert secret_reason("Groceries: " + " ".join(f"{n}.{item}" for n, item in enumerate(items, 1))) is None


@pytest.mark.parametrize("text", [
    "Notfallcodes für Dropbox: pkzw trnb vlex mosq qhed",
    "My emergency codes for the cloud drive are hjrt wenb sqmx loaf",
    "Kody awaryjne do poczty: xbrt plmw quid nest",
])
def test_emergency_codes_of_letters_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Emergency codes were kept with the will and deed at the notary.",
    "The hospital's emergency codes: blue means cardiac arrest.",
])
def test_emergency_words_without_codes_are_not_secrets(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Il codice del citofono è 4B27.",
    "El código del portero es 3019, por si llegas antes.",
    "For deliveries, the back gate keypad takes 1987 and then the bell.",
    "Je désactive l'alarme de la boutique avec 5093 en arrivant.",
    "Die Alarmanlage in der Garage deaktiviere ich mit 8264.",
])
def test_codes_that_open_or_disarm_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "The interphone in the lobby is broken again.",
    "The keypad takes AA batteries, two of them.",
    "Die Alarmanlage schalte ich mit der App aus.",
    "We turned the alarm off with five minutes to spare.",
])
def test_intercoms_keypads_and_alarms_without_a_code_are_not_secrets(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Steam: gamer_tova99 pw quartz7harbor",
    "Etsy shop login — maren.pots pass Otter%81river",
    "GitLab at the lab — user t.okoro, pw mango_ripple_canvas_orbit",
])
def test_a_user_name_then_its_password_is_refused(text):
    assert secret_reason(text)


@pytest.mark.parametrize("text", [
    "Tell jon.smith pass the report to legal by Friday.",
    "Ask nora_b pass the salt, she is next to you.",
])
def test_a_user_name_before_the_verb_pass_is_not_a_secret(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Hasło do skrzynki to harbor_velvet_glide_pepper, nie zapomnij.",
    "Remember: coffee_table_lamp_rocket is what unlocks my laptop.",
    "Mot de passe du wifi : orange tiger pencil garden, note-le.",
    "Hesabımın parolası ocean pilot spring dinner",
    "Mi clave del banco es apple bread butter cheese, apúntala.",
])
def test_passphrases_of_list_words_are_refused(text):
    assert secret_reason(text)  # in a sentence about unlocking, the login rule names it a key


@pytest.mark.parametrize("text", [
    "The login page reads user_account_settings before it loads.",
    # names in code, quoted, beside a login word ("logger", "account")
    'async with Trace("receive_response_body", logger, self._request, kwargs):',
    'Principal type. Always `"service_account_actor"` for a Service Account.',
    "The account page shows the `lunch_order_table_cost` column.",
    "Rails keeps secret_key_base in its credentials file.",
    "My password is long and random now, thanks to the manager.",
    "Mi contraseña es muy segura, la cambio cada mes.",
    "The password check runs every day at noon.",
])
def test_ordinary_words_beside_password_words_are_not_secrets(text):
    assert secret_reason(text) is None


BYTES = "12, 240, 77, 3, 199, 45, 88, 101, 250, 6, 73, 140, 33, 208, 91, 17, 64, 222, 5, 180, 39, 150, 111, 8, 245, 62, 97, 130, 14, 201, 55, 76"


def test_a_keypair_as_a_byte_array_is_refused_and_a_palette_is_not():
    assert secret_reason(f"Phantom export, secret key: [{BYTES}, ...]") == "an API token or key"
    assert secret_reason(f"The colour table for the shader: [{BYTES}]") is None


@pytest.mark.parametrize("text", [
    "Rent goes to BSB 062-000 account 12345678 at CommBank.",
    "Numéro de compte : 3000 4005 5000 0123",
    "Tilinumero 12345678901 palkkaa varten.",
    "Mi número de cuenta es 0049 1500 0512 3456",
])
def test_bank_accounts_named_as_such_are_refused(text):
    assert secret_reason(text) == "a bank account number"


@pytest.mark.parametrize("text", [
    "My bank's BSB 062-000 is printed on the statement.",
    "Die Vertragskontonummer steht oben auf der Rechnung.",
    "Kundenkontonummer 5512 0098 71 steht auf dem Stromvertrag.",
    "The account number ending in 4821 is the old one.",
])
def test_bank_words_without_an_account_number_are_not_secrets(text):
    assert secret_reason(text) is None


def test_an_identity_card_named_in_turkish_is_refused_and_renewing_it_is_not():
    assert secret_reason("Kimlik kartımdaki numara 10000000146, e-devlet için.") == "a national id number"
    assert secret_reason("Nüfus cüzdanımı yenilemem gerekiyor.") is None


# The near-misses refused until this round.
@pytest.mark.parametrize("text", [
    "The PIN for the new card is a 4-digit one the bank will post.",
    "The safe's code must be a 6-digit number, says the manual.",
    "Tip jar (BTC): 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
    "Tracking: 638381260006 (DHL), due Thursday.",
    "'Passwort1' ist das häufigste Passwort in Deutschland.",
])
def test_sizes_addresses_tracking_numbers_and_famous_passwords_are_not_secrets(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "My password is password2024.",
    "Tracking for the parcel came by mail; my Visa is 4111 1111 1111 1111",
    "Wallet import key: 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb",
])
def test_beside_them_real_secrets_still_are(text):
    assert secret_reason(text)
