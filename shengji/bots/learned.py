"""The learned bot (Learned) and its network: the network's definition (forward, in NumPy or
any array module with its API, such as jax.numpy), its parameters, and its checkpoint (a .npz
of float32 arrays and a JSON layout that says what the arrays mean). Learned plays a
checkpoint; the engine evaluates it natively (shengji.bots._learned, checked against forward
by the tests); the training script is examples/train_dmc.py.

The network values an (observation, move) pair: the seat's observation (Table.observe,
_observation.OBSERVATION_FIELDS) times obs_scale, then the move's features (encode_moves,
MOVE_FEATURES: the copies of each kind, the copies at each trump-line and side-suit position,
and what the play does: whether it wins the trick so far, its points, the unseen cards above
it ...; last, whether it is the expert's play there: anchor_spec); dense -> ReLU -> dense ->
ReLU -> dense to one number, the round's expected reward for the seat deciding (its team's
level change minus the other team's)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import struct
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from typing import Any

import numpy as np

from shengji.bots._learned import (
    ARRAYS,
    MOVE_FEATURES,
    MOVE_SIZE,
    PLAY_FEATURES,
    Net,
    choose_moves,
    encode_moves,
    risky_throws,
    score_moves,
    shapes,
)
from shengji.bots._policies import BOTS
from shengji.bots.expert import Expert
from shengji.bots.greedy import Greedy
from shengji.bots.settings import changed_settings, label
from shengji.bots.spec import BotSpec
from shengji.core import jsontext, validate
from shengji.errors import ArgumentError, BotError
from shengji.round._observation import OBSERVATION_FIELDS, OBSERVATION_SIZE

__all__ = [
    "FORMAT",
    "VERSION",
    "MOVE_SIZE",
    "MOVE_FEATURES",
    "PLAY_FEATURES",
    "ARRAYS",
    "Net",
    "score_moves",
    "encode_moves",
    "risky_throws",
    "safe_moves",
    "first_best",
    "best_moves",
    "anchor_spec",
    "layout_of",
    "shapes",
    "default_obs_scale",
    "init_params",
    "forward",
    "save",
    "load",
    "load_net",
    "file_digest",
    "SHIPPED",
    "Learned",
]

# The network the package ships (sj.Learned() plays it; docs/engine.md says how it was
# trained). A plain file: a package with native modules is never imported from a zip.
SHIPPED = str(files("shengji.bots") / "data" / "learned_v3.npz")

FORMAT = "shengji-dmc"  # the checkpoint's format name ...
VERSION = 3  # ... and version (1: a move was its kinds' copies alone; 2: no anchor feature)
HIDDEN = (256, 128)
MAX_MOVES = 2048  # plays weighed at a decision: the envs' MAX_ACTIONS (shengji.envs.aec
#                            needs gymnasium, which the bot does not: the tests compare them)

# the observation's numbers brought to about 0..1 (their ranges: docs/engine.md "Encodings")
FIELD_SCALES = {
    "sizes": 1 / 25,
    "category": 1 / 4,
    "order": 1 / 16,
    "trump": 1 / 14,
    "levels": 1 / 14,
    "points": 1 / 100,
    "seats": 1 / 3,
    "action": 1 / 3,
    "tricks": 1 / 25,
}


def safe_moves(
    obs: np.ndarray, moves: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The moves the learned bot weighs (score_moves' arrays): the rows of `moves` that are not
    throws that could fail (risky_throws), and each decision's offsets into them."""
    kept = np.flatnonzero(~risky_throws(obs, moves, offsets))
    return kept, np.searchsorted(kept, offsets)


def first_best(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per decision (values[offsets[i]:offsets[i + 1]], none empty), the index of its highest
    value among its own, the first on ties. An ArgumentError for offsets that are not
    integers rising from 0 to len(values) by at least one, or values that are not numbers."""
    values, offsets = np.asarray(values), np.asarray(offsets)
    if values.ndim != 1 or values.dtype.kind != "f" or np.isnan(values).any():
        raise ArgumentError("values must be a vector of numbers (floats, no NaN)")
    if (
        offsets.ndim != 1
        or offsets.dtype.kind not in "iu"
        or len(offsets) < 1
        or offsets[0] != 0
        or offsets[-1] != len(values)
        or (np.diff(offsets) < 1).any()
    ):
        raise ArgumentError(
            f"offsets must be integers rising from 0 to the {len(values)} values, each "
            "decision holding one at least"
        )
    counts = np.diff(offsets)
    best = np.maximum.reduceat(values, offsets[:-1])
    firsts = np.flatnonzero(values == np.repeat(best, counts))
    return firsts[np.searchsorted(firsts, offsets[:-1])] - offsets[:-1]


def best_moves(net: Net, obs: Any, moves: Any, offsets: Any, anchors: Any = None) -> np.ndarray:
    """Each decision's play as the learned bot plays it, the index into its own moves: the
    highest value among the first net.max_moves of its moves that are not throws that could
    fail (safe_moves), the first on ties (first_best), every decision's moves valued in one
    native call, the engine's own (choose_moves: as learned_play chooses). A vector
    env's learner plays so for all its envs at once: with VecEnv(n, plays_only=sj.Learned(),
    max_actions=net.max_moves or more) they are the rounds sj.Learned seats play (anchors:
    its info["anchors"]). obs, moves, offsets and anchors: score_moves' (an ArgumentError
    where they do not fit, or a decision offers no move)."""
    offsets = np.asarray(offsets)  # its type is checked by choose_moves
    if offsets.ndim == 1 and (np.diff(offsets) < 1).any():
        raise ArgumentError("offsets must rise, each decision offering one move at least")
    return choose_moves(net, obs, moves, offsets, anchors)


def anchor_spec() -> BotSpec:
    """The spec of the expert whose play a network reads as its last move feature (an
    anchored one: Net.anchored): the default expert's, the search's rollout policy, whose
    play the distillation data note at each decision (the search's anchor)."""
    return Expert().spec()


def layout_of(hidden: tuple[int, int] = HIDDEN, max_moves: int = MAX_MOVES) -> dict[str, Any]:
    """What a checkpoint's arrays mean, as its `layout` entry holds it (JSON)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "observation_size": OBSERVATION_SIZE,
        "observation_fields": [[name, list(shape)] for name, shape in OBSERVATION_FIELDS],
        "move_size": MOVE_SIZE,
        "move_features": list(MOVE_FEATURES),
        "hidden": [int(h) for h in hidden],
        "max_moves": int(max_moves),
    }


def default_obs_scale() -> np.ndarray:
    """FIELD_SCALES over the flat observation (1 for the card counts and the voids)."""
    parts = [
        np.full(int(np.prod(shape)), FIELD_SCALES.get(name, 1.0), np.float32)
        for name, shape in OBSERVATION_FIELDS
    ]
    return np.concatenate(parts)


def init_params(seed: int = 0, hidden: tuple[int, int] = HIDDEN) -> dict[str, np.ndarray]:
    """Fresh parameters: He-normal weights, zero biases, default_obs_scale."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in shapes(hidden).items():
        if name.startswith("w"):
            params[name] = (rng.standard_normal(shape) * np.sqrt(2 / shape[0])).astype(np.float32)
        else:
            params[name] = np.zeros(shape, np.float32)
    params["w3"] *= 0.1  # values start near 0: rewards are a few levels at most
    # not anchored until trained so: a network whose training never shows the expert's
    # play (train_dmc.py) keeps this row at 0, and needs no anchors
    params["w1"][OBSERVATION_SIZE + MOVE_FEATURES.index("the expert's play")] = 0
    params["obs_scale"] = default_obs_scale()
    return params


def forward(params: dict[str, Any], obs: Any, features: Any, xp: Any = np) -> Any:
    """The network's values of the pairs (obs[i], features[i]): obs (n, OBSERVATION_SIZE),
    features (n, MOVE_SIZE) as encode_moves gives them; `xp` the array module (numpy,
    jax.numpy). The definition the native scorer and the training follow."""
    x = xp.concatenate(
        [obs.astype(xp.float32) * params["obs_scale"], features.astype(xp.float32)], axis=-1
    )
    h = xp.maximum(x @ params["w1"] + params["b1"], 0)
    h = xp.maximum(h @ params["w2"] + params["b2"], 0)
    return h @ params["w3"] + params["b3"][0]


def save(path: str | os.PathLike, params: dict[str, Any], max_moves: int = MAX_MOVES) -> None:
    """Write a checkpoint: the arrays as float32 and the layout, atomically (a file beside it,
    then renamed over it)."""
    arrays: dict[str, Any] = {name: np.asarray(params[name], np.float32) for name in ARRAYS}
    hidden = (arrays["b1"].shape[0], arrays["b2"].shape[0])
    check_shapes(os.fspath(path), arrays, hidden)
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, suffix=".npz.part")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, layout=np.array(json.dumps(layout_of(hidden, max_moves))), **arrays)
        os.chmod(temp, 0o644)  # mkstemp makes it private; a checkpoint is shared like a file
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def load(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, layout) of a checkpoint written by save, checked against this package: a
    BotError of one line names the file and what does not fit."""
    arrays, layout, _ = read_checkpoint(os.fspath(path))
    return arrays, layout


# what reading a damaged .npz may raise, from the zip, its compression or the .npy headers
READ_ERRORS = (
    OSError,
    ValueError,
    EOFError,
    KeyError,
    IndexError,
    TypeError,
    struct.error,
    zipfile.BadZipFile,
    zlib.error,
)


def read_checkpoint(name: str) -> tuple[dict[str, np.ndarray], dict[str, Any], str]:
    """load's (arrays, layout) and the digest of the bytes they were read from (file_digest):
    the file is read once, so the digest names exactly the network loaded."""
    where = f"checkpoint {name}"
    if not os.path.exists(name):
        raise BotError(f"{where}: no such file")
    if not os.path.isfile(name):
        raise BotError(f"{where} is not a file")
    try:
        with open(name, "rb") as f:
            data = f.read()
        archive = np.load(io.BytesIO(data), allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise BotError(f"{where} is not an .npz file (a single .npy array)")
        with archive:
            if "layout" not in archive.files:
                raise BotError(f"{where} is not a learned bot's checkpoint: it has no layout")
            layout = read_layout(where, archive["layout"])
            missing = [a for a in ARRAYS if a not in archive.files]
            if missing:
                raise BotError(f"{where} lacks the arrays {', '.join(missing)}")
            arrays = {a: archive[a] for a in ARRAYS}
    except BotError:
        raise
    except READ_ERRORS as e:
        # one line whatever broke: a truncated or bit-flipped file fails deep inside zipfile
        raise BotError(
            f"{where} is not an .npz file, or a damaged one ({type(e).__name__}: {e})"
        ) from None
    for a, values in arrays.items():
        if values.dtype.kind != "f":
            raise BotError(f"{where}: array {a} holds {values.dtype}, not floats")
        if not np.isfinite(values).all():  # a run that diverged: its plays would be noise
            raise BotError(
                f"{where}: array {a} holds "
                f"{np.size(values) - np.isfinite(values).sum()} values that are not "
                "finite numbers (NaN or infinite)"
            )
    check_shapes(name, arrays, tuple(layout["hidden"]))
    converted = {a: values.astype(np.float32) for a, values in arrays.items()}
    return converted, layout, bytes_digest(data)


def bytes_digest(data: bytes) -> str:
    """A checkpoint's identity: 16 hex digits of its bytes' SHA-256."""
    return hashlib.sha256(data).hexdigest()[:DIGEST_SIZE]


DIGEST_SIZE = 16  # hex digits of a checkpoint's digest (Learned.sha256)


def read_layout(where: str, entry: np.ndarray) -> dict[str, Any]:
    """The layout entry, checked against this package's (layout_of)."""
    try:
        text = str(entry[()])
    except (TypeError, IndexError):
        raise BotError(f"{where}: its layout is not JSON") from None
    layout = jsontext.loads(text, f"{where}: its layout", error=BotError)
    if not isinstance(layout, dict) or layout.get("format") != FORMAT:
        found = layout.get("format") if isinstance(layout, dict) else None
        raise BotError(
            f"{where} is not a learned bot's checkpoint (format {found!r}, expected {FORMAT!r})"
        )
    if layout.get("version") != VERSION:
        raise BotError(
            f"{where} is of format version {layout.get('version')!r}, this "
            f"shengji reads version {VERSION}"
        )
    ours = layout_of()
    if layout.get("observation_size") != OBSERVATION_SIZE:
        raise BotError(
            f"{where} was written for an observation of "
            f"{layout.get('observation_size')} values, this shengji encodes "
            f"{OBSERVATION_SIZE}"
        )
    theirs = layout.get("observation_fields")
    if theirs != ours["observation_fields"]:
        theirs = theirs if isinstance(theirs, list) else []
        i = next(
            (i for i, (a, b) in enumerate(zip(theirs, ours["observation_fields"])) if a != b),
            min(len(theirs), len(ours["observation_fields"])),
        )
        found = theirs[i] if i < len(theirs) else "nothing"
        wanted = ours["observation_fields"][i] if i < len(ours["observation_fields"]) else "nothing"
        raise BotError(
            f"{where} was written for another observation: its field {i + 1} is "
            f"{found!r}, this shengji encodes {wanted!r}"
        )
    if layout.get("move_size") != MOVE_SIZE:
        raise BotError(
            f"{where} was written for moves of {layout.get('move_size')} values, "
            f"this shengji encodes {MOVE_SIZE}"
        )
    if layout.get("move_features") != ours["move_features"]:
        raise BotError(
            f"{where} was written for other move features than this shengji's "
            "(learned.MOVE_FEATURES)"
        )
    hidden, max_moves = layout.get("hidden"), layout.get("max_moves")
    if not (
        isinstance(hidden, list)
        and len(hidden) == 2
        and all(isinstance(h, int) and h >= 1 for h in hidden)
    ):
        raise BotError(
            f"{where}: its layout's hidden sizes must be two positive integers, got {hidden!r}"
        )
    if not isinstance(max_moves, int) or max_moves < 1:
        raise BotError(
            f"{where}: its layout's max_moves must be a positive integer, got {max_moves!r}"
        )
    return layout


def check_shapes(name: str, arrays: dict[str, np.ndarray], hidden: tuple[int, int]) -> None:
    """A ValueError naming the first array of checkpoint `name` not of the shape its layout says."""
    for a, shape in shapes(hidden).items():
        if arrays[a].shape != shape:
            raise BotError(
                f"checkpoint {name}: array {a} is of shape {arrays[a].shape}, "
                f"hidden sizes {hidden[0]}, {hidden[1]} make it {shape}"
            )


def load_net(path: str | os.PathLike, sha256: str = "") -> Net:
    """The checkpoint at `path` as a native Net, loaded once while the file is unchanged;
    with `sha256` (file_digest's), a BotError when the file holds other content."""
    net, found = cached_net(*file_stamp(path))
    if sha256 and found != sha256:
        raise BotError(
            f"checkpoint {os.path.abspath(os.fspath(path))} changed: its content's digest "
            f"is {found}, the bot was pinned to {sha256} (a study or duel cannot mix two "
            "networks: restore the file, or start another study)"
        )
    return net


def file_digest(path: str | os.PathLike) -> str:
    """The digest of the checkpoint at `path` as load_net loads it (a Learned's sha256)."""
    return cached_net(*file_stamp(path))[1]


def file_stamp(path: str | os.PathLike) -> tuple[str, tuple[int, int] | None]:
    """The checkpoint's absolute name and what tells a changed file (modified time, size)."""
    name = os.path.abspath(os.fspath(path))
    try:
        stat = os.stat(name)
    except OSError:
        return name, None
    return name, (stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=16)
def cached_net(name: str, stamp: tuple[int, int] | None) -> tuple[Net, str]:
    """The native Net of the checkpoint file `name` and its digest, cached by the file's stamp."""
    arrays, layout, digest = read_checkpoint(name)
    return Net(arrays, layout["max_moves"], anchor_spec()), digest


@dataclass(frozen=True)
class Learned:
    """A trained network's plays (shengji.bots.learned; examples/train_distill.py and
    train_dmc.py train one): at each lead or follow it plays the legal play of the highest
    value for its seat (its network told which play the expert would make there), natively,
    among the first max_moves plays as the env lists them (the first on ties; max_moves is
    the checkpoint's, set in training: --max-moves, 512 by default). Declarations,
    revolutions and the bury are the expert's (its default rules over the `greedy` settings:
    its bury by value_bury, its overturns by fight; +0.03 to +0.06 levels a deal over
    greedy's in each preset, docs/manual/bots.md), or with expert=False greedy's. `path`:
    the checkpoint (.npz), by default the network shipped with the package (learned.SHIPPED), loaded once while the
    file is unchanged; one that does not fit raises a BotError. `sha256`: the checkpoint's
    content digest (learned.file_digest; pinned() sets it), or empty: set, a file of other
    content is refused wherever the bot is made or played (a study never mixes networks)."""

    path: str = SHIPPED
    greedy: Greedy = field(default_factory=Greedy)
    sha256: str = ""
    expert: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.path, (str, os.PathLike)):
            raise BotError(f"Learned.path must be a checkpoint's path, got {self.path!r}")
        object.__setattr__(self, "path", os.fspath(self.path))
        if not isinstance(self.greedy, Greedy):
            raise BotError(f"Learned.greedy must be a shengji.Greedy, got {self.greedy!r}")
        if not isinstance(self.sha256, str) or not re.fullmatch(
            f"(|[0-9a-f]{{{DIGEST_SIZE}}})", self.sha256
        ):
            raise BotError(
                f"Learned.sha256 must be {DIGEST_SIZE} lowercase hex digits (a checkpoint's "
                f"digest) or empty, got {self.sha256!r}"
            )
        object.__setattr__(
            self, "expert", validate.flag(self.expert, "Learned.expert", error=BotError)
        )
        load_net(self.path, self.sha256)  # a checkpoint that does not fit is refused here

    def spec(self) -> BotSpec:
        """Greedy's spec (with `expert` the expert's) for the shows and bury, with the
        checkpoint's network for the plays."""
        net = load_net(self.path, self.sha256)
        others = Expert(greedy=self.greedy) if self.expert else self.greedy
        return others.spec()._replace(kind=BOTS["learned"], net=net)

    def text(self) -> str:
        """Its text form (shengji.bots.text.bot_text): `learned`, then the settings that differ
        from the defaults, its greedy settings' too. One whose path holds a comma, a colon or
        outer spaces has none (a BotError)."""
        if self.path != SHIPPED and re.search(r"[,:]|^\s|\s$", self.path):
            raise BotError(
                f"a Learned bot whose path holds a comma, a colon or outer spaces "
                f"has no text form: {self.path!r}"
            )
        changed = changed_settings(self) + changed_settings(self.greedy)
        return "learned" + (":" + ",".join(changed) if changed else "")

    def __str__(self) -> str:
        return label(self, Learned)
