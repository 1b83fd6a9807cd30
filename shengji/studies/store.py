"""A study's folder on disk: its manifest and digest, the chunks' files (sums as JSON, rows as
Parquet, each stamped with the study's digest and its deals), the lock, and the final rows.
Every file is written whole or not at all."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from shengji._optional import needs
from shengji.core import jsontext
from shengji.core.schema import Column, arrow_table
from shengji.errors import StudyError
from shengji.round.rules import Rules

if TYPE_CHECKING:
    from shengji.studies.definition import Study


@dataclass(frozen=True)
class Found:
    """What a run found in its folder before running a chunk: `read` of its `total` units
    (deals or matches) finished there, read from the folder rather than computed again."""

    folder: Path
    read: int
    total: int
    unit: str = "deals"

    def __str__(self) -> str:
        """One line: what is read from the folder, what is computed."""
        if not self.read:
            return f"{self.folder}: {self.total:,} {self.unit} to compute"
        if self.read == self.total:
            return (
                f"{self.folder} holds this run already: its {self.total:,} {self.unit} are "
                "read from it, none computed"
            )
        return (
            f"{self.folder} holds {self.read:,} of this run's {self.total:,} {self.unit}: "
            f"those are read from it, {self.total - self.read:,} computed"
        )


def manifest_of(
    study: Study,
    rules: Rules,
    deals: int,
    seed: int,
    strategies: tuple[str, ...],
    options: dict[str, Any],
) -> dict[str, Any]:
    """Everything that decides a study's numbers. Its digest names every chunk of the study."""
    return {
        "study": study.name,
        "rules": rules.text(),
        "settings": rules.to_dict(),
        "deals": deals,
        "seed": seed,
        "chunk": study.chunk_size,
        "strategies": list(strategies),
        "options": options,
        "version": 7,
    }


def digest_of(manifest: dict[str, Any]) -> str:
    """The study's name: 16 hex digits of the manifest's SHA-256."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]


def chunk_identity(digest: str, start: int, count: int) -> dict[bytes, bytes]:
    """What a chunk file says it is: the study (manifest digest) and its deals."""
    return {
        b"shengji.study": digest.encode(),
        b"shengji.start": str(start).encode(),
        b"shengji.count": str(count).encode(),
    }


def read_chunk(chunks: Path, digest: str, start: int, count: int) -> dict[str, Any]:
    """A finished chunk's sums, after checking that both its files are this study's chunk of
    deals start .. start + count - 1 and that the rows are the bytes the sums were saved with
    (the .json holds the .parquet's digest): one line naming the damaged file otherwise. A
    damaged chunk is refused, not computed again: its files are the user's, and the line says
    how to have it computed again."""
    with needs("shengji.studies", "study"):
        import pyarrow.parquet as pq
    path = chunk_path(chunks, start, "json")
    try:
        saved = jsontext.loads(path.read_bytes(), str(path), error=StudyError)
        ok = (
            isinstance(saved, dict)
            and saved.get("study") == digest
            and type(saved.get("start")) is int
            and saved["start"] == start
            and type(saved.get("count")) is int
            and saved["count"] == count
            and valid_sums(saved.get("sums"))
            and valid_hists(saved.get("hists"))
            and isinstance(saved.get("rows_sha256"), str)
            and saved.get("sha256") == json_sha256(saved)
        )
    except (OSError, ValueError):
        ok = False
    if not ok:
        raise StudyError(
            f"{path} is not this study's chunk of deals {start:,}.. (another "
            "study's, an older shengji's, or damaged): move it away to compute it again"
        )
    rows = chunk_path(chunks, start, "parquet")
    try:
        meta = pq.read_metadata(rows)
        ok = (
            meta.num_rows == count
            and (meta.metadata or {}).items() >= chunk_identity(digest, start, count).items()
        )
    except (OSError, ValueError):
        ok = False
    if not ok:
        raise StudyError(
            f"{rows} is not this study's chunk of deals {start:,}.. (another "
            "study's or chunk's, or damaged): move it away to compute it again"
        )
    try:
        same = file_sha256(rows) == saved["rows_sha256"]
    except OSError:
        same = False
    if not same:
        raise StudyError(
            f"{rows} is damaged: its bytes are not those its chunk's sums ({path.name}) were "
            "saved with; move both files away to compute the chunk again"
        )
    return saved


def valid_sums(sums: Any) -> bool:
    """Whether a chunk file's sums have their shape: {"metric|group": {n, total, squares}}."""
    return isinstance(sums, dict) and all(
        isinstance(k, str)
        and k.count("|") == 1
        and isinstance(v, dict)
        and set(v) == {"n", "total", "squares"}
        and type(v["n"]) is int
        and v["n"] >= 0
        and all(type(v[f]) in (int, float) for f in ("total", "squares"))
        for k, v in sums.items()
    )


def valid_hists(hists: Any) -> bool:
    """Whether a chunk file's histograms have their shape: {"metric|group": [counts]}."""
    return isinstance(hists, dict) and all(
        isinstance(k, str)
        and k.count("|") == 1
        and isinstance(v, list)
        and all(type(c) is int and c >= 0 for c in v)
        for k, v in hists.items()
    )


def lock_folder(folder: Path) -> Any:
    """Hold the folder's lock for the run: a second run into the same folder stops with one
    line instead of racing on the same files. (POSIX; elsewhere no lock is taken.)"""
    handle = open(folder / "lock", "a+")
    try:
        import fcntl
    except ImportError:
        return handle
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise StudyError(
            f"another run is writing to {folder}: wait for it to end, or choose another --out"
        ) from None
    return handle


def chunk_path(chunks: Path, start: int, ext: str) -> Path:
    """The file of the chunk starting at deal `start`, by extension (json or parquet)."""
    return chunks / f"{start:012d}.{ext}"


def sealed(result: dict[str, Any]) -> dict[str, Any]:
    """A chunk's .json content with its own digest (json_sha256): a changed digit of its
    sums is caught by read_chunk as a broken byte of its rows is."""
    return {**result, "sha256": json_sha256(result)}


def json_sha256(result: dict[str, Any]) -> str:
    """The SHA-256 (hex) of a chunk's .json content but its own "sha256" entry."""
    body = {k: v for k, v in result.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def write_atomically(path: Path, data: Any) -> None:
    """Whole or not at all: a crash or Ctrl-C never leaves a half-written file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        tmp.write_text(json.dumps(data))
    except BaseException:  # a signal mid-write leaves no half file behind
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def rows_table(
    study: Study, start: int, count: int, rows: dict[str, Any], schema: Sequence[Column]
) -> Any:
    """A chunk's rows as a pyarrow table of the schema's types: the deal's (or match's)
    index, then the chunk's columns (it gives each deal's round seed), nulls where masked."""
    return arrow_table({study.row: np.arange(start, start + count, dtype=np.int64), **rows}, schema)


def write_rows(path: Path, digest: str, start: int, count: int, table: Any) -> str:
    """A chunk's rows (rows_table); the file's metadata names the study and the deals it
    holds (read_chunk checks them). The file's digest (file_sha256), for the chunk's .json."""
    with needs("shengji.studies", "study"):
        import pyarrow.parquet as pq
    # the pandas metadata stays: pd.read_parquet gives the schema's pandas dtypes
    table = table.replace_schema_metadata(
        {**(table.schema.metadata or {}), **chunk_identity(digest, start, count)}
    )
    tmp = path.with_suffix(".tmp")
    try:
        pq.write_table(table, tmp)
    except BaseException:  # a signal mid-write leaves no half file behind
        tmp.unlink(missing_ok=True)
        raise
    written = file_sha256(tmp)
    os.replace(tmp, path)
    return written


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes (hex), read in blocks (memory stays flat)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def join_rows(path: Path, parts: list[Path]) -> None:
    """deals.parquet from the chunks' rows, one row group per chunk (memory stays flat)."""
    with needs("shengji.studies", "study"):
        import pyarrow.parquet as pq
    tmp = path.with_suffix(".tmp")
    writer = None
    try:
        for part in parts:
            table = pq.read_table(part)
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            writer.write_table(table)
    except BaseException:  # a signal or an error mid-merge leaves no half file behind
        if writer is not None:
            writer.close()
        tmp.unlink(missing_ok=True)
        raise
    if writer is not None:
        writer.close()
    os.replace(tmp, path)
