"""Resolve relative dates in a fact ("next month", "yesterday") at write time.

"User starts a new job next month", read back a year later, is wrong; "User
starts a new job in January 2027" stays right. Facts are rewritten against
the time of the turn they came from. English phrases only: they are what the
extraction prompt asks for, and a wrong rewrite is worse than none.
"""

import calendar
import datetime
import re

_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
            "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def _day(d: datetime.date) -> str:
    return f"on {d.isoformat()}"


def _month(year: int, month: int) -> str:
    return f"{calendar.month_name[month]} {year}"


def _add_months(d: datetime.date, months: int) -> tuple[int, int]:
    index = d.year * 12 + (d.month - 1) + months
    return index // 12, index % 12 + 1


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


def resolve_relative_dates(text: str, when: datetime.datetime) -> str:
    """Rewrite relative date phrases in ``text`` as absolute dates from ``when``."""
    today = when.date()
    rules = [
        (r"\bthe day after tomorrow\b", lambda m: _day(today + datetime.timedelta(days=2))),
        (r"\bthe day before yesterday\b", lambda m: _day(today - datetime.timedelta(days=2))),
        (r"\btomorrow\b", lambda m: _day(today + datetime.timedelta(days=1))),
        (r"\byesterday\b", lambda m: _day(today - datetime.timedelta(days=1))),
        (r"\b(?:today|tonight|this morning|this evening)\b", lambda m: _day(today)),
        (r"\bnext week\b", lambda m: f"in the week of {(today + datetime.timedelta(days=7 - today.weekday())).isoformat()}"),
        (r"\blast week\b", lambda m: f"in the week of {(today - datetime.timedelta(days=today.weekday() + 7)).isoformat()}"),
        (r"\bthis week\b", lambda m: f"in the week of {(today - datetime.timedelta(days=today.weekday())).isoformat()}"),
        (r"\bnext month\b", lambda m: "in " + _month(*_add_months(today, 1))),
        (r"\blast month\b", lambda m: "in " + _month(*_add_months(today, -1))),
        (r"\bthis month\b", lambda m: "in " + _month(today.year, today.month)),
        (r"\bnext year\b", lambda m: f"in {today.year + 1}"),
        (r"\blast year\b", lambda m: f"in {today.year - 1}"),
        (r"\bthis year\b", lambda m: f"in {today.year}"),
        (r"\bin (\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten) days?\b",
         lambda m: _day(today + datetime.timedelta(days=_count(m.group(1))))),
        (r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten) days? ago\b",
         lambda m: _day(today - datetime.timedelta(days=_count(m.group(1))))),
        (r"\bin (\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten) weeks?\b",
         lambda m: f"around {(today + datetime.timedelta(weeks=_count(m.group(1)))).isoformat()}"),
        (r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten) weeks? ago\b",
         lambda m: f"around {(today - datetime.timedelta(weeks=_count(m.group(1)))).isoformat()}"),
        (r"\bin (\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten) months?\b",
         lambda m: "in " + _month(*_add_months(today, _count(m.group(1))))),
        (r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten) months? ago\b",
         lambda m: "in " + _month(*_add_months(today, -_count(m.group(1))))),
        (r"\bnext (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
         lambda m: _day(today + datetime.timedelta(days=(_WEEKDAYS[m.group(1).lower()] - today.weekday()) % 7 or 7))),
        (r"\blast (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
         lambda m: _day(today - datetime.timedelta(days=(today.weekday() - _WEEKDAYS[m.group(1).lower()]) % 7 or 7))),
    ]
    for pattern, replace in rules:
        text = re.sub(pattern, replace, text, flags=re.IGNORECASE)
    return text
