"""Studies and comparisons built on many rounds: the trump-calling and burying studies, duels
in duplicate, one-hand analyses and their statistics."""
