# Type stub of shengji/bots/_expert.pyx (the expert's rules by setting name), checked by
# stubtest in tests/test_typing.py.
RULES: dict[str, int]
X_SECOND_LOW: int
X_THIRD_HIGH: int
X_FEED_SURE: int
X_SAFE_POINTS: int
X_DRAW_TRUMPS: int
X_DEFEND_TRUMPS: int
X_AVOID_VOIDS: int
X_PARTNER_RUFF: int
X_LONE_POINTS: int
X_BURY: int
X_COUNT: int
X_KEEP_TOP: int
X_WEIGH: int
X_PAIR_LEADS: int
X_SHORT_LEADS: int
X_ODDS: int
X_TRACTORS: int
X_ONE_SURE: int
X_FORCE: int
X_SAFE_BOTTOM: int
X_VOID_TRUMP: int
X_FIGHT: int
X_GUARD_BOTTOM: int
