"""A round viewer: one self-contained HTML page (inline CSS and script, no network, opens from a
file) of a round record or a whole match: the hands as cards, the declarations, the buries and
the bottom, the tricks one by one with a step control, the defenders' points, the settlement,
and each play's cost and best alternative where the record is annotated (shengji.play.page
ANNOTATIONS).

The record is replayed first (shengji.play.replay; a match's rounds by replay_match), so a
damaged record or one of another rules version is refused with the replay's ShengjiError
before anything is written; shengji.play.page then makes the page of the replayed record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shengji.core.validate import short
from shengji.errors import ShengjiError
from shengji.play.page import match_page, round_page
from shengji.play.records import MatchRecord, RoundRecord, match_advance, read_record, write_text
from shengji.play.replay import replay, replay_match


def render_html(record: Any) -> str:
    """The viewer's page of a round or a match: a RoundRecord, a MatchRecord or the JSON data
    of either (to_dict(), a saved file's), the data's "annotations" shown where present.
    ShengjiError naming the problem for anything that is not a record, a record that does
    not replay (damaged, or of another rules version) or annotations that do not fit it."""
    if isinstance(record, (RoundRecord, MatchRecord)):
        record = record.to_dict()
    if not isinstance(record, dict):
        raise ShengjiError(
            "not a round or match record: the viewer takes a RoundRecord, a MatchRecord or "
            f"the JSON data of one, got {type(record).__name__}"
        )
    if "rounds" not in record and "tricks" not in record:
        raise ShengjiError(
            "not a round or match record: it has neither tricks (a round record's) nor rounds "
            f"(a match record's); its keys: {short(sorted(map(str, record)))}"
        )
    if "rounds" in record:
        return match_page(
            replay_match(record),
            [r.get("annotations") if isinstance(r, dict) else None for r in record["rounds"]],
        )
    rec = replay(record)
    return round_page(rec, match_advance(rec.rules, rec.levels, rec), record.get("annotations"))


def view(record: Any, path: str | Path) -> Path:
    """Write render_html(record) to `path` (an .html file) and return the path; `record` may
    also be the path of a saved record's JSON file. Nothing is written when the record is
    refused (ShengjiError, as render_html raises it), and a file that cannot be written is an
    ArgumentError naming it (write_text)."""
    if isinstance(record, (str, Path)):
        record = read_record(record, "a round or match record")
    return write_text(path, render_html(record))
