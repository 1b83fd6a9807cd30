"""What a seat sees: worlds sampled from a view (one call, k worlds, no GIL) and the legal
leads of a hand."""
import pytest

import shengji as sj

K = 20_000


class Recorder:
    """Seat 0 of a greedy table: plays its first legal card and keeps every view."""

    def __init__(self):
        self.views = []

    def declare(self, view):
        return None if view.may_pass else view.options[0]

    def revolt(self, view):
        return False

    def bury(self, view):
        return sj.Cards(list(view.hand)[:8])

    def play(self, view):
        self.views.append(view)
        if view.lead is None:
            return sj.Cards(list(view.hand)[:1])
        return sj.legal_follows(view.hand, view.lead, view.trump)[0]


def play_views():
    bot = Recorder()
    sj.play_round("v3", seed=4, bots=[bot, "greedy", "greedy", "greedy"])
    return bot.views


@pytest.mark.parametrize("trick", [0, 12])
def bench_sample_worlds(benchmark, trick):
    view = play_views()[trick]
    benchmark.group = f"sample_worlds, trick {trick + 1} ({len(view.unseen())} unseen cards)"
    benchmark.extra_info.update(engine="core", items=K)
    benchmark(view.sample_worlds, K, 1)


def bench_legal_leads(benchmark):
    hands = [v.hand for v in play_views()[:10]]
    trump = play_views()[0].trump
    masks = sj.to_masks(hands)
    benchmark.group = "legal_leads, one 16-25 card hand (batch, cap 10,000)"
    benchmark.extra_info.update(engine="core", items=len(hands))
    benchmark(sj.batch_legal_leads, masks, trump)
