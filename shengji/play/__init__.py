"""Rounds played: the driver that runs the engine with the bots answering (`_driver`), rounds
in batches (`_batch`: simulate), played out from given hands (`_playout`: play_out), one round
for Python (`_table`: Table), play_round / play_match / simulate_rounds, and the round records
with their replay. Imports the layers below (core, round, bots, reference)."""
