"""Plain Python bots for the tests: they use only what their View shows."""

import shengji as sj


class PassiveBot:
    """Never declares unless forced, never revolts, buries its first 8 cards, leads its first
    card and follows with the first legal follow."""

    def __init__(self):
        self.views = []

    def declare(self, view):
        self.views.append(view)
        return None if view.may_pass else view.options[0]

    def revolt(self, view):
        self.views.append(view)
        return False

    def bury(self, view):
        self.views.append(view)
        return sj.Cards(list(view.hand)[:8])

    def play(self, view):
        self.views.append(view)
        if view.lead is None:
            return sj.Cards(list(view.hand)[:1])
        return sj.legal_follows(view.hand, view.lead, view.trump)[0]


class EagerBot(PassiveBot):
    """Makes the first show offered, and calls every revolution it may."""

    def declare(self, view):
        self.views.append(view)
        return view.options[0]

    def revolt(self, view):
        self.views.append(view)
        return True


class ScriptedBot(PassiveBot):
    """Answers the first `action` it is asked with a fixed answer, then plays passively."""

    def __init__(self, action, answer):
        super().__init__()
        self.action, self.answer = action, answer

    def scripted(self, action, view, otherwise):
        if action == self.action and self.answer is not None:
            answer, self.answer = self.answer, None
            return answer
        return otherwise(view)

    def declare(self, view):
        return self.scripted("declare", view, super().declare)

    def revolt(self, view):
        return self.scripted("revolt", view, super().revolt)

    def bury(self, view):
        return self.scripted("bury", view, super().bury)

    def play(self, view):
        return self.scripted("play", view, super().play)


class LateBot(PassiveBot):
    """Passes while the cards are drawn; declares when asked after the deal."""

    def declare(self, view):
        self.views.append(view)
        return view.options[0] if view.drawn == 100 or not view.may_pass else None


class RandomBot:
    """Declares, overturns, revolts, buries and plays at random (throws included), from its
    own generator: a Python bot that reaches the rare declaration paths."""

    def __init__(self, seed):
        import random

        self.rng = random.Random(seed)

    def declare(self, view):
        choices = list(view.options) + ([None] if view.may_pass else [])
        return self.rng.choice(choices)

    def revolt(self, view):
        return self.rng.random() < 0.5

    def bury(self, view):
        return sj.Cards(self.rng.sample(list(view.hand), 8))

    def play(self, view):
        if view.lead is None:
            return self.rng.choice(sj.legal_leads(view.hand, view.trump, cap=64).plays)
        return self.rng.choice(sj.legal_follows(view.hand, view.lead, view.trump))


class GreedyPlayer:
    """A search bot that declares and buries as the native greedy bot does (its spec) and
    plays greedy's play, asked of the table from Python: rounds the same as greedy's."""

    def spec(self):
        return sj.Pimc().spec()

    def choose(self, view, table):
        return table.greedy_play()
