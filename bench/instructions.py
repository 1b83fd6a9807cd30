"""Instructions per round and per play, counted by callgrind: no load on the machine moves
them, so a change to the engine or the bots is measured without noise.

    python bench/instructions.py                      # every case, this checkout
    python bench/instructions.py --tree /work/main    # the same cases on another checkout
    python bench/instructions.py -k greedy --rounds 500

Needs valgrind (Debian: `apt-get install -y valgrind`). Each case runs in its own
`valgrind --tool=callgrind` process with PYTHONHASHSEED=0, collecting only inside one native
call (`--toggle-collect`): the rounds of `simulate` (deals, declarations, bury, every trick,
settlement, by four native bots), the rollouts of one pimc decision (`Table.playouts`) or
the steps of the vector env (512 envs, self-play, random legal actions: `VecCore.step`,
from the reset on, so a case's count depends on --steps). The
imports and the Python around the call are not counted. A play is a lead or a follow: 4 a
trick (the `tricks` column), so "per play" is a round's count over its plays, shows and the
bury included in the round's."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ROUNDS = """
import shengji as sj
from shengji.bots import resolve_bots
from shengji.play._batch import simulate
specs, _, _ = resolve_bots({bot!r})
rules = sj.Rules.preset({preset!r})
cols = simulate(rules, 1, 0, {rounds}, specs)
print("UNITS", {rounds}, int(cols["tricks"].sum()) * 4)
"""

PIMC = """
import shengji as sj
from shengji.play.rounds import Table, view_of
rules = sj.Rules.preset("v3")
pimc = sj.Pimc(rollouts={rollouts})
dealer = {dealer}
table = Table(rules, 2, dealer, (2, 2), False, [pimc.spec()] + [sj.Greedy().spec()] * 3)
assert table.advance() == ("play", 0)
pimc.choose(view_of(table, rules, (2, 2), "play", 0), table)
print("UNITS", 1, 1)
"""

VECTOR = """
import numpy as np
from shengji.envs.vector import VecEnv
env = VecEnv(512, rules={preset!r}, seed=0)
_, info = env.reset()
rng = np.random.default_rng(0)
for _ in range({steps}):
    actions = (rng.random(512) * info["num_moves"]).astype(np.int64)
    _, _, _, _, info = env.step(actions)
print("UNITS", 512 * {steps}, 512 * {steps})
"""

# name: (script, the native function whose calls are counted, unit of the first count)
CASES = {
    **{
        f"{bot} rounds, {preset}": (
            ROUNDS.format(bot=bot, preset=preset, rounds="{rounds}"),
            "*_6_batch_*simulate",
            "round",
        )
        for bot in ("greedy", "expert", "random")
        for preset in ("v3", "match16", "bo3")
    },
    **{
        f"pimc decision, 1,000 rollouts, {moment}": (
            PIMC.format(rollouts=1000, dealer=dealer),
            "*_5Table_played_out",
            "decision",
        )
        for moment, dealer in (("first lead", 0), ("a follow", 3))
    },
    **{
        f"vector env decisions, {preset}": (
            VECTOR.format(preset=preset, steps="{steps}"),
            "*_7VecCore_*step",
            "decision",
        )
        for preset in ("v3", "bo3")
    },
}


def python_binary():
    """The interpreter itself, not a shim that starts it (pyenv's would be counted, or hide
    the real process from valgrind)."""
    return os.path.realpath(sys.executable)


def count(tree, script, function):
    """(instructions inside `function`, the script's UNITS line) for one callgrind run."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                f"--toggle-collect={function}",
                f"--callgrind-out-file={out}",
                python_binary(),
                "-c",
                script,
            ],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(f"callgrind run failed:\n{done.stderr[-3000:]}")
        units = re.search(r"^UNITS (\d+) (\d+)$", done.stdout, re.M)
        totals = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        if not units or not totals:
            raise SystemExit(f"no count in the callgrind run:\n{done.stdout}\n{done.stderr}")
        return int(totals.group(1)), int(units.group(1)), int(units.group(2))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure")
    parser.add_argument("--rounds", type=int, default=200, help="rounds a rounds case plays")
    parser.add_argument(
        "--steps", type=int, default=200, help="steps of 512 envs a vector case takes"
    )
    parser.add_argument("-k", default="", help="only the cases whose name holds this")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is missing (Debian: apt-get install -y valgrind)")
    print(f"# instructions (callgrind), {args.tree}")
    print(f"{'case':<40}{'instructions':>14}  {'per':<9}{'a play':>10}")
    for name, (script, function, unit) in CASES.items():
        if args.k not in name:
            continue
        script = script.format(rounds=args.rounds, steps=args.steps)
        total, n, plays = count(args.tree, script, function)
        per_play = f"{total / plays:>10,.0f}" if unit == "round" else ""
        print(f"{name:<40}{total / n:>14,.0f}  {unit:<9}{per_play}", flush=True)


if __name__ == "__main__":
    main()
