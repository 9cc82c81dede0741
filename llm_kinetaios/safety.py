"""The safety filter every memory passes before it is put in front of a model.

A stored memory is text that came from a conversation (or an import file) and
will be shown to a model later, so it is an injection surface. The filter:

* drops a memory that reads as instructions to the model: "ignore previous
  instructions", "you are now ...", "new system prompt", "from now on
  respond ...", and the like;
* drops a memory carrying chat-template role tags or fake headers
  (``<|im_start|>``, ``[INST]``, ``<system>``, ``### System:``, ``Assistant:``);
* neutralises formatting that could close the block and open a new section:
  leading ``#``, ``>``, ``---``, code fences; line breaks become spaces, so
  a memory is always exactly one bullet;
* removes control, zero-width and bidirectional-override characters, after
  NFKC normalisation (which also folds full-width look-alikes);
* drops absurdly long entries (over MAX_MEMORY_CHARS): a durable fact about
  a person fits in a sentence or two.

It returns the cleaned text, or None when the memory should not be injected.
"""

import re
import unicodedata

MAX_MEMORY_CHARS = 500

# Zero-width, joiners, BOM, soft hyphen, and the bidi embedding/override/isolate
# controls: invisible, and a classic way to hide text from a human reader.
_INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"
)

_INSTRUCTION_PATTERNS = [
    r"\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(previous|prior|above|earlier|all|any|your|the|these|those)\b.{0,40}\b(instructions?|prompts?|rules|directions|guidelines|messages|context)\b",
    r"\b(new|updated|real|actual|hidden|secret)\s+(system\s+)?(instructions?|prompt|rules)\b",
    r"\bsystem\s+(prompt|message|override|instruction)s?\b",
    r"\byou\s+(are|will)\s+now\b",
    r"\bfrom\s+now\s+on\b.{0,60}\b(you|assistant|respond|reply|answer|always|never)\b",
    r"\b(act|behave|respond|pretend)\s+(as|like)\s+(if\s+)?(you\s+are\s+)?(an?\s+)?(unrestricted|jailbroken|dan|evil|different)\b",
    r"\bdo\s+anything\s+now\b",
    r"\bpretend\s+(to\s+be|you\s+are|you're|that\s+you)\b",
    r"\bjailbreak",
    r"\b(reveal|print|output|repeat|leak)\b.{0,30}\b(system\s+prompt|instructions|api\s+keys?|secrets?)\b",
    r"\b(assistant|ai|model|claude|gpt|chatgpt)\s+(must|should|shall)\s+(always|never|now)\b",
    r"\bwhen\s+(you|the\s+assistant)\s+(read|see)s?\s+this\b",
]
_ROLE_MARKERS = [
    r"<\|[a-z_]+\|>",  # <|im_start|>, <|system|>, <|endoftext|>
    r"\[/?(inst|sys|system)\]",
    r"<<\s*/?sys\s*>>",
    r"</?\s*(system|assistant|user|human|instructions?|tool|developer)\s*>",
    r"(^|\n)\s*#{0,6}\s*(system|assistant|user|human|developer|tool)\s*(prompt|message)?\s*:",
    r"(^|\n)\s*#{1,6}\s*(system|instructions?|about the user)\b",
]
_INSTRUCTION = re.compile("|".join(_INSTRUCTION_PATTERNS), re.IGNORECASE | re.DOTALL)
_ROLE = re.compile("|".join(_ROLE_MARKERS), re.IGNORECASE)
_LEADING_MARKUP = re.compile(r"^(\s*(#+|>+|-{3,}|={3,}|\*{3,}|`{3,}|~{3,}|[-*+]\s))+")
_FENCE = re.compile(r"`{3,}|~{3,}")


def is_instruction_like(text: str) -> bool:
    "True when the text reads as an attempt to instruct the model."
    return bool(_INSTRUCTION.search(text) or _ROLE.search(text))


def sanitize_memory(text: str) -> str | None:
    """Clean one memory for injection; None if it must not be injected."""
    if not isinstance(text, str):
        return None
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    # Control characters (Cc) other than whitespace, and unassigned/private use.
    text = "".join(
        ch
        for ch in text
        if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cn", "Cs")
    )
    if len(text) > MAX_MEMORY_CHARS:
        return None
    if is_instruction_like(text):
        return None
    text = " ".join(text.split())  # one line: a memory is exactly one bullet
    text = _FENCE.sub("", text)
    text = _LEADING_MARKUP.sub("", text).strip()
    return text or None
