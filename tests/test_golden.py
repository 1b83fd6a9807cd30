"""The recorded positions of tests/golden/positions.jsonl (made by the reference with
tests/golden/make_golden.py) hold on the core and on the reference."""

import pytest
from golden.positions import digest, load

ROWS = load()


def test_the_file_has_thousands_of_varied_positions():
    assert len(ROWS) >= 3000
    assert sum(not r["throw_ok"] for r in ROWS) > 300
    assert sum(len(r["lead"]) >= 4 for r in ROWS) > 50
    assert sum(r["winner"] != 0 for r in ROWS) > 1000


@pytest.mark.parametrize("chunk", range(6))
@pytest.mark.slow
def test_positions(engine, chunk):
    for row in ROWS[chunk::6]:
        trump = row["trump"]
        assert engine.check_throw(row["attempted"], row["others"], trump) == (
            row["throw_ok"],
            row["lead"],
        )
        for hand, play, expected in zip(row["others"], row["plays"][1:], row["follows"]):
            follows = engine.legal_follows(hand, row["lead"], trump)
            assert len(follows) == expected["count"]
            assert digest(follows) == expected["digest"]
            assert engine.is_legal_follow(hand, row["lead"], play, trump)
        assert engine.trick_winner(row["plays"], trump) == row["winner"]
