"""Training data from the search, for a network that learns to play as it does (issue 46):
rounds played by a Teacher (the sharper search by default) at all four seats, each play of a
seat with two or more candidates written down with what the search found there: the seat's
observation (Table.observe), its candidates (card masks), each candidate's mean result over
the worlds the search played it in and that mean's standard error (Search.values: levels,
plus points over GUARD_POINTS), the play chosen, the rollout policy's (the expert's) play,
and the round's result for the seat's team (its level change, Rules.settle). For variety,
a share of the deals (`other_share`) can have one team played by other bots (`others`, the
expert and greedy, say): the teacher's decisions at the other team's seats are still noted,
against opponents that play otherwise than it (other_team says which deals and bots).

A run writes a folder: `manifest.json` (what the data are: rules, seed, the teacher's
settings, the observation's layout) and `chunks/<first deal>-<deals>.npz`, one a chunk of
deals, each written whole as it comes back (a stopped run keeps what finished, and a later run with the
same settings continues it). Deal i is round_seed(seed, i) with seat i % 4 dealing, and the
teacher's worlds are drawn from (its seed, the round's seed, the moment): the same data for
any worker count. read_data checks each chunk against the manifest and returns the arrays a
trainer reads (examples/train_distill.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from shengji.bots.pimc import Pimc
from shengji.bots.spec import BotSpec
from shengji.bots.text import bot_from_text, bot_text
from shengji.core import jsontext, validate
from shengji.errors import BotError, StudyError
from shengji.play._table import Table
from shengji.play.rounds import play_round, round_seed
from shengji.round._observation import OBSERVATION_FIELDS, OBSERVATION_SIZE
from shengji.round.rules import Rules
from shengji.round.views import View
from shengji.studies.backends import execute, report_progress, stopping_on_signals
from shengji.studies.store import lock_folder, write_atomically

FORMAT = "shengji-distill"  # the data's format name ...
VERSION = 1  # ... and version
CHUNK_DEALS = 20  # deals a chunk by default: ten seconds or so of the search
OTHER_SHARE = 0.25  # the share of deals other bots play in, when named
# a decision's arrays (one row a decision) and a candidate's (one row a candidate)
DECISION_ARRAYS = ("obs", "offsets", "chosen", "policy", "seat", "deal", "result")
CANDIDATE_ARRAYS = ("moves", "value", "error", "worlds")


@dataclass(frozen=True)
class Teacher:
    """A search bot (SearchBot) that plays as its Pimc `search` does (the sharper search by
    default) and notes each searched play in `log`: (seat, observation, the candidates'
    masks, their values, errors and worlds, the chosen index, the rollout policy's index).
    The search must have a guard: the values are read from the guarded search's per-world
    results (Search.values)."""

    search: Pimc = field(default_factory=Pimc.sharp)
    log: list = field(default_factory=list, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.search, Pimc):
            raise BotError(f"Teacher.search must be a shengji.Pimc, got {self.search!r}")
        if self.search.guard <= 0:
            raise BotError(
                "Teacher.search must have a guard above 0: the candidates' values are read "
                "from the guarded search's results"
            )

    def spec(self) -> BotSpec:
        """The search's spec: its plays, bury and shows come to choose as the search's do."""
        return self.search.spec()

    def choose(self, view: View, table: Table) -> Any:
        """The search's answer; a play of two or more candidates noted in the log."""
        if view.action != "play":
            return self.search.choose(view, table)
        candidates, search = self.search.play_search(view, table)
        if search is None:  # a forced play: nothing to learn
            return candidates[0]
        best = search.best()
        value, error, worlds = search.values()
        obs = np.zeros(OBSERVATION_SIZE, np.int16)
        table.observe(view.seat, obs)
        self.log.append((view.seat, obs, search.masks, value, error, worlds, best, search.anchor))
        return candidates[best]

    def __str__(self) -> str:
        return f"teacher {self.search}"


def other_team(deal: int, share: float, others: int) -> tuple[int, int] | None:
    """Which team of deal `deal` is played by which of `others` other bots: (team, the bot's
    index), or None where the teacher plays all four seats. The k-th deal of the share is the
    one where floor(deal * share) steps up (a share of 0.25: every fourth deal); it takes
    bot k % others, at the team (k // others) % 2 (team = seat % 2): each bot plays each team
    equally often, no draw to depend on."""
    k = int(deal * share)
    if int((deal + 1) * share) == k:
        return None
    return (k // others) % 2, k % others


def distill_chunk(
    rules: Rules,
    seed: int,
    start: int,
    count: int,
    strategies: tuple[Any, ...],
    share: float = 0.0,
) -> tuple[dict, dict, dict]:
    """Deals start..start+count-1 played by the teacher (strategies[0]) at all four seats, or
    in a `share` of them at one team's, one of the others (strategies[1:]) at the other's:
    ({name: array} of DECISION_ARRAYS and CANDIDATE_ARRAYS, {}, {}), the candidates of
    decision j at rows offsets[j]:offsets[j + 1]."""
    teacher = replace(strategies[0])  # a log of its own
    others = strategies[1:]
    rows: dict[str, list[Any]] = {name: [] for name in (*DECISION_ARRAYS, *CANDIDATE_ARRAYS)}
    offsets = [0]
    for i in range(start, start + count):
        teacher.log.clear()
        mixed = other_team(i, share, len(others)) if others else None
        bots: Any = teacher
        if mixed is not None:
            team, other = mixed
            bots = [others[other] if seat % 2 == team else teacher for seat in range(4)]
        record = play_round(rules, seed=round_seed(seed, i), dealer=i % 4, bots=bots)
        results = record.settlement.seat_changes(record.dealer)
        for seat, obs, masks, value, error, worlds, chosen, policy in teacher.log:
            offsets.append(offsets[-1] + len(masks))
            for name, item in (
                ("obs", obs), ("chosen", chosen), ("policy", policy), ("seat", seat),
                ("deal", i), ("result", results[seat]), ("moves", masks), ("value", value),
                ("error", error), ("worlds", worlds),
            ):  # fmt: skip
                rows[name].append(item)
        report_progress(start, 1)
    arrays = {name: joined(rows[name], shape, dtype) for name, (shape, dtype) in LAYOUT.items()}
    arrays["offsets"] = np.array(offsets, np.int64)
    return arrays, {}, {}


# each array's row shape and type (offsets: the decisions' count + 1, int64)
LAYOUT: dict[str, tuple[tuple[int, ...], Any]] = {
    "obs": ((OBSERVATION_SIZE,), np.int16),
    "chosen": ((), np.int16),
    "policy": ((), np.int16),
    "seat": ((), np.int8),
    "deal": ((), np.int64),
    "result": ((), np.int8),
    "moves": ((2,), np.uint64),
    "value": ((), np.float32),
    "error": ((), np.float32),
    "worlds": ((), np.int32),
}


def joined(items: list[Any], shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Rows (scalars, rows, or blocks of rows of `shape`) stacked into one array."""
    if not items:
        return np.zeros((0, *shape), dtype)
    blocks = [np.asarray(item).reshape(-1, *shape) for item in items]
    return np.concatenate(blocks).astype(dtype)


def manifest_for(
    rules: Rules, seed: int, teacher: Teacher, chunk_deals: int, others: list[str], share: float
) -> dict[str, Any]:
    """What decides the data of deal i (the deals' count apart: a later run with more deals
    continues a folder). Its digest names every chunk. The other bots (their text forms) and
    their share are written only where there are some: a folder of the teacher alone reads
    as it did before they could be."""
    mixed = {"others": others, "other_share": share} if others else {}
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules.text(),
        "seed": seed,
        "chunk_deals": chunk_deals,
        "teacher": teacher.search.text(),
        **mixed,
        **OBSERVATION_LAYOUT,
    }


# the observation as this shengji encodes it: data of another cannot be read
OBSERVATION_LAYOUT = {
    "observation_size": OBSERVATION_SIZE,
    "observation_fields": [[name, list(shape)] for name, shape in OBSERVATION_FIELDS],
}


def digest(manifest: dict[str, Any]) -> str:
    """16 hex digits of the manifest's SHA-256."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]


def chunk_name(folder: Path, start: int, count: int) -> Path:
    """The file of the chunk of `count` deals from deal `start`."""
    return folder / "chunks" / f"{start:09d}-{count}.npz"


def chunks_of(deals: int, size: int) -> list[tuple[int, int]]:
    """The (start, count) of each chunk of `size` deals of the first `deals` deals."""
    return [(s, min(size, deals - s)) for s in range(0, deals, size)]


def distill(
    out: str | os.PathLike,
    rules: Rules | str = "v3",
    deals: int = 100,
    seed: int = 0,
    teacher: Teacher | None = None,
    workers: int | None = None,
    progress: Callable[[int], object] | None = None,
    chunk_deals: int = CHUNK_DEALS,
    notice: Callable[[str], object] | None = None,
    others: Sequence[Any] = (),
    other_share: float | None = None,
) -> Path:
    """Play `deals` deals with the teacher (Teacher(): the sharper search) at all four seats and
    write its decisions into the folder `out` (see the module), continuing what a run with
    the same rules, seed, teacher and others left there; chunks run in `workers` processes
    (one per core by default). Ctrl-C, SIGTERM or SIGHUP stop it within about a second, the
    finished chunks kept. `progress`: called with the deals done as they are; `chunk_deals`:
    deals a chunk; `notice`: told in a line how many deals the folder held already (a warning
    by default). `others`: built-in bots or their text forms ("expert", "greedy") that play
    one team in a share `other_share` of the deals (0.25 by default, above 0 and at most 1;
    other_team says which), the teacher the other team. Returns the folder (read_data reads
    it)."""
    rules = Rules.of(rules)
    validate.count(deals, "deals", error=StudyError)
    seed = validate.seed(seed, error=StudyError)
    workers = (os.cpu_count() or 1) if workers is None else workers
    validate.count(workers, "workers", 1, 1024, error=StudyError)
    validate.count(chunk_deals, "chunk_deals", 1, 10**6, error=StudyError)
    teacher = Teacher() if teacher is None else teacher
    if not isinstance(teacher, Teacher):
        raise StudyError(f"teacher must be a shengji Teacher, got {teacher!r}")
    other_bots, other_texts, share = other_bots_of(others, other_share)
    folder = Path(out)
    say = notice or (lambda line: warnings.warn(line, stacklevel=3))
    manifest = manifest_for(rules, seed, teacher, chunk_deals, other_texts, share)
    name = digest(manifest)
    with stopping_on_signals():
        try:
            (folder / "chunks").mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StudyError(f"cannot write data into {folder}: {e.strerror}") from None
        lock = lock_folder(folder)
        try:
            written = read_manifest(folder)
            if written is None:
                write_atomically(folder / "manifest.json", manifest)
            elif written != manifest:
                changed = sorted(
                    k for k in {*manifest, *written} if written.get(k) != manifest.get(k)
                )
                raise StudyError(
                    f"{folder} holds data of another {', '.join(changed)}: choose another "
                    "folder, or the same settings"
                )
            for path in sorted(folder.glob("chunks/*.npz")):
                chunk_identity(path)  # a damaged chunk is told now, not after the run
            jobs = [
                (rules, seed, start, count, (teacher, *other_bots))
                for start, count in chunks_of(deals, chunk_deals)
                if not chunk_name(folder, start, count).exists()
            ]
            done = deals - sum(job[3] for job in jobs)
            if done:
                say(
                    f"{folder} holds {done:,} of these {deals:,} deals: those are kept, "
                    f"{deals - done:,} played"
                )
                if progress:
                    progress(done)

            def save(start: int, result: tuple[dict, dict, dict]) -> None:
                count = min(chunk_deals, deals - start)
                write_chunk(chunk_name(folder, start, count), name, start, count, result[0])
                for shorter in range(1, count):  # a last chunk of a run of fewer deals
                    chunk_name(folder, start, shorter).unlink(missing_ok=True)

            def advance(start: int, n: int) -> None:
                if progress:
                    progress(n)

            execute(distill_chunk, jobs, {"share": share}, save, workers, "local", None, advance)
        finally:
            lock.close()
    return folder


def other_bots_of(others: Sequence[Any], share: float | None) -> tuple[list[Any], list[str], float]:
    """The other bots (as bot_from_text reads their texts), their text forms and their share
    of the deals (0 without bots): a StudyError names a bot without a text form, a share out
    of (0, 1], or a share without bots."""
    if isinstance(others, str):
        others = [others]
    if not isinstance(others, Sequence):
        raise StudyError(f"others must be a list of bots or their texts, got {others!r}")
    if not others:
        if share is not None:
            raise StudyError("other_share is the share of deals of the others: name some bots")
        return [], [], 0.0
    share = OTHER_SHARE if share is None else share
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise StudyError(f"other_share must be a number above 0 and at most 1, got {share!r}")
    try:
        texts = [bot_text(bot) for bot in others]
        bots = [bot_from_text(text) for text in texts]
    except BotError as e:
        raise StudyError(f"others: {e}") from None
    return bots, texts, float(share)


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The folder's manifest, None where there is none; a StudyError for one not of this
    format and version."""
    path = folder / "manifest.json"
    if not path.exists():
        return None
    manifest = jsontext.loads(path.read_text(), f"{path}", error=StudyError)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise StudyError(f"{path} is not the manifest of distillation data ({FORMAT})")
    if manifest.get("version") != VERSION:
        raise StudyError(
            f"{path} is of data version {manifest.get('version')!r}, this shengji writes and "
            f"reads version {VERSION}"
        )
    return manifest


def write_chunk(path: Path, name: str, start: int, count: int, arrays: dict) -> None:
    """A chunk's arrays and its identity (the data's digest, its first deal and count),
    written whole or not at all."""
    identity = json.dumps({"data": name, "start": start, "count": count})
    temp = path.with_suffix(".npz.part")
    try:
        with open(temp, "wb") as f:
            np.savez_compressed(f, identity=np.array(identity), **arrays)
        os.replace(temp, path)
    except BaseException:  # a signal mid-write leaves no half file behind
        temp.unlink(missing_ok=True)
        raise


def read_data(
    folder: str | os.PathLike, deals: int | None = None, arrays: tuple[str, ...] | None = None
) -> dict[str, np.ndarray]:
    """The arrays of the first `deals` deals of a folder distill wrote (by default every deal
    up to the last chunk's), joined: DECISION_ARRAYS a row a decision, CANDIDATE_ARRAYS a
    row a candidate, decision j's at offsets[j]:offsets[j + 1]; `arrays`: only these (and
    `offsets` and `deal`, which every read needs), none of the rest read from the files. A
    StudyError of one line names a chunk that is missing below those deals, damaged, or of
    other data."""
    folder = Path(folder)
    if not folder.is_dir():
        raise StudyError(f"{folder} is not a folder of distillation data")
    manifest = read_manifest(folder)
    if manifest is None:
        raise StudyError(f"{folder} holds no distillation data (no manifest.json)")
    for key, ours in OBSERVATION_LAYOUT.items():
        if manifest.get(key) != ours:
            raise StudyError(
                f"{folder} was written for another observation ({key}): this shengji "
                "encodes another; generate the data again"
            )
    spans = longest_chunks(folder)
    held = max((start + count for start, count in spans.items()), default=0)
    deals = held if deals is None else validate.count(deals, "deals", error=StudyError)
    if deals > held:
        raise StudyError(f"{folder} holds {held:,} deals, not {deals:,}")
    name = digest(manifest)
    unknown = sorted(set(arrays or ()) - {*DECISION_ARRAYS, *CANDIDATE_ARRAYS})
    if unknown:
        raise StudyError(f"read_data: no array {unknown[0]!r} in distillation data")
    wanted = {*(LAYOUT if arrays is None else arrays), "offsets", "deal"}
    parts = []
    for start, _ in chunks_of(deals, manifest["chunk_deals"]):
        count = spans.get(start)
        if count is None:
            raise StudyError(
                f"{chunk_name(folder, start, manifest['chunk_deals'])}: no such chunk (the "
                "run that wrote the folder stopped before it: the same command continues it)"
            )
        parts.append(read_chunk(chunk_name(folder, start, count), name, start, count, wanted))
    data = joined_chunks(parts)
    kept = int(np.searchsorted(data["deal"], deals))  # decisions are in deal order
    return {
        **{k: data[k][:kept] for k in DECISION_ARRAYS if k in data and k != "offsets"},
        **{k: data[k][: data["offsets"][kept]] for k in CANDIDATE_ARRAYS if k in data},
        "offsets": data["offsets"][: kept + 1],
    }


def longest_chunks(folder: Path) -> dict[int, int]:
    """{first deal: deals} of the folder's chunk files, the longest at each start."""
    spans: dict[int, int] = {}
    for f in folder.glob("chunks/*.npz"):
        start, _, count = f.stem.partition("-")
        if start.isdigit() and count.isdigit():
            spans[int(start)] = max(spans.get(int(start), 0), int(count))
    return spans


def chunk_members(path: Path, names: set[str]) -> dict[str, np.ndarray]:
    """The arrays `names` of a chunk file, read in one opening: a StudyError for a damaged
    file or one that lacks any of them."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = sorted(names - set(archive.files))
            if missing:
                raise StudyError(f"{path} lacks the arrays {', '.join(missing)}")
            return {key: archive[key] for key in names}
    except StudyError:
        raise
    except Exception as e:  # a truncated or altered file fails anywhere in zip or npy
        raise StudyError(
            f"{path} is damaged ({type(e).__name__}: {e}): delete it, and the same command "
            "plays its deals again"
        ) from None


def chunk_identity(path: Path, members: dict[str, np.ndarray] | None = None) -> Any:
    """The identity a chunk file holds (write_chunk's), from `members` where its arrays are
    read already: a StudyError for a damaged file."""
    if members is None:
        members = chunk_members(path, {"identity"})
    return jsontext.loads(str(members["identity"][()]), f"{path}: its identity", error=StudyError)


def read_chunk(
    path: Path, name: str, start: int, count: int, names: set[str]
) -> dict[str, np.ndarray]:
    """The arrays `names` of one chunk, checked: whole, of this data and this deal range."""
    arrays = chunk_members(path, {*names, "identity"})
    identity = chunk_identity(path, arrays)
    if not isinstance(identity, dict) or identity.get("data") != name:
        raise StudyError(f"{path} belongs to other data than its folder's (copied from another?)")
    if (identity.get("start"), identity.get("count")) != (start, count):
        raise StudyError(
            f"{path} holds deals {identity.get('start')} on ({identity.get('count')} of "
            f"them), not {start} on ({count}): a chunk renamed or copied over another"
        )
    del arrays["identity"]
    return arrays


def joined_chunks(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Chunks' arrays joined, their offsets continued."""
    names = set(parts[0]) if parts else set(LAYOUT)
    joined_arrays = {
        k: np.concatenate([p[k] for p in parts]) if parts else np.zeros((0, *shape), dtype)
        for k, (shape, dtype) in LAYOUT.items()
        if k in names
    }
    offsets = [np.zeros(1, np.int64)]
    for p in parts:
        offsets.append(p["offsets"][1:] + offsets[-1][-1])
    joined_arrays["offsets"] = np.concatenate(offsets)
    return joined_arrays
