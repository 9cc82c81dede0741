"""Thirty-seventh round (issue 16; fresh46 read, fresh47 the report set): a
generated password may open with a sigil ("$", "&", "%"), which the reference
rule read as a variable's name. Two runs of digits with letters between them
right after the sigil make a password; a variable's name has one at most.
Every text here was written for these tests."""

import pytest

from llm_kinetaios.secret_filter import secret_reason


@pytest.mark.parametrize("text", [
    "My password for the print shop is $Harbor72kQ9.",
    "Mein Passwort für das Vereinskonto lautet &r4Lmx5521Falke.",
    "Mi contraseña del correo es %T8qWbanco2026.",
])
def test_a_password_opening_with_a_sigil_is_refused(text):
    assert secret_reason(text)


@pytest.mark.parametrize("text", [
    "The password is $DB_PASSWORD, read from the environment.",
    "The deploy password is $s3Bucket in the CI settings, not a real value.",
    "The password comes from $API_KEY_2 in the pipeline.",
])
def test_a_reference_to_a_variable_is_not_a_password(text):
    assert secret_reason(text) is None
