"""Secret detection: API keys, tokens, passwords, private keys, card numbers.

Every write path (extraction, ``llm memories add``, import) checks facts with
``contains_secret`` before storing them: a memory is shown to a model on every
later turn, so a secret stored once would leak forever.

The patterns are specific (known key prefixes, PEM headers, Luhn-valid card
numbers, "password is ..." phrasing) so that ordinary facts with numbers or
long words are not caught; see tests/test_secrets.py for both corpora.
"""

import math
import re

_PATTERNS = [
    # Provider keys with recognisable prefixes.
    r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}",
    r"\b(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bgithub_pat_[A-Za-z0-9_]{30,}",
    r"\bglpat-[A-Za-z0-9_\-]{20,}",
    r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bASIA[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_\-]{35}\b",
    r"\bhf_[A-Za-z0-9]{30,}",
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",  # JWT
    r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----",
    r"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp)://[^\s:/@]+:[^\s@]+@",
    r"(?i:\bbearer\s+[A-Za-z0-9_\-\.=]{20,})",
    # "my password is hunter2", "pwd: x", "PIN 4821", "passcode=..."
    r"(?i:\b(?:password|passwd|passcode|passphrase|pwd|pin(?:\s+code)?|api[\s_-]?key|secret[\s_-]?key|access[\s_-]?token|auth[\s_-]?token|token)\b\s*(?:is|was|=|:|of)\s*\S{3,})",
]
_SECRET = re.compile("|".join(f"(?:{p})" for p in _PATTERNS))
_DIGIT_RUN = re.compile(r"(?<!\d)(?:\d[ -]?){13,19}(?!\d)")
_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=]{32,}")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def _entropy(text: str) -> float:
    counts = {ch: text.count(ch) for ch in set(text)}
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


def _looks_random(token: str) -> bool:
    "A long token mixing letters and digits with high entropy: likely a key."
    if re.fullmatch(r"[0-9a-fA-F]{32,}", token):  # hex keys top out at 4 bits/char
        return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
    has_digit = any(c.isdigit() for c in token)
    has_upper = any(c.isupper() for c in token)
    has_lower = any(c.islower() for c in token)
    return has_digit and (has_upper or has_lower) and _entropy(token) > 4.0


def contains_secret(text: str) -> bool:
    "True when the text holds something that must never be stored."
    if _SECRET.search(text):
        return True
    for match in _DIGIT_RUN.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and _luhn_ok(digits):
            return True
    return any(_looks_random(token) for token in _TOKEN.findall(text))
