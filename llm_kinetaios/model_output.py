"""Reading JSON out of a model's answer: the one parser of model output.

Extraction and the update judge both ask for JSON, and real models, small
local ones above all, slip: a fenced block, chatter before and after,
unquoted keys, trailing commas, a bare ``Updates: []``. ``json_candidates``
yields every value the answer could mean, most likely first; each caller
takes the first of the shape it documents and nothing else.

Parsing is JSON5 (the ``json5`` package): it accepts exactly those slips
(unquoted keys, trailing commas, single quotes, comments) and nothing looser,
so text that is not JSON is never "repaired" into facts.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Iterator

_FENCED = re.compile(r"```[a-zA-Z0-9]*\s*(.*?)```", re.DOTALL)
# "facts: [...]" / "Updates: []" lines without the braces around them.
_KEY_LINE = re.compile(r"^\s*\"?[A-Za-z_]+\"?\s*:\s*\S")
MAX_SPANS = 20


def loads(text: str):
    "JSON, else JSON5; raises ValueError when it is neither."
    try:
        return json.loads(text)
    except ValueError:
        pass
    import json5  # only the worker and the judge read model output

    try:
        return json5.loads(text)
    except Exception as ex:  # json5 raises ValueError, and more on odd input
        raise ValueError(str(ex)) from None


def balanced_spans(text: str) -> Iterator[str]:
    "The outermost {...} and [...] spans of ``text``, in order (double-quoted strings respected)."
    position, found = 0, 0
    while found < MAX_SPANS:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            return
        start = min(starts)
        depth, quoted, escaped, end = 0, False, False, None
        for i in range(start, len(text)):
            c = text[i]
            if quoted:
                if escaped:
                    escaped = False
                elif c == "\\":
                    escaped = True
                elif c == '"':
                    quoted = False
            elif c == '"':
                quoted = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        if end is None:
            position = start + 1  # unbalanced: try the next opener
            continue
        found += 1
        yield text[start : end + 1]
        position = end + 1


def json_candidates(text: str) -> Iterator[object]:
    """Every JSON value ``text`` may hold, most likely first: the whole
    answer, each fenced block, each balanced span, and ``key: value`` lines
    read as one object."""
    text = (text or "").strip()
    seen: set[str] = set()
    pieces = [text, *(block.strip() for block in _FENCED.findall(text))]
    pieces += [span for piece in list(pieces) for span in balanced_spans(piece)]
    lines = [line.strip().rstrip(",") for line in text.splitlines() if line.strip()]
    if lines and all(_KEY_LINE.match(line) for line in lines):
        pieces.append("{" + ",".join(lines) + "}")
    for piece in pieces:
        if not piece or piece in seen:
            continue
        seen.add(piece)
        try:
            yield loads(piece)
        except ValueError:
            continue


def find_json(text: str, accept: Callable[[object], bool]):
    "The first candidate value ``accept`` takes, or None."
    for value in json_candidates(text):
        if accept(value):
            return value
    return None
