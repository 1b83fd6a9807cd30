"""Running a study: its chunks computed on a backend, each saved as it comes back, into a folder
that a later run continues (run) or in memory (run_in_memory). Deal i depends on (seed, i)
alone, so the numbers are the same for any worker count and either backend."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shengji._optional import needs
from shengji.core import jsontext, validate
from shengji.errors import StudyError
from shengji.round.rules import Rules
from shengji.studies.backends import execute, stopping_on_signals
from shengji.studies.definition import Study
from shengji.studies.report import plot, summarize
from shengji.studies.stats import Sums
from shengji.studies.store import (
    Found,
    chunk_path,
    digest_of,
    join_rows,
    lock_folder,
    manifest_of,
    read_chunk,
    rows_table,
    sealed,
    write_atomically,
    write_rows,
)


@dataclass
class Tally:
    """A run's `progress` fed as its chunks report (advance) and end: each deal counted once,
    a report that comes after its chunk ended being already counted."""

    progress: Callable[[int], object] | None
    reported: dict[int, int] = field(default_factory=dict)  # deals of the running chunks
    ended: set[int] = field(default_factory=set)

    def advance(self, start: int, count: int) -> None:
        """`count` more deals of the running chunk at `start` are done."""
        if start not in self.ended:
            self.reported[start] = self.reported.get(start, 0) + count
            if self.progress:
                self.progress(count)

    def end(self, start: int, count: int) -> None:
        """The chunk at `start`, of `count` deals, is done."""
        self.ended.add(start)
        if self.progress:
            self.progress(count - self.reported.pop(start, 0))


def checked_run(
    study: Study,
    rules: Rules | str,
    deals: int,
    seed: int,
    workers: int | None,
    backend: str,
    ray_address: str | None,
) -> tuple[Rules, int, int, int]:
    """A run's rules, count (of the study's unit), seed and workers, checked."""
    if backend not in ("local", "ray"):
        raise StudyError(f"unknown backend {backend!r}: choose local or ray")
    if ray_address is not None and backend != "ray":
        raise StudyError("a Ray address is used only with the ray backend (--backend ray)")
    if backend == "ray":
        with needs("the ray backend", "ray"):  # missing, before a folder is made
            import ray  # noqa: F401
    try:
        return (
            Rules.of(rules),
            validate.count(deals, study.unit),
            validate.seed(seed),
            validate.count(workers or os.cpu_count() or 1, "workers", 1, 1024),
        )
    except ValueError as e:
        raise StudyError(str(e)) from None


def run(
    study: Study,
    rules: Rules | str,
    deals: int,
    seed: int,
    strategies: tuple[str, ...],
    options: dict[str, Any],
    workers: int | None = None,
    out: str | os.PathLike = "study-out",
    resume: bool = False,
    progress: Callable[[int], object] | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    notice: Callable[[Found], object] | None = None,
) -> dict[str, Any]:
    """A study whose strategies and options are checked (run_study, shengji.duel), into the
    folder `out`: the summary. `notice` is told what the folder held before any chunk runs
    (Found: the deals read from it rather than computed)."""
    rules, deals, seed, workers = checked_run(
        study, rules, deals, seed, workers, backend, ray_address
    )
    if not str(out).strip():
        raise StudyError("the output folder (--out) must be named: it is empty")
    folder = Path(out)
    chunks = folder / "chunks"
    if resume and not (folder / "manifest.json").exists():
        raise StudyError(f"nothing to resume in {folder}: it holds no study")
    manifest = manifest_of(study, rules, deals, seed, strategies, options)
    digest = digest_of(manifest)
    with stopping_on_signals():  # from the folder's first file to its last
        try:
            chunks.mkdir(parents=True, exist_ok=True)
            lock = lock_folder(folder)
        except OSError as e:
            raise StudyError(f"cannot write to {folder}: {e.strerror or e}") from None
        try:
            return run_in_folder(
                study,
                rules,
                deals,
                seed,
                workers,
                folder,
                manifest,
                digest,
                strategies,
                options,
                progress,
                backend,
                ray_address,
                notice,
            )
        finally:
            lock.close()


def run_in_memory(
    study: Study,
    rules: Rules | str,
    deals: int,
    seed: int,
    strategies: tuple[Any, ...],
    labels: tuple[str, ...],
    options: dict[str, Any],
    workers: int | None = None,
    progress: Callable[[int], object] | None = None,
    backend: str = "local",
    ray_address: str | None = None,
) -> tuple[dict[str, Any], Any]:
    """A study computed as run() computes it, with no folder: (summary, the rows as a pandas
    frame, as deals.parquet holds them). `strategies` go to the chunks (a duel's bot objects),
    `labels` name them in the summary."""
    with needs("shengji.studies", "study"):
        import pandas  # noqa: F401  (to_pandas below: missing, the run stops before it starts)
        import pyarrow as pa
    rules, deals, seed, workers = checked_run(
        study, rules, deals, seed, workers, backend, ray_address
    )
    manifest = manifest_of(study, rules, deals, seed, labels, options)
    digest = digest_of(manifest)
    schema = study.columns(labels, options)
    results: dict[int, dict] = {}
    tables: dict[int, Any] = {}
    tally = Tally(progress)

    def save(start: int, computed: tuple[dict, dict, dict]) -> None:
        count = min(study.chunk_size, deals - start)
        sums, hists, rows = computed
        tables[start] = rows_table(study, start, count, rows, schema)
        results[start] = chunk_result(digest, start, count, sums, hists)
        tally.end(start, count)

    starts = list(range(0, deals, study.chunk_size))
    with stopping_on_signals():
        execute(
            study.chunk,
            [
                (rules, seed, start, min(study.chunk_size, deals - start), strategies)
                for start in starts
            ],
            options,
            save,
            workers,
            backend,
            ray_address,
            tally.advance,
        )
    frame = pa.concat_tables([tables[s] for s in starts]).to_pandas()
    return summarize(manifest, [results[s] for s in starts]), frame


def run_in_folder(
    study: Study,
    rules: Rules,
    deals: int,
    seed: int,
    workers: int,
    folder: Path,
    manifest: dict[str, Any],
    digest: str,
    chosen: tuple[str, ...],
    options: dict[str, Any],
    progress: Callable[[int], object] | None,
    backend: str,
    ray_address: str | None,
    notice: Callable[[Found], object] | None = None,
) -> dict[str, Any]:
    """run()'s work, the folder locked: the manifest, the chunks, the summary."""
    chunks = folder / "chunks"
    manifest_file = folder / "manifest.json"
    if manifest_file.exists():
        try:
            text = manifest_file.read_bytes()
        except OSError:
            raise StudyError(f"{manifest_file} is not a study manifest") from None
        found = jsontext.loads(text, str(manifest_file), "a study manifest", error=StudyError)
        if found != manifest:
            raise StudyError(mismatch(folder, found, manifest))
    else:
        write_atomically(manifest_file, manifest)
    size = study.chunk_size
    starts = list(range(0, deals, size))
    schema = study.columns(chosen, options)
    done: dict[int, dict] = {}
    for start in starts:
        path = chunk_path(chunks, start, "json")
        if path.exists() and chunk_path(chunks, start, "parquet").exists():
            done[start] = read_chunk(chunks, digest, start, min(size, deals - start))
    todo = [s for s in starts if s not in done]
    read = sum(d["count"] for d in done.values())
    if notice:
        notice(Found(folder, read, deals, study.unit))
    if progress:
        progress(read)

    tally = Tally(progress)

    def save(start: int, computed: tuple[dict, dict, dict]) -> None:
        """A chunk's rows, then its sums: the sums file marks the chunk as finished."""
        count = min(size, deals - start)
        sums, hists, rows = computed
        rows_sha256 = write_rows(
            chunk_path(chunks, start, "parquet"),
            digest,
            start,
            count,
            rows_table(study, start, count, rows, schema),
        )
        result = sealed(
            {**chunk_result(digest, start, count, sums, hists), "rows_sha256": rows_sha256}
        )
        write_atomically(chunk_path(chunks, start, "json"), result)
        done[start] = result
        tally.end(start, count)

    execute(
        study.chunk,
        [(rules, seed, start, min(size, deals - start), chosen) for start in todo],
        options,
        save,
        workers,
        backend,
        ray_address,
        tally.advance,
    )
    summary = summarize(manifest, [done[s] for s in starts])
    join_rows(folder / "deals.parquet", [chunk_path(chunks, s, "parquet") for s in starts])
    plot(summary, study, folder)
    write_atomically(folder / "summary.json", summary)
    return summary


def mismatch(folder: Path, found: Any, manifest: dict[str, Any]) -> str:
    """Why the study in `folder` (its manifest `found`) is not the one asked for, in one line:
    a bot's checkpoint that changed or moved since it began, else what the study is."""
    if not isinstance(found, dict):
        return f"{folder} holds an unreadable manifest: choose another --out"
    options = found.get("options")
    strategies = found.get("strategies")
    old = [
        *(strategies if isinstance(strategies, list) else []),
        options.get("against") if isinstance(options, dict) else None,
    ]
    new = [*manifest["strategies"], manifest["options"].get("against")]
    pairs = [
        (a, b) for a, b in zip(old, new) if a != b and isinstance(a, str) and isinstance(b, str)
    ]
    if pairs and all(a.startswith("learned") and b.startswith("learned") for a, b in pairs):
        a, b = pairs[0]
        return (
            f"{folder} holds a study of the bot {a}, asked now for {b}: its checkpoint "
            "changed or moved since the study began, and one study never mixes two "
            "networks; restore the file, or choose another --out"
        )
    # what differs, where the study is the same one
    held = options if isinstance(options, dict) else {}
    asked = manifest["options"]
    differ = [k for k in manifest if k != "options" and found.get(k) != manifest[k]]
    differ += [k for k in {**held, **asked} if held.get(k) != asked.get(k)]
    differ = ["bots or strategies" if k == "strategies" else k for k in differ]
    same = found.get("study") == manifest["study"]
    differing = f"; what differs: {', '.join(differ)}" if same and differ else ""
    return (
        f"{folder} holds another study ({found.get('study')}, rules {found.get('rules')}, "
        f"{found.get('deals')} deals, seed {found.get('seed')}, bots or strategies "
        f"{', '.join(map(str, old[:-1]))}{differing}): it cannot be continued "
        "with these options; choose another --out"
    )


def chunk_result(
    digest: str, start: int, count: int, sums: dict[str, Sums], hists: dict[str, list[int]]
) -> dict[str, Any]:
    """A chunk's sums and histograms as its .json file holds them (summarize reads them)."""
    return {
        "study": digest,
        "start": start,
        "count": count,
        "sums": {k: vars(v) for k, v in sums.items()},
        "hists": hists,
    }
