"""A learned lower bar for recall's judge, measured against the hand-set one
(issue 15, eleventh round; docs/recall.md).

The judge's last bars (``recall._by_lower_bar`` and the spread judge) decide
whether a question that clears no full bar injects anything. This script
saves, per question and unrelated prompt of the read splits of
bilingual_recall.py, what the judge reads (the memories' margins and script
pairs, the about-user reading, the first-person and name flags, the store's
spread), replays main's judge on them (it reproduces the benchmark's R@5 and
off-topic figures), and fits a logistic regression over the same readings in
its place, each read split left out in turn::

    python benchmarks/learned_gate.py            # dump (cached), replay, leave-one-split-out

Only the read splits are read: ``READ_SPLITS`` is a whitelist, and the later
report splits are never loaded. numpy only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The splits this round may read and tune on; nothing else is ever loaded.
READ_SPLITS = ("tune", "held-out", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6")
OFF_TOPIC_CAP = 10.0  # percent of a store's unrelated prompts, per language
# The reported gate's features (candidate_features names the others tried).
FEATURES = ("about", "best", "best_raw", "gap", "spread", "personal")


def dump(split: str, model) -> list[dict]:
    """Per question and unrelated prompt of ``split``, in every store: the judge's readings."""
    import bilingual_recall as bench

    from llm_kinetaios import recall as R
    from llm_kinetaios.config import Settings

    if split not in READ_SPLITS:  # the report splits are never read here
        raise ValueError(f"{split} is not a read split")
    info: dict = {}
    original = R._by_margin

    def reading(store, ids, score, inscope, settings, embedding_model, query, vector):
        min_margin = R._min_margin(settings, embedding_model)
        margin = score - float(score[inscope].mean())
        full = ((margin >= min_margin) | (score >= min_margin * R.STANDALONE_MARGINS)) & inscope
        texts = {row["id"]: row["content"] for row in R._texts(store, list(ids))}
        query_cjk, names = R.is_cjk(query), R.named_words(query)
        memories = []
        for i in np.flatnonzero((margin > 0) & inscope):
            text = texts.get(ids[i], "")
            pair = "cross" if query_cjk != R.is_cjk(text) else "cjk" if query_cjk else "other"
            memories.append((float(margin[i] / min_margin), pair, bool(names & set(R._WORDS.findall(text)))))
        rows = np.flatnonzero(inscope)
        shares = R.cjk_shares(store, [ids[i] for i in rows])
        deviation = R.script_free_deviation(score[rows], [shares.get(ids[i], 0.0) for i in rows])
        info.update(full=int(full.sum()), personal=R.speaks_of_self(query), named=bool(names),
                    about=R.about_user_margins(embedding_model, vector, query_cjk, min_margin),
                    memories=memories, spread=deviation / min_margin,
                    spread_pass=int(R._by_spread(store, ids, score, margin, inscope, settings,
                                                 embedding_model).sum()))
        return original(store, ids, score, inscope, settings, embedding_model, query, vector)

    R._by_margin = reading
    rows = []
    try:
        facts = bench.load_facts(bench.FACT_FILES[split])
        prompts = bench.load_prompts(split)
        with tempfile.TemporaryDirectory(prefix="kinetaios-gate-") as tmp:
            for scenario, pairs in bench.scenarios(facts).items():
                store, ids, _ = bench.build_store(Path(tmp) / f"{scenario}.db", [f for f, _ in pairs], model)
                for (_, question), memory_id, line in zip(pairs, ids, facts):
                    if line["split"] != split:
                        continue
                    info.clear()
                    result = R.recall(store, question, Settings(), embedding_model=model,
                                      mark_used=False, judge=False)
                    top5 = memory_id in [m.id for m in result.memories][:5]
                    rows.append(dict(info, store=scenario, kind="q", top5=top5, text=question,
                                     implicit=not bench.names_its_fact(line)))
                for language, texts in prompts.items():
                    for prompt in texts:
                        info.clear()
                        R.recall(store, prompt, Settings(), embedding_model=model, mark_used=False, judge=False)
                        rows.append(dict(info, store=scenario, kind="off-" + language, text=prompt))
                store.close()
    finally:
        R._by_margin = original
    return rows


def load(cache: Path, query_vectors: bool = False) -> dict[str, list[dict]]:
    """Every read split's readings, dumped once into ``cache``; with
    ``query_vectors``, each row's query embedding too (as ``vector``)."""
    from locomo_recall import CachingQueryModel

    from llm_kinetaios.embeddings import MultilingualE5Small

    cache.mkdir(parents=True, exist_ok=True)
    model = None
    data = {}
    for split in READ_SPLITS:
        path = cache / f"gate-{split}.json"
        if not path.exists():
            model = model or CachingQueryModel(MultilingualE5Small())
            path.write_text(json.dumps(dump(split, model), ensure_ascii=False))
        data[split] = json.loads(path.read_text())
    for rows in data.values():
        for row in rows:
            row.update(candidate_features(row), main_lower=main_lower_bar(row))
    if query_vectors:
        add_query_vectors(data, cache, model or CachingQueryModel(MultilingualE5Small()))
    return data


def add_query_vectors(data, cache: Path, model) -> None:
    "Each row's query embedding, as ``vector`` (computed once, kept in ``cache``)."
    from llm_kinetaios.embeddings import embed_query

    path = cache / "query-vectors.npz"
    texts = sorted({row["text"] for rows in data.values() for row in rows})
    if path.exists() and list(np.load(path)["texts"]) == texts:
        vectors = np.load(path)["vectors"]
    else:
        vectors = np.stack([embed_query(model, text) for text in texts])
        np.savez(path, texts=np.array(texts), vectors=vectors)
    index = {text: i for i, text in enumerate(texts)}
    for rows in data.values():
        for row in rows:
            row["vector"] = vectors[index[row["text"]]]


def candidate_features(row: dict) -> dict:
    """What the learned gate reads of a query: its about-user reading, its
    best memory's margins (scaled as the personal line scales them, and
    raw), the gap to the second best, the store's spread and whether it
    speaks in the first person, in margins; and, measured and left out of
    the reported gate, the best memory's script pair, about × best and the
    number of memories above the average."""
    from llm_kinetaios.recall import PERSONAL_PAIR_SCALES

    scaled = sorted(((m / PERSONAL_PAIR_SCALES[p], m, p) for m, p, _ in row["memories"]), reverse=True)
    best, best_raw, pair = scaled[0] if scaled else (0.0, 0.0, "other")
    second = scaled[1][0] if len(scaled) > 1 else 0.0
    about = row["about"] if np.isfinite(row["about"]) else 0.0
    return dict(about=about, best=best, best_raw=best_raw, gap=best - second, spread=row["spread"],
                personal=float(row["personal"]), cross=float(pair == "cross"), cjk_pair=float(pair == "cjk"),
                about_x_best=about * best, above=float(len(row["memories"])))


# (query in CJK, memory in CJK) of each script pair, for recall.clears_lower_bar.
PAIR_SCRIPTS = {"cross": (True, False), "cjk": (True, True), "other": (False, False)}


def main_lower_bar(row: dict) -> bool:
    "main's lower bar (recall._by_lower_bar) on a saved reading."
    from llm_kinetaios.recall import clears_lower_bar

    if not row["personal"] and not row["named"]:
        return False
    return any(clears_lower_bar(row["about"], margins, *PAIR_SCRIPTS[pair], personal=row["personal"])
               and (row["personal"] or named) for margins, pair, named in row["memories"])


def injects(row: dict, lower_bar) -> bool:
    "The judge's verdict: the full bars, then ``lower_bar``, then the spread judge."
    return row["full"] > 0 or lower_bar(row) or row["spread_pass"] > 0


def evaluate(rows: list[dict], lower_bar) -> dict:
    "R@5 mean and worst over the stores, implicit R@5, off-topic max and mean."
    stores: dict = {}
    for row in rows:
        entry = stores.setdefault(row["store"], {"q": [], "imp": [], "off-en": [], "off-zh": []})
        verdict = injects(row, lower_bar)
        if row["kind"] == "q":
            entry["q"].append(verdict and row["top5"])
            if row["implicit"]:
                entry["imp"].append(verdict and row["top5"])
        else:
            entry[row["kind"]].append(verdict)
    r5 = [100 * np.mean(e["q"]) for e in stores.values()]
    implicit = [x for e in stores.values() for x in e["imp"]]
    off = [100 * np.mean(e[k]) for e in stores.values() for k in ("off-en", "off-zh") if e[k]]
    return dict(mean=float(np.mean(r5)), worst=float(min(r5)), over=sum(x > OFF_TOPIC_CAP for x in off),
                implicit=100 * float(np.mean(implicit)) if implicit else float("nan"),
                off_max=float(max(off)), off_mean=float(np.mean(off)))


def eligible(row: dict, scope: str) -> bool:
    """Whether the learned gate decides this row: it clears no full bar, and
    is a first-person query (scope "personal") or any query but one in the
    third person that names someone (scope "unnamed", which keeps main's
    named line)."""
    if row["full"] > 0:
        return False
    if scope == "personal":
        return bool(row["personal"])
    return bool(row["personal"] or not row["named"])


def fit_logistic(x, y, l2=1.0, steps=3000):
    """Weights and bias of an L2-regularised logistic regression (classes
    weighed equally), by gradient descent on standardised features; returned
    on the raw features."""
    mean, std = x.mean(0), x.std(0) + 1e-9
    z = (x - mean) / std
    weight = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum()))
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        grad = weight * (p - y)
        w -= 0.5 * (z.T @ grad + l2 * w / len(y))
        b -= 0.5 * grad.sum()
    return w / std, b - float((w / std) @ mean)


def feature_vector(row, features) -> "np.ndarray":
    "``row``'s features, in order; ``vector`` is the query's embedding (384 numbers for e5-small)."
    return np.concatenate([np.atleast_1d(np.asarray(row[f], dtype=float)) for f in features])


class Gate:
    """A learned lower bar: main's named line for a third-person query that
    names someone (outside ``scope``), a linear score of ``features`` against
    ``threshold`` for the rest."""

    def __init__(self, features, coef, bias, scope, threshold=float("inf"), scores=None):
        self.features, self.coef, self.bias, self.scope = features, coef, bias, scope
        self.threshold = threshold
        self.scores = {} if scores is None else scores  # by id(row), shared by every threshold

    def score(self, row) -> float:
        if id(row) not in self.scores:
            self.scores[id(row)] = float(np.dot(self.coef, feature_vector(row, self.features)) + self.bias)
        return self.scores[id(row)]

    def at(self, threshold) -> "Gate":
        return Gate(self.features, self.coef, self.bias, self.scope, threshold, self.scores)

    def __call__(self, row) -> bool:
        if not eligible(row, self.scope):
            return row["main_lower"]
        return self.score(row) >= self.threshold


def fitted_gate(data, splits, features, scope, l2) -> Gate:
    """The logistic regression on ``splits``: questions whose fact recall
    ranks in its top five (1) against unrelated prompts (0), of the rows the
    gate decides and the spread judge does not."""
    rows = [r for s in splits for r in data[s] if eligible(r, scope) and r["spread_pass"] == 0
            and (r["kind"] != "q" or r["top5"])]
    x = np.array([feature_vector(r, features) for r in rows])
    y = np.array([1.0 if r["kind"] == "q" else 0.0 for r in rows])
    return Gate(features, *fit_logistic(x, y, l2=l2), scope)


def hand_set_gate() -> Gate:
    "main's personal line (about + PERSONAL_BAR_WEIGHT × best), its bar to be chosen like a threshold."
    from llm_kinetaios.recall import PERSONAL_BAR_WEIGHT

    return Gate(("about", "best"), np.array([1.0, PERSONAL_BAR_WEIGHT]), 0.0, "personal")


def with_threshold(gate: Gate, data, splits, caps, mean_caps) -> Gate:
    """``gate`` at the lowest threshold that keeps every store of ``splits``
    within its split's cap and each split's mean off-topic share within its
    mean cap."""
    candidates = sorted({gate.score(r) for s in splits for r in data[s] if eligible(r, gate.scope)})

    def feasible(threshold):
        for s in splits:
            got = evaluate(data[s], gate.at(threshold))
            if got["off_max"] > caps[s] or got["off_mean"] > mean_caps[s]:
                return False
        return True

    if not feasible(candidates[-1] + 1e-9):
        return gate.at(float("inf"))
    low, high = 0, len(candidates) - 1
    while low < high:  # off-topic shares only fall as the threshold rises: bisect
        mid = (low + high) // 2
        if feasible(candidates[mid]):
            high = mid
        else:
            low = mid + 1
    return gate.at(candidates[low])


def at_mains_off_topic(gate: Gate, rows, base) -> dict:
    """``gate`` on ``rows`` at the threshold, swept on these rows themselves,
    with the best R@5 whose off-topic max and mean are no higher than
    main's: the two scores compared at equal off-topic (for that comparison
    only; no gate could choose its threshold so)."""
    best = evaluate(rows, gate.at(float("inf")))
    for threshold in sorted({gate.score(r) for r in rows if eligible(r, gate.scope)}):
        got = evaluate(rows, gate.at(threshold))
        if got["off_max"] <= base["off_max"] and got["off_mean"] <= base["off_mean"] + 1e-9 \
                and got["mean"] > best["mean"]:
            best = got
    return best


def caps_of(base, mean_cap: str):
    """Per split, the highest off-topic share a store may reach (the goal, or
    main's share where main is already above it) and the highest mean share
    (none; with "over-goal", main's where main is above the goal; with
    "all", main's everywhere)."""
    caps = {s: max(OFF_TOPIC_CAP, b["off_max"]) for s, b in base.items()}
    held = {s for s, b in base.items() if mean_cap == "all"
            or (mean_cap == "over-goal" and b["off_max"] > OFF_TOPIC_CAP)}
    return caps, {s: base[s]["off_mean"] + 1e-9 if s in held else 100.0 for s in base}


def line(r) -> str:
    return (f"R@5 {r['mean']:.1f} (worst store {r['worst']:.1f}), implicit {r['implicit']:.1f}, "
            f"off-topic max {r['off_max']:.1f} mean {r['off_mean']:.1f}, cells over {r['over']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "kinetaios-gate",
                        help="where the readings are saved (dumped once, then reused)")
    parser.add_argument("--scope", choices=("personal", "unnamed"), default="unnamed")
    parser.add_argument("--l2", type=float, default=30.0)
    parser.add_argument("--features", default=",".join(FEATURES),
                        help="comma-separated, of: about, best, best_raw, gap, spread, personal, cross, "
                             "cjk_pair, about_x_best, above, vector (the query's embedding)")
    parser.add_argument("--hand-set", action="store_true",
                        help="no fit: main's personal line, its bar chosen as the learned threshold is")
    parser.add_argument("--mean-cap", choices=("none", "over-goal", "all"), default="none")
    args = parser.parse_args(argv)
    os.environ.setdefault("LLM_USER_PATH", tempfile.mkdtemp(prefix="kinetaios-bench-user-"))
    features = tuple(args.features.split(","))
    data = load(args.cache, query_vectors="vector" in features)
    base = {s: evaluate(data[s], lambda row: row["main_lower"]) for s in READ_SPLITS}
    print("main, replayed:")
    for s, r in base.items():
        print(f"  {s:9s} {line(r)}")
    caps, mean_caps = caps_of(base, args.mean_cap)
    make = (lambda splits: hand_set_gate()) if args.hand_set else \
        (lambda splits: fitted_gate(data, splits, features, args.scope, args.l2))
    print(f"\nleft out in turn (fitted and thresholded on the others), main -> gate; "
          f"then R@5 at main's off-topic on it:")
    gains, same_gains = [], []
    for out in READ_SPLITS:
        rest = [s for s in READ_SPLITS if s != out]
        gate = with_threshold(make(rest), data, rest, caps, mean_caps)
        got, same = evaluate(data[out], gate), at_mains_off_topic(gate, data[out], base[out])
        gains.append(got["mean"] - base[out]["mean"])
        same_gains.append(same["mean"] - base[out]["mean"])
        print(f"  {out:9s} {line(got)}; at main's off-topic R@5 {same['mean']:.1f}")
    print(f"  R@5 gain: mean {np.mean(gains):+.2f}, worst {min(gains):+.2f}; "
          f"at main's off-topic: mean {np.mean(same_gains):+.2f}, worst {min(same_gains):+.2f}")
    gate = with_threshold(make(READ_SPLITS), data, READ_SPLITS, caps, mean_caps)
    print("\nfitted on every read split: " + ", ".join(f"{f} {c:+.4f}" for f, c in zip(gate.features, gate.coef))
          + f", bias {gate.bias:+.4f}, threshold {gate.threshold:.4f}")
    for s in READ_SPLITS:
        print(f"  {s:9s} {line(evaluate(data[s], gate))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
