"""Rounds played: the driver that runs the engine with the bots answering (`_driver`: Table,
simulate, play_out), play_round / play_match / simulate_rounds, and the round records with
their replay. Imports the layers below (core, round, bots, reference)."""
