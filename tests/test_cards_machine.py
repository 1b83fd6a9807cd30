"""Cards driven through long random sequences of operations beside a plain Counter model."""

from collections import Counter

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import shengji as sj

KINDS = st.integers(0, 53).map(sj.kind_name)


class CardsAgainstCounter(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.cards = sj.Cards()
        self.model: Counter = Counter()

    @rule(card=KINDS)
    def add(self, card):
        if self.model[card] == 2:
            try:
                self.cards + card
            except sj.CardError:
                return
            raise AssertionError("a third copy was accepted")
        self.cards = self.cards + card
        self.model[card] += 1

    @rule(card=KINDS)
    def remove(self, card):
        if self.model[card] == 0:
            try:
                self.cards - card
            except sj.CardError:
                return
            raise AssertionError("a missing card was taken")
        self.cards = self.cards - card
        self.model[card] -= 1

    @precondition(lambda self: sum(self.model.values()) > 0)
    @rule(data=st.data())
    def take_a_subset(self, data):
        sub = Counter({c: data.draw(st.integers(0, n)) for c, n in self.model.items()})
        part = sj.Cards(list(sub.elements()))
        assert part in self.cards
        self.cards = self.cards - part
        self.model -= sub

    @invariant()
    def agrees(self):
        assert len(self.cards) == sum(self.model.values())
        assert Counter(self.cards) == +self.model
        assert sj.Cards(str(self.cards)) == self.cards
        assert sj.Cards.from_counts(self.cards.counts()) == self.cards
        assert all((card in self.cards) == (self.model[card] > 0) for card in ("AS", "SJ", "10H"))


TestCardsAgainstCounter = CardsAgainstCounter.TestCase
TestCardsAgainstCounter.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
