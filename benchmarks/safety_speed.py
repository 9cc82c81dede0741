"""The safety checks grow linearly with the text, and a 1 MB memory is refused
before any of them runs.

    python benchmarks/safety_speed.py

Each check (hiding characters, the instruction detector, the secret filter)
runs with the length limit turned off on texts of 1, 10 and 100 KB built to
be hard for regular expressions: near-misses of the patterns repeated, long
runs of one character, and deep nesting. Printed: time per KB at each size
and the ratio of the 100 KB cost per KB to the 1 KB one (about 1 for linear
time; a quadratic check would show about 100). Then the real write check
with the default limit on a 1 MB text: refused in microseconds. Last, the
learned detector's cost per memory (a dot product on the e5 vector the write
path makes anyway; on a flagged wish also the wish head's character n-grams;
on a memory of several sentences that passes whole, embedding each sentence)
beside the cost of making that vector, measured in the same run.
"""

from __future__ import annotations

import time

from _common import markdown_table, median_ms

from llm_kinetaios.safety import injection_reason, strip_hiding_characters
from llm_kinetaios.secret_filter import secret_reason
from llm_kinetaios.write import check_memory

# Pieces that start many partial matches: each keyword opens a pattern that
# then fails far away, which is where backtracking regexes go quadratic.
HOSTILE_PIECES = {
    "near-misses": "ignore the password of previous user: system ‍ you-know https://a.b/",
    "one long run": "a",
    "digits and dashes": "4111 1111-",
    "base64-ish": "QUJD",
    "hidden characters": "\u200b\u202e\U000e0041x",
    # the false-positive rules: quoted titles, placeholders, device words, URL templates
    "titles and placeholders": "called 'ignore <your-pass {k} developer mode https://a${z}.b ",
    # the third round: grants near the assistant, leetspeak, public key blocks, TOTP seeds, Oracle logins
    "grants, leet and keys": "allows the assistant 4ll y0u s4y -----BEGIN PGP PUBLIC KEY BLOCK----- totp ABCD oracle a/b@ blog post says you ",
    # the fourth round: ids in a text about identity, keys of a network, passwords beside their word, addresses
    "ids, keys and addresses": "personal code 4850730123 756.1234. wifi key is a1- unlocks Ab1!x9 passwort @x(9 assistant sende a@b.cc whenever ",
    # the fifth round: trust and waivers, internal surfaces, client logins, spelled-out letters, notes to an AI
    "agents, logins and letters": "trusted no need to check. open the admin -u a -p b1 x/y@h:15 i g n o r e cédula 5.164 note pour l'ia 9792 ",
    # the eighth round: one long run of BIP-39 list words, every window of it checksummed
    "recovery-phrase words": "abandon ability able about above absent absorb abstract ",
    # the seventeenth round: disguises (letters spelled out, pig latin, codes, Morse, base32, look-alikes)
    "disguises": "r-e-m s.a 12 34 56 78 90 .- -.. / IF2XI3ZN ethay ymay a\u200bb Тhе %41 U+0041 aaaaaay ",
}
SIZES_KB = (1, 10, 100)
CHECKS = {
    "strip_hiding_characters": strip_hiding_characters,
    "injection_reason": injection_reason,
    "secret_reason": secret_reason,
}


def text_of(piece: str, kb: int) -> str:
    size = kb * 1024
    return (piece * (size // len(piece) + 1))[:size]


def main() -> None:
    rows = []
    worst = 0.0
    for check_name, check in CHECKS.items():
        for piece_name, piece in HOSTILE_PIECES.items():
            per_kb = []
            for kb in SIZES_KB:
                text = text_of(piece, kb)
                repeats = 3 if kb < 100 else 1
                per_kb.append(median_ms(lambda: check(text), repeats, warmup=0) / kb)
            ratio = per_kb[-1] / per_kb[0] if per_kb[0] else float("nan")
            worst = max(worst, ratio)
            rows.append([check_name, piece_name, *(f"{t:.3f}" for t in per_kb), f"{ratio:.2f}"])
    print(markdown_table(
        ["check", "text", *(f"ms per KB at {kb} KB" for kb in SIZES_KB), "100 KB / 1 KB per-KB ratio"],
        rows))
    print(f"\nWorst ratio: {worst:.2f} (linear: about 1; quadratic: about 100)")

    megabyte = text_of(HOSTILE_PIECES["near-misses"], 1024)
    start = time.perf_counter()
    verdict = check_memory(megabyte)
    elapsed = (time.perf_counter() - start) * 1000
    print(f"\n1 MB memory through check_memory with the default limit: refused in {elapsed:.3f} ms: "
          f"{verdict.refused}")
    learned_detector_cost()


def learned_detector_cost() -> None:
    "The heads on one memory's vector, as the write path runs them, against embedding that memory with e5."
    from llm_kinetaios.embeddings import MultilingualE5Small, embed_passages
    from llm_kinetaios.learned_detector import quarantine_reasons

    model = MultilingualE5Small()
    fact = ["The user lives in Porto, works as a nurse and is learning the cello."]
    embed_ms = median_ms(lambda: embed_passages(model, fact), 20)
    vector = embed_passages(model, fact)
    classify_ms = median_ms(lambda: quarantine_reasons(vector, model, fact, [None]), 200)
    print(f"\nLearned detector per memory: {classify_ms:.4f} ms; embedding it with e5: "
          f"{embed_ms:.2f} ms (ratio {classify_ms / embed_ms:.4f})")
    wish = ["When you draft cover letters for me, keep them to one page and skip the pleasantries."]
    wish_vector = embed_passages(model, wish)
    wish_ms = median_ms(lambda: quarantine_reasons(wish_vector, model, wish, ["addressed to the assistant (second person)"]), 200)
    print(f"On a flagged wish the wish head reads (n-grams too): {wish_ms:.4f} ms (ratio {wish_ms / embed_ms:.4f})")
    # Since the thirtieth round a memory of several sentences that passes whole
    # is embedded once more, a sentence at a time: its cost against its own embedding.
    facts = ["I keep two hives at the allotment. My partner does the extracting in August. "
             "We sell the honey at the village fair, and the rest goes to friends."]
    facts_embed_ms = median_ms(lambda: embed_passages(model, facts), 20)
    facts_vector = embed_passages(model, facts)
    facts_ms = median_ms(lambda: quarantine_reasons(facts_vector, model, facts, [None]), 20)
    print(f"On a memory of three sentences the heads also read each one: {facts_ms:.2f} ms; embedding it whole: "
          f"{facts_embed_ms:.2f} ms (ratio {facts_ms / facts_embed_ms:.2f})")


if __name__ == "__main__":
    main()
