"""Disguised text: a memory written so that a person cannot read it.

A fact about the user is stated in chat in plain words. A "fact" spelled
backwards, in a Caesar cipher or pig latin, letter by letter, with Cyrillic
look-alikes inside English words, with invisible characters between its
letters, in leetspeak, or as escapes, code points, Morse or base32 hides
what it says from the person who would approve it, and is worth hiding
only to someone who wants a model to read it. ``disguise_reason`` names
the disguise, whatever the hidden words say; ``safety.injection_reason``
asks it, and a memory it names is quarantined like any other flagged one.

Each check reads the text once, or a fixed number of times (the 25 Caesar
shifts; a letter frequency rules most texts out first), so its time grows
linearly with the text. The thresholds were set on the read safety splits
(tune, fresh to fresh20, the training sets), LoCoMo turns and the bilingual
recall facts as ordinary text: on those they flag no ordinary fact.
"""

from __future__ import annotations

import base64
import binascii
import re
import string
import unicodedata

from . import safety

# English words a disguise hides and a decoding brings back: three letters or
# more, so that short words which every language has ("a", "in", "me")
# cannot make a Spanish or Tagalog fact read as a decoded English one.
_ENGLISH_WORDS = re.compile(
    r"\b(?:the|and|you|your|all|now|say|print|ignore|instructions|this|that|with|for|from|any|every|always"
    r"|never|user|users|send|sent|save|remember|forward|delete|password|passwords|codes?|files?|memory"
    r"|memories|rules|system|prompt|safety|wants?|should|must|will|can|don't|have|has|what|when|not|she"
    r"|they|them|their|his|her|our)\b"
)
_DECODED_GAIN = 3  # English words a decoding must add to count as one

# Letters of scripts with Latin look-alikes; micro (µ, μ) is a unit, not a disguise.
_LOOKALIKE_SCRIPTS = ("CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC")
_WORD = re.compile(r"[^\W\d_]{2,64}")
_MIXED_WORDS_NEEDED = 2

# Invisible characters next to Latin letters, inside or between words.
# ZWJ and ZWNJ next to Arabic or Indic letters do real work and are not
# counted; nor is the soft hyphen, which marks where a long word may break
# ("Donau\u00addampf\u00adschiff"): safety.py reads it as a space instead.
_INVISIBLE = "\u200b-\u200d\u2060\ufeff"
_INVISIBLE_BY_LATIN = re.compile(
    f"(?<=[A-Za-z])[{_INVISIBLE}](?=[A-Za-z {_INVISIBLE}])|(?<= )[{_INVISIBLE}](?=[A-Za-z])"
)
_INVISIBLES_NEEDED = 3

# "r e m e m b e r", "s-e-n-d", "t.r.u.s.t.e.d": four or more letters, one separator.
_SPELLED_WORD = re.compile(r"(?<![\w.\-*_])[A-Za-z]([ .\-*_])[A-Za-z](?:\1[A-Za-z]){2,64}(?!\w)")
_SPELLED_WORDS_NEEDED = 2
_SPELLED_RUN_ALONE = 10  # letters: one word this long spelled out is enough ("S.H.I.E.L.D." is 6)

_PIG_LATIN_RUN = re.compile(r"(?:\b[a-z]{2,30}ay\b[\s,.;:!?'\"]{0,4}){4}")
_ENCLOSED_LETTERS = re.compile("[\U0001f130-\U0001f189\u24b6-\u24e9]")  # 🅸🅶🅽, Ⓘ; not flags
_ENCLOSED_NEEDED = 4

# An ASCII letter written as an escape has no reason to be one but to hide.
_LETTER_HEX = r"(?:4[1-9a-fA-F]|5[0-9aA]|6[1-9a-fA-F]|7[0-9aA])"
_ESCAPED_LETTER = re.compile(rf"\\u00{_LETTER_HEX}|\\x{_LETTER_HEX}")
_PERCENT_LETTER = re.compile(rf"%{_LETTER_HEX}")
_CODE_POINT = re.compile(r"\bU\+00[2-7][0-9A-Fa-f]\b")
_ESCAPES_NEEDED = 3  # percent escapes and code points; URLs escape a letter now and then

_DECIMAL_CODES = re.compile(r"(?<![\d.])(?:\d{2,3}[ ,]{1,3}){7,64}\d{2,3}(?![\d.])")
_MORSE = re.compile(r"(?<!\S)(?:[.\-·−]{1,7}[ /]{1,3}){7,64}[.\-·−]{1,7}(?!\S)")
_BASE32_RUN = re.compile(r"\b[A-Z2-7]{24,4096}={0,6}")

_SHIFTS = [str.maketrans(string.ascii_lowercase, string.ascii_lowercase[n:] + string.ascii_lowercase[:n])
           for n in range(1, 26)]


def disguise_reason(text: str, folded: str | None = None) -> str | None:
    """How ``text`` is disguised, or None when it is written to be read.
    ``folded``: the text as ``safety.fold_for_matching`` folds it, when at hand."""
    folded = safety.fold_for_matching(text) if folded is None else folded
    if _mixed_script_words(text) >= _MIXED_WORDS_NEEDED:
        return "disguised: look-alike letters of another script inside words"
    if len(_INVISIBLE_BY_LATIN.findall(text)) >= _INVISIBLES_NEEDED:
        return "disguised: invisible characters between letters"
    if _spelled_out(text):
        return "disguised: words spelled out letter by letter"
    if len(_ENCLOSED_LETTERS.findall(text)) >= _ENCLOSED_NEEDED:
        return "disguised: letters in boxes or circles"
    if _letters_escaped(text):
        return "disguised: plain letters written as escapes or code points"
    if _codes_that_decode(text):
        return "disguised: character codes, Morse or base32"
    return _decoded_to_english(folded)


def _mixed_script_words(text: str) -> int:
    "Words that mix Latin letters with look-alike letters of another script."
    return sum(1 for word in _WORD.findall(unicodedata.normalize("NFKC", text))
               if re.search("[A-Za-z]", word) and any(_lookalike_letter(ch) for ch in word))


def _lookalike_letter(ch: str) -> bool:
    if ch.isascii() or not ch.isalpha() or ch in "µμ":
        return False
    return unicodedata.name(ch, "").split(" ")[0] in _LOOKALIKE_SCRIPTS


def _spelled_out(text: str) -> bool:
    visible = unicodedata.normalize("NFKC", safety.strip_invisible_for_matching(text))
    words = [match.group() for match in _SPELLED_WORD.finditer(visible)]
    return len(words) >= _SPELLED_WORDS_NEEDED or any((len(word) + 1) // 2 >= _SPELLED_RUN_ALONE for word in words)


def _letters_escaped(text: str) -> bool:
    return bool(_ESCAPED_LETTER.search(text)) or len(_PERCENT_LETTER.findall(text)) >= _ESCAPES_NEEDED \
        or len(_CODE_POINT.findall(text)) >= _ESCAPES_NEEDED


def _codes_that_decode(text: str) -> bool:
    "Decimal character codes that spell words, Morse, or base32 that decodes to words."
    for match in _DECIMAL_CODES.finditer(text):
        codes = [int(number) for number in re.findall(r"\d+", match.group())]
        # Words and a space between them: golf scores (68-74) or readings
        # (98-121) spell letters too, but never a code 32 among them.
        if all(32 <= code <= 126 for code in codes) and 32 in codes:
            decoded = "".join(map(chr, codes))
            if sum(ch.isalpha() or ch == " " for ch in decoded) >= 0.85 * len(decoded):
                return True
    if _MORSE.search(text):
        return True
    for match in _BASE32_RUN.finditer(text):
        chunk = match.group().rstrip("=")
        try:
            if safety.readable_bytes(base64.b32decode(chunk + "=" * (-len(chunk) % 8))):
                return True
        except (binascii.Error, ValueError):
            continue
    return False


def _decoded_to_english(folded: str) -> str | None:
    "Reversed, shifted, pig latin or leetspeak text that reads as English once decoded."
    plain = len(_ENGLISH_WORDS.findall(folded))
    enough = max(_DECODED_GAIN, plain + _DECODED_GAIN)
    if len(_ENGLISH_WORDS.findall(folded[::-1])) >= enough:
        return "disguised: text written backwards"
    if plain <= 1 and _could_be_shifted(folded):
        for shift in _SHIFTS:
            if len(_ENGLISH_WORDS.findall(folded.translate(shift))) >= enough:
                return "disguised: letters shifted (a Caesar cipher or ROT13)"
    if _PIG_LATIN_RUN.search(folded):
        return "disguised: pig latin"
    spelled = safety.unleet(folded)
    if spelled and len(_ENGLISH_WORDS.findall(spelled)) >= enough:
        return "disguised: leetspeak"
    return None


def _could_be_shifted(folded: str) -> bool:
    "Enough ASCII letters to hide English words in, and most of the letters ASCII."
    ascii_letters = sum(ch in string.ascii_lowercase for ch in folded)
    letters = sum(ch.isalpha() for ch in folded)
    return ascii_letters >= 12 and ascii_letters >= 0.8 * letters
