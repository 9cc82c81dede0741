"""Secrets the filter let through on fresh20 (issue 16, seventeenth round),
in new words: a password stated in Swahili (and the inflected password
words of a few more languages), a password given in the sentence after the
one that names it, an account number named by its kind ("the checking
account is ..."), recovery codes printed as a list, and a login written
"service: user / password". And the near-misses refused there: Stripe's
publishable keys, and the published sample IBANs and test cards where the
text presents them as examples. Each with the ordinary text beside it that
must still pass."""

import pytest

from llm_kinetaios.secret_filter import secret_reason


@pytest.mark.parametrize("text", [
    "Nenosiri langu la M-Pesa app ni N-jOmwDC*ROO.",
    "Nywila yangu ya benki ni kisiwa2291.",
    "Neno la siri la Wi-Fi ni mwembe4421.",
    # inflected: Lithuanian, Croatian, Estonian, Slovene
    "Mano slaptažodžio reikšmė yra vilnius2024",
    "Nisam zapamtio lozinku: zagreb1991",
    "Minu parooliks on tallinn2024",
    "Gesla za wifi je bled7731",
])
def test_passwords_in_swahili_and_inflected_words_are_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Nenosiri ni muhimu sana kwa usalama.",
    "Nywila yako ni siri yako.",
    # what holds passwords, compounded with the word, still names no password
    "The password app on my Mac is v2.3 now.",
    "The password field in the app is v2.3 compatible.",
])
def test_password_words_without_a_value_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Μπορείς να θυμάσαι τον κωδικό μου για το taxisnet; Είναι 4zAjbEi3WNmJrZt8Kl.",
    "Can you remember my Netflix password? It's Kd83nfla9q.",
])
def test_a_password_given_in_the_next_sentence_is_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "My password manager is great. It's 1Password7 really.",
    "Reset your password. It is v2.0 of the portal.",
    "I forgot my password again. It's 2024 and I still write them down.",
    "Ξέχασα τον κωδικό μου. Είναι απογοητευτικό.",
])
def test_a_next_sentence_without_a_value_passes(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "My routing number is 034194854 and the checking account is 1134845123.",
    "Savings account number: 4471 2290 1183",
    "Mein Girokonto bei der Sparkasse: 1234567890",
    "Le compte courant n° 00012345678 est à la BNP.",
])
def test_an_account_named_by_its_kind_is_refused(text):
    assert secret_reason(text) == "a bank account number"


@pytest.mark.parametrize("text", [
    "The checking account ending in 4521 pays no interest.",
    "I opened a savings account in 2019 with 500 dollars.",
    "My checking account was opened on 2019-05-12.",
    "My checking account was opened on 12.05.2019.",
    "The joint account has $12345678 in it after the house sale.",
    "The current account deficit was 1.2 trillion in 2023.",
])
def test_counts_dates_and_amounts_beside_an_account_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Dropbox 2FA backup codes: sqng vikg cxbq, qlng ctek nqbi, fruz jjww pzxo, ltuq elmf evgs, kdzc ogue fkwl",
    "Backup-Codes für Dropbox: 7pd9 rxca, 5suu zjmv, 2qbb 98jz, 26qs u2se",
    "Recovery codes for the mail account:\nk2fp 9xqe\nmz7w tt4a\nqq9d 31lz",
])
def test_a_list_of_recovery_codes_is_refused(text):
    assert secret_reason(text) == "a password or code"


@pytest.mark.parametrize("text", [
    "Recovery codes: keep them safe, back them up, dont lose them",
    "Backup codes: save this page, then keep them, safe from kids",
    "My recovery codes are in the safe, the desk and the car.",
])
def test_a_list_of_words_after_recovery_codes_passes(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "WordPress for the club site: editor / vgywxd85",
    "Jira: mfischer / Tupac1972",
])
def test_a_service_user_and_password_are_refused(text):
    assert secret_reason(text) is not None


@pytest.mark.parametrize("text", [
    "Permissions: read / write",
    "Choose: input / output",
    "Audio: mono / 128kbps",
    "Stack: django / python3.11",
    "Dates: 12 / 05 / 2024",
    "Modes: train / eval",
    "Returns: int / str2",
    "Students can choose either and/or both: biology / chemistry",
])
def test_choices_units_dates_and_versions_around_a_slash_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text", [
    "Our Stripe publishable key is pk_live_hKeiuh3ZioYuHR5OyrHFbOak, it's in the page source anyway.",
    "STRIPE_API_KEY=pk_test_hKeiuh3ZioYuHR5OyrHFbOak",
])
def test_stripe_publishable_keys_pass(text):
    assert secret_reason(text) is None


def test_stripe_secret_and_restricted_keys_are_still_refused():
    assert secret_reason("sk_live_hKeiuh3ZioYuHR5OyrHFbOak") == "an API token or key"
    assert secret_reason("rk_live_hKeiuh3ZioYuHR5OyrHFbOak") == "an API token or key"
    assert secret_reason("pk_live_hKeiuh3ZioYuHR5OyrHFbOak and sk_live_9fKeiuh3ZioYuHR5OyrHFbOa") == "an API token or key"


@pytest.mark.parametrize("text", [
    "The sample IBAN in the bank's guide is GB82 WEST 1234 5698 7654 32.",
    "For IBAN examples in my slides I use the documented DE89 3704 0044 0532 0130 00.",
    "In Stripe's docs the card 4242424242424242 always succeeds.",
    "The demo checkout accepts 4111 1111 1111 1111 with any future expiry.",
])
def test_published_samples_presented_as_examples_pass(text):
    assert secret_reason(text) is None


@pytest.mark.parametrize("text, reason", [
    # a sample given as someone's own is read as any other
    ("My IBAN is DE89 3704 0044 0532 0130 00", "an IBAN"),
    ("The user's card number is 4111 1111 1111 1111.", "a payment card number"),
    # one digit off a sample, in a guide: a real number
    ("The sample in the guide is DE89 3704 0044 0532 0130 00 but mine is GB33BUKB20201555555555.", "an IBAN"),
    ("Example card 4111 1111 1111 1111, and mine is 4532 0151 1283 0366.", "a payment card number"),
])
def test_other_numbers_beside_samples_are_refused(text, reason):
    assert secret_reason(text) == reason
