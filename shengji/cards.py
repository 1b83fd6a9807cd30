"""`shengji.cards`, the card toolkit (sizes, suits, categories, kinds and their masks): the
names of `shengji.core.cards`, where it lives and is documented."""

from shengji.core.cards import *  # noqa: F403
from shengji.core.cards import __all__  # noqa: F401
