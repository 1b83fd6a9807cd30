"""What a seat sees: worlds sampled from a view (one call, k worlds, no GIL) and the legal
leads of a hand."""

import pytest
from bots import PassiveBot  # tests/bots.py (bench/conftest puts tests/ on the path)

import shengji as sj
from shengji.play import replay
from shengji.round.views import draw_worlds

K = 20_000


def play_views():
    """Seat 0's views at its plays, at a greedy table (it plays its first legal card)."""
    bot = PassiveBot()
    sj.play_round("v3", seed=4, bots=[bot, "greedy", "greedy", "greedy"])
    return [v for v in bot.views if v.action == "play"]


@pytest.mark.parametrize("trick", [0, 12])
def bench_sample_worlds(benchmark, trick):
    view = play_views()[trick]
    benchmark.group = f"sample_worlds, trick {trick + 1} ({len(view.unseen())} unseen cards)"
    benchmark.extra_info.update(engine="core", items=K)
    benchmark(view.sample_worlds, K, 1)


def bench_sample_worlds_every_play(benchmark):
    """A search's draw at every play of an expert v3 round (seat 0's knowledge at each of its
    plays): a sampler set up, then 1,000 worlds that replay the plays made."""
    rec = sj.play_round("v3", 0, "expert", 0, (2, 2), False)
    table, shows, buries = replay.replay_table(rec)
    knowledge = []
    while (pending := table.advance()) is not None:
        if pending[0] == "play":
            knowledge.append(table.knowledge(pending[1]))
        assert replay.replay_answer(table, rec, shows, buries, *pending) == 0
    benchmark.group = f"sample_worlds, 1,000 at each of the {len(knowledge)} plays of a round"
    benchmark.extra_info.update(engine="core", items=1000 * len(knowledge))
    benchmark(lambda: [draw_worlds(k, 1000, 1) for k in knowledge])


def bench_legal_leads(benchmark):
    views = play_views()[:10]
    hands = [v.hand for v in views]
    trump = views[0].trump
    masks = sj.to_masks(hands)
    benchmark.group = "legal_leads, one 16-25 card hand (batch, cap 10,000)"
    benchmark.extra_info.update(engine="core", items=len(hands))
    benchmark(sj.batch_legal_leads, masks, trump)
