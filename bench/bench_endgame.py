"""The exact endgame solver (sj.solve_endgame) on the last k tricks of greedy rounds, every
hand known: the value and a best lead, and every lead valued. The search grows about tenfold a
trick (docs/engine.md "The exact endgame")."""

import pytest

import shengji as sj
from shengji.bots._policies import BOTS
from shengji.play.rounds import Table

POSITIONS = 4  # endgames a benchmark solves, each from its own greedy round


def endgames(rules, tricks):
    """Tables at a lead with `tricks` cards a hand, from greedy rounds of seeds 0, 1, ...: the
    seat that leads there (the one whose plays Python answers) is the seed's seat."""
    greedy = sj.Greedy().spec()
    found = []
    for seed in range(200):
        seat = seed % 4
        specs = [greedy._replace(kind=BOTS["search"]) if s == seat else greedy for s in range(4)]
        table = Table(sj.Rules.preset(rules), seed, seed % 4, (2, 2), False, specs)
        pending = table.advance()
        while pending is not None:
            if pending[0] == "play" and not table.state()["current"]:
                if len(table.hand(seat)) <= tricks:
                    break
            table.answer(table.greedy_play() if pending[0] == "play" else None)
            pending = table.advance()
        if pending is not None and len(table.hand(seat)) == tricks:
            found.append(table)
        if len(found) == POSITIONS:
            return found
    raise AssertionError(f"fewer than {POSITIONS} greedy {rules} rounds lead at {tricks} cards")


def solve_all(tables, values):
    return [t.solve_endgame(values=values) for t in tables]


@pytest.mark.parametrize(
    ("rules", "tricks"), [("v3", k) for k in (3, 4, 5, 6, 7)] + [("match16", 5), ("bo3", 5)]
)
def bench_solve_endgame(benchmark, rules, tricks):
    """The value and one best lead."""
    tables = endgames(rules, tricks)
    benchmark.group = f"solve_endgame, last {tricks} tricks, {rules} (endgames)"
    benchmark.extra_info.update(engine="core", items=len(tables))
    benchmark(solve_all, tables, False)


@pytest.mark.parametrize("tricks", [3, 5])
def bench_solve_endgame_every_lead(benchmark, tricks):
    """Every legal lead valued."""
    tables = endgames("v3", tricks)
    benchmark.group = f"solve_endgame, every lead valued, last {tricks} tricks, v3 (endgames)"
    benchmark.extra_info.update(engine="core", items=len(tables))
    benchmark(solve_all, tables, True)
