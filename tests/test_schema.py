"""One schema for every output (shengji.core.schema): docs/manual/data.md shows exactly its
tables, and every frame and file shengji writes has its columns, in its order, with its
pandas dtypes and Arrow types: the trump suit a category of D C H S NT, no -1 for nobody."""

import re
import sys
from pathlib import Path

import pytest

import shengji as sj
from shengji.core import schema
from shengji.studies import study as st

sys.path.insert(0, str(Path(__file__).parent))
from bots import GreedyPlayer, PassiveBot

pd = pytest.importorskip("pandas")  # the study extra
pq = pytest.importorskip("pyarrow.parquet")

DATA = Path(__file__).resolve().parent.parent / "docs" / "manual" / "data.md"


def doc_tables() -> dict[str, str]:
    """Each section of data.md that holds a column table: its title and the table."""
    text = DATA.read_text(encoding="utf-8")
    return {
        title: table.strip()
        for title, table in re.findall(
            r"^## (.+?)\n.*?\n(\| column \|.*?)(?:\n\n|\Z)", text, re.S | re.M
        )
    }


def test_the_data_page_shows_the_schema():
    # a changed schema: paste schema.markdown(columns) of schema.documented() into the page
    assert doc_tables() == {
        title: schema.markdown(columns) for title, columns in schema.documented().items()
    }


def check(frame: pd.DataFrame, columns: tuple[schema.Column, ...]) -> None:
    """The frame has the schema's columns (those marked absent may be left out), in its
    order, of its pandas dtypes; a trump suit is a category of all five letters; a column
    never null holds no null, and no column holds the engine's -1 for "none"."""
    names = list(frame.columns)
    assert names == [c.name for c in columns if c.name in names]
    assert {c.name for c in columns if not c.absent} <= set(names)
    for c in columns:
        if c.name not in names:
            continue
        values = frame[c.name]
        assert str(values.dtype) == c.pandas_dtype, c.name
        if c.quantity.dtype == schema.SUIT:
            assert (
                list(values.cat.categories)
                == list(sj.cards.TRUMP_SUITS)
                == ["D", "C", "H", "S", "NT"]
            )
            assert not values.cat.ordered and values.notna().all()
        if not c.null:
            assert values.notna().all(), c.name
        if c.quantity.none:
            assert (values.dropna() >= 0).all(), c.name


def check_file(path: Path, columns: tuple[schema.Column, ...]) -> pd.DataFrame:
    """A deals.parquet: the schema's Arrow types, and read by pandas its frame (check)."""
    by_name = {c.name: c for c in columns}
    for field in pq.read_schema(path):
        assert str(field.type) == by_name[field.name].arrow_type, field.name
    frame = pd.read_parquet(path)
    check(frame, columns)
    return frame


@pytest.mark.parametrize(
    "bots",
    ["greedy", "random", sj.Greedy(call="never"), [GreedyPlayer()] * 4, [PassiveBot()] * 4],
    ids=["greedy", "random", "never", "python-greedy", "python-passive"],
)
def test_simulate_rounds_frames(bots):
    frame = sj.simulate_rounds(12, "v3", bots=bots, seed=5)
    check(frame, schema.ROUND_COLUMNS)
    check(sj.simulate_rounds(0, "v3", bots=bots), schema.ROUND_COLUMNS)
    if not isinstance(bots, str) and not isinstance(bots, list):
        # nobody declares: the bottom is turned, and both declarer columns are null
        assert frame["declarer"].isna().all() and frame["declarer_trumps"].isna().all()


def test_a_duels_frame_and_file(tmp_path):
    columns = schema.duel_columns()
    spades = lambda c: c[:, 0, 39:52].sum(axis=1) >= 7  # noqa: E731
    in_memory = sj.duel("greedy", "random", deals=30, seed=2, workers=1, accept=spades).frame
    check(in_memory, columns)
    assert "attempts" in in_memory
    never = ("greedy:call=never", "greedy:call=never,bury=voids")  # nobody declares
    written = sj.duel(*never, deals=30, seed=2, out=tmp_path / "d")
    check(written.frame, columns)
    assert written.frame["declarer__seating1"].isna().all()
    frame = check_file(tmp_path / "d" / "deals.parquet", columns)
    pd.testing.assert_frame_equal(frame, written.frame)
    again = sj.duel(*never, deals=30, seed=2, workers=1).frame
    pd.testing.assert_frame_equal(again, frame)
    assert "attempts" not in frame


def test_a_duel_of_matches():
    check(sj.duel("greedy", "random", matches=2, seed=3, workers=1).frame, schema.match_columns())


@pytest.mark.slow
def test_the_studies_deals_parquet(tmp_path):
    strategies = ("eager", "never")
    st.run_study(
        "trump-calling",
        deals=24,
        seed=1,
        workers=1,
        out=tmp_path / "c",
        strategies=strategies,
        play_every=4,
    )
    calling = check_file(tmp_path / "c" / "deals.parquet", schema.calling_columns(strategies))
    assert "duel_score__eager" not in calling and "duel_score__never" in calling
    assert calling["dealer_holds__never"].isna().tolist() == [i % 4 != 0 for i in range(24)]
    assert calling["declarer__never"].isna().all()
    strategies = ("low", "points")
    st.run_study("burying", deals=12, seed=1, workers=1, out=tmp_path / "b", strategies=strategies)
    burying = check_file(tmp_path / "b" / "deals.parquet", schema.burying_columns(strategies))
    assert "duel_score__points" in burying


def test_a_column_outside_the_schema_is_refused():
    with pytest.raises(sj.EngineError, match="no schema"):
        schema.frame({"dealer_1": [0]}, schema.ROUND_COLUMNS)


def test_a_folder_of_an_older_schema_is_refused(tmp_path):
    """The manifest's version changed with the columns: an older folder is never mixed."""
    import json

    st.run_study("burying", deals=10, workers=1, out=tmp_path, strategies=["low"])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["version"] == 7
    (tmp_path / "manifest.json").write_text(json.dumps({**manifest, "version": 6}))
    with pytest.raises(sj.StudyError, match="holds another study"):
        st.run_study("burying", deals=10, workers=1, out=tmp_path, strategies=["low"])
