"""The commands, one function each, taking the parsed arguments: study, duel, simulate,
analyze, demo, replay and view. Each prints its result (shengji.cli.render) or raises a
ShengjiError, MissingExtra or OSError for shengji.cli.parser to report."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shengji as sj
from shengji._optional import needs
from shengji.bots import bots_from_text
from shengji.cli.render import (
    note,
    print_analysis,
    print_costs,
    print_payoff,
    print_summary,
    progress_bar,
)
from shengji.core.deals import as_require, condition, parse_predeal
from shengji.errors import ArgumentError
from shengji.play.records import read_record, write_text
from shengji.play.serve import serve
from shengji.play.text import forfeit_text, pretty, pretty_hand

if TYPE_CHECKING:
    from shengji.studies.store import Found

DUEL_DEALS = 100_000  # the duel's default on the command line
# the options of a study, duel or ladder that leave its numbers as they are
RUN_ONLY = ("command", "workers", "backend", "ray_address", "out", "resume")


def study(args: argparse.Namespace) -> None:
    """`shengji study`: run a study with a progress bar and print its table."""
    with needs("shengji study", "study"):
        import tqdm  # noqa: F401  (the progress bar: missing, nothing is run first)
    from shengji.studies import study as st

    out, notice, told = run_folder(args, f"study-{args.name}")
    with progress_bar(args.deals, "deal", args.name) as update:
        summary = st.run_study(
            args.name,
            args.rules,
            deals=args.deals,
            seed=args.seed,
            workers=args.workers,
            out=out,
            resume=args.resume,
            progress=update,
            backend=args.backend,
            ray_address=args.ray_address,
            strategies=None if args.strategies is None else args.strategies.split(","),
            play_every=args.play_every,
            bots=args.bots,
            against=args.against,
            predeal=parse_predeal(args.predeal),
            bottom=args.bottom,
            require=args.require,
            notice=notice,
        )
    print_summary(summary)
    print_share(args)
    print(f"{saved(told)}: {out}/summary.json, deals.parquet and the plots")


def duel(args: argparse.Namespace) -> None:
    """Two bots in duplicate, into a study folder."""
    with needs("shengji duel", "study"):
        import tqdm  # noqa: F401  (the progress bar: missing, nothing is run first)
    deals = DUEL_DEALS if args.deals is None and args.matches is None else args.deals
    out, notice, told = run_folder(args, "duel")
    with progress_bar(args.matches or deals, "match" if args.matches else "deal", "duel") as update:
        result = sj.duel(
            args.a,
            args.b,
            deals=deals,
            matches=args.matches,
            rules=args.rules,
            seed=args.seed,
            first_round=args.first_round,
            workers=args.workers,
            backend=args.backend,
            ray_address=args.ray_address,
            out=out,
            resume=args.resume,
            progress=update,
            predeal=parse_predeal(args.predeal),
            bottom=args.bottom,
            accept=as_require(args.require),
            notice=notice,
        )
    print_summary(result.summary)
    print_share(args)
    plot = "wins.png" if args.matches else "score.png"
    print(f"{saved(told)}: {out}/summary.json, deals.parquet and {plot}")


def run_folder(
    args: argparse.Namespace, kind: str
) -> tuple[str, Callable[[Found], None], list[Found]]:
    """The folder of a study, duel or ladder, and the notice that prints (stderr) what the run
    finds there: the results read from it rather than computed and, with no --out, the folder
    chosen. That is this command's own: `kind` and 8 hex digits of the options that decide its
    numbers (all but RUN_ONLY and those left unset, None, False or []: a new option leaves the
    folders of older commands as they were). The same command continues it; another command
    gets its own. The list holds what the notice was told (saved reads it)."""
    told: list[Found] = []
    if args.out is not None:

        def notice_out(found: Found) -> None:
            if found.read:
                note(str(found))
            told.append(found)

        return args.out, notice_out, told
    decides = {
        k: v
        for k, v in vars(args).items()
        if k not in RUN_ONLY and v is not None and v is not False and v != []
    }
    if isinstance(decides.get("bots"), list):  # the ladder's, however spaced
        decides["bots"] = ",".join(decides["bots"])
    digest = hashlib.sha256(json.dumps(decides, sort_keys=True).encode()).hexdigest()
    folder = f"{kind}-{digest[:8]}"

    def notice(found: Found) -> None:
        own = "this command's own folder, which the same command continues"
        if not told and Path(found.folder) == Path(folder):
            note(f"{found} ({own})")
        else:
            if not told:  # a ladder's: its pairs' folders are in it
                note(f"{folder}: {own}")
            if found.read:
                note(str(found))
        told.append(found)

    return folder, notice, told


def saved(told: list[Found]) -> str:
    """How a run's last line names its files: "read" where its folder held every deal (or
    match) already, "written" where it computed any."""
    return "read" if told and all(found.read == found.total for found in told) else "written"


def print_share(args: argparse.Namespace) -> None:
    """Under a run's table, the exact share of all deals (keeping the fixed cards) that meet
    its --require clauses: its deals were dealt directly, so no attempt count says it."""
    req = as_require(args.require)
    if req is not None:
        cond = condition(parse_predeal(args.predeal), args.bottom, req)
        among = "the deals with the fixed cards" if any(cond.fixed) else "all deals"
        print(
            f"deals meeting {' and '.join(req.texts)}: {req.probability(cond.fixed):.4g} of {among}"
        )


def simulate(args: argparse.Namespace) -> None:
    """Rounds or matches with the chosen bots, summed up with 95% intervals."""
    from shengji.studies.stats import match_metrics, round_metrics

    bots = bots_from_text(args.bots)
    if args.matches and args.rounds is not None:
        raise ArgumentError("--rounds and --matches exclude each other: play rounds or matches")
    if args.matches and args.workers not in (None, 1):
        raise ArgumentError("--workers is for rounds: matches are played one after another")
    rounds = 10_000 if args.rounds is None else args.rounds
    predeal = parse_predeal(args.predeal)
    if args.matches and (predeal or args.bottom or args.require):
        raise ArgumentError("--predeal, --bottom and --require condition rounds: matches take none")
    if args.matches:
        matches = []
        with progress_bar(args.matches, "match", "matches") as update:
            for i in range(args.matches):
                matches.append(
                    sj.play_match(args.rules, seed=sj.round_seed(args.seed, i), bots=bots)
                )
                update(1)
        metrics = match_metrics(matches)
        what = f"{args.matches:,} matches"
    else:
        metrics = round_metrics(
            sj.simulate_rounds(
                rounds,
                args.rules,
                bots=bots,
                seed=args.seed,
                workers=args.workers or 1,
                predeal=predeal,
                bottom=args.bottom,
                accept=as_require(args.require),
            )
        )
        fixed = "".join(f", seat {seat} holds {cards}" for seat, cards in predeal.items())
        fixed += "".join(f", {clause}" for clause in args.require or ())
        what = f"{rounds:,} rounds{fixed}{f', bottom {args.bottom}' if args.bottom else ''}"
    print_summary(
        {"metrics": metrics},
        title=f"{what}, rules {args.rules}, bots {args.bots}, seed {args.seed}"
        + (
            ""
            if args.matches
            else " (seat 0 deals every round: its team, seats 0 and 2, is the dealer's team)"
        ),
    )
    if not args.matches:
        print_share(args)


def analyze(args: argparse.Namespace) -> None:
    """The ranked choices of one hand or one decision, each with the interval of its
    difference to the best (with --payoff, every pair's); or a round's plays, annotated."""
    with needs("shengji analyze", "study"):
        import tabulate  # noqa: F401  (the table: missing, nothing is played first)

    if args.what in ("play", "round"):
        analyze_plays(args)
        return
    from shengji.studies.analyze import analyze_bury, analyze_trump, trump_of, trump_text

    bots = bots_from_text(args.bots)
    # the play-outs are not known before (the candidates, the search's): counted, no total
    with progress_bar(None, "play-out", f"analyze {args.what}") as update:
        if args.what == "bury":
            trump = trump_of(args.trump)
            frame = analyze_bury(
                args.hand,
                trump,
                args.rules,
                args.worlds,
                bots,
                args.seed,
                args.candidate,
                search=args.search,
                workers=args.workers,
                progress=update,
            )
        else:
            frame = analyze_trump(
                args.hand,
                args.level,
                args.rules,
                args.worlds,
                bots,
                args.seed,
                workers=args.workers,
                progress=update,
            )
    if args.what == "bury":
        title = f"Burying from {pretty_hand(args.hand, trump)}, trump {trump_text(trump)}"
    else:
        title = f"Trumps for {pretty(args.hand)} at level {args.level}"
    print_analysis(
        frame,
        f"{title}: rules {args.rules}, bots {args.bots}, {args.worlds:,} worlds, seed {args.seed}",
    )
    if args.payoff > 0:
        print_payoff(frame, args.payoff)


def analyze_plays(args: argparse.Namespace) -> None:
    """`shengji analyze play` and `shengji analyze round` of a saved round record."""
    record = read_record(args.file, "a round record")
    if isinstance(record, dict) and "rounds" in record and "tricks" not in record:
        raise ArgumentError(
            f"{args.file} is a match record: analyze {args.what} takes a round record "
            '(shengji demo --save without --match; each of a match\'s "rounds" is one)'
        )
    bots = bots_from_text(args.bots)
    if args.what == "play":
        # the trick counted from 1, as shengji replay and the viewer show it
        decision = (None if args.trick is None else args.trick - 1, args.seat)
        at_position = isinstance(record, dict) and "position" in record
        if at_position and decision != (None, None):
            raise ArgumentError(
                f"{args.file} is a position: its decision is its next play (no --trick, --seat)"
            )
        if not at_position and None in decision:
            if not (isinstance(record, dict) and "tricks" in record):
                raise ArgumentError(
                    f"{args.file} is neither a round record (shengji demo --save) nor a "
                    'position ({"position": {...}}, docs/manual/analyses.md)'
                )
            raise ArgumentError("--trick and --seat name the decision of a round record")
        frame = sj.analyze_play(
            record,
            None if at_position else decision,
            args.worlds,
            bots,
            args.seed,
            exact=args.exact,
            max_candidates=args.max_candidates,
            workers=args.workers,
        )
        how = (
            "exact, every hand known"
            if args.exact
            else f"bots {args.bots}, {args.worlds:,} worlds from the seat's knowledge, "
            f"seed {args.seed}"
        )
        legal = frame.attrs["legal"]
        trick, seat = frame.attrs["decision"]
        print_analysis(
            frame,
            f"Trick {trick + 1}, seat {seat}, rules {frame.attrs['rules']}: {legal} legal "
            f"play{'s' if legal != 1 else ''}{capped_text(frame, args.max_candidates)}; {how}. "
            "The level change is the seat's team's",
        )
        if args.payoff > 0:
            print_payoff(frame, args.payoff)
        return
    if args.out and Path(args.out).resolve() == Path(args.file).resolve():
        raise ArgumentError(f"--out {args.out} would overwrite the record: name another file")
    with progress_bar(None, "decision", "analyze round") as update:
        frame, annotated = sj.analyze_round(
            record,
            args.seat,
            args.worlds,
            bots,
            args.seed,
            max_candidates=args.max_candidates,
            workers=args.workers,
            progress=update,
        )
    forfeit = annotated.get("forfeit")
    if forfeit and frame.empty:
        print(f"No play to analyse: {forfeit_text(forfeit)}, before any play")
    else:
        print_costs(frame, f"{annotated['annotations']['source']}; the cost of each play made")
        if forfeit:
            print(f"{forfeit_text(forfeit)} (the plays before it are analysed)")
    if args.out:
        write_text(args.out, json.dumps(annotated, ensure_ascii=False))
        print(f"written: {args.out} (shengji view {args.out} shows the costs)")


def capped_text(frame: Any, cap: int) -> str:
    """How analyze_play chose the plays it played out where the cap left some out ("" when
    it played every legal one)."""
    if not frame.attrs["capped"]:
        return ""
    chosen = (
        f"every unit (all kept past the cap), then throws from each category in turn up to "
        f"{cap} in all"
        if frame.attrs["lead"]
        else f"{cap} spread evenly over the listed follows"
    )
    return (
        f" (capped by --max-candidates: {len(frame)} played out, {chosen}, with the play made "
        "and the bot's choice; the best is the best of these)"
    )


def demo(args: argparse.Namespace) -> None:
    """One round (or with --match a whole match) with the chosen bots, printed; with --save,
    its record written as JSON."""
    bots = bots_from_text(args.bots)
    played = (
        sj.play_match(args.rules, seed=args.seed, bots=bots)
        if args.match
        else sj.play_round(args.rules, seed=args.seed, bots=bots)
    )
    if args.save:
        write_text(args.save, json.dumps(played.to_dict(), ensure_ascii=False))
    print(played.text())


def replay(args: argparse.Namespace) -> None:
    """A saved round or match record re-checked through the engine, then printed (a match
    a line a round)."""
    data = read_record(args.file, "a round or match record")
    if isinstance(data, dict) and "rounds" in data and "tricks" not in data:
        print(sj.replay_match(data).text())
    else:
        print(sj.replay(data).text())


def view(args: argparse.Namespace) -> None:
    """A saved round or match record as one HTML page (sj.view), written only if it replays."""
    out = args.out or str(Path(args.file).with_suffix(".html"))
    if Path(out).resolve() == Path(args.file).resolve():
        raise ArgumentError(f"-o {out} would overwrite the record: name another file")
    sj.view(read_record(args.file, "a round or match record"), out)
    print(f"written: {out}")


def play(args: argparse.Namespace) -> None:
    """A seat played in the browser (sj.play_in_browser), until Ctrl-C."""
    from shengji.live.server import play_in_browser  # aiohttp is asked for when it serves

    settings = {
        "--rules": args.rules,
        "--bots": args.bots,
        "--seat": args.seat,
        "--match": args.match or None,
        "--seed": args.seed,
        "--out": args.out,
        "--coach-worlds": args.coach_worlds,
    }
    rules, seed = args.rules or "v3", args.seed or 0
    if args.resume is not None:
        given = [name for name, value in settings.items() if value is not None]
        if given:
            raise ArgumentError(
                f"--resume goes on with the game's own settings: drop {', '.join(given)}"
            )
        out = None
    else:
        out = Path(args.out or f"shengji-play-{rules.split(':')[0]}-{seed}")
        if (out / "game.json").exists():
            raise ArgumentError(
                f"{out} holds a game already: --resume {out} goes on with it; --out (or "
                "another --seed) starts another"
            )
    server = play_in_browser(
        rules,
        bots_from_text(args.bots or "expert"),
        args.seat or 0,
        args.match,
        seed,
        out,
        args.port,
        open_browser=not args.no_browser,
        resume=args.resume,
        **({} if args.coach_worlds is None else {"coach_worlds": args.coach_worlds}),
    )
    folder = server.game.out
    print(f"shengji play: {server.url}", flush=True)
    print(f"the game is saved in {folder}; Ctrl-C stops the server", flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        print(f"the game is saved: shengji play --resume {folder} goes on with it", flush=True)
        raise


def serve_bot(args: argparse.Namespace) -> None:
    """One of our bots on the external-bot protocol, over standard input and output."""
    if sys.stdout is None:  # started with its output closed: no reader, as a closed pipe
        raise BrokenPipeError
    serve(args.spec, sys.stdin, sys.stdout)


def botzone(args: argparse.Namespace) -> None:
    """One of our bots as a Botzone Tractor bot, over standard input and output."""
    if sys.stdout is None:  # started with its output closed: no reader, as a closed pipe
        raise BrokenPipeError
    from shengji.play.botzone import run

    run(args.bot, sys.stdin, sys.stdout, keep_running=not args.simple)


def botzone_match(args: argparse.Namespace) -> None:
    """Whole matches of four Botzone bots under the botzone rules, a record each."""
    from shengji.bots.external import split_command

    if len(args.bot) not in (1, 4):
        raise ArgumentError(f"--bot: one bot or four, got {len(args.bot)}")
    bots = [
        sj.BotzoneBot(split_command(cmd), timeout=args.timeout, on_error=args.on_error)
        for cmd in args.bot
    ]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wins = [0, 0]
    for i in range(args.matches):
        match = sj.play_match(
            "botzone", seed=sj.round_seed(args.seed, i), bots=bots * (4 // len(bots))
        )
        path = write_text(out / f"match-{i}.json", json.dumps(match.to_dict(), ensure_ascii=False))
        forfeits = sum(r.forfeit is not None for r in match.rounds)
        wins[match.winner] += 1
        print(
            f"match {i}: team {match.winner} won in {len(match.rounds)} rounds"
            f"{f', {forfeits} forfeited' if forfeits else ''}: {path}"
        )
    print(f"team 0 (seats 0, 2) won {wins[0]}, team 1 (seats 1, 3) won {wins[1]}")


def ladder(args: argparse.Namespace) -> None:
    """Every pair of bots in duplicate: the payoff cross-table and the standings."""
    with needs("shengji ladder", "study"):
        import tqdm  # noqa: F401  (the progress bar: missing, nothing is run first)
    # the arguments as one list: a setting after a space belongs to the bot before it too
    bots = as_list(bots_from_text(",".join(args.bots)))
    pairs = len(bots) * (len(bots) - 1) // 2
    out, notice, told = run_folder(args, "ladder")
    with progress_bar(pairs * (args.deals + args.matches), "deal", "ladder") as update:
        result = sj.ladder(
            bots,
            deals=args.deals,
            rules=args.rules,
            seed=args.seed,
            matches=args.matches,
            workers=args.workers,
            out=out,
            resume=args.resume,
            progress=update,
            notice=notice,
        )
    print(result.table())
    print(f"{saved(told)}: {out}/ladder.json and a duel folder a pair")


def distill(args: argparse.Namespace) -> None:
    """Training data from the search, into a folder the same command continues."""
    from shengji.studies.distill import OTHER_SHARE, Teacher, read_data
    from shengji.studies.distill import distill as write_data

    search = sj.Pimc.sharp(**({} if args.rollouts is None else {"rollouts": args.rollouts}))
    rollouts = "" if args.rollouts is None else f"-rollouts{args.rollouts}"
    others = [] if args.others is None else as_list(bots_from_text(args.others))
    share = OTHER_SHARE if args.other_share is None else args.other_share
    # the bots' names (not their settings) and the share: another share, another folder
    mixed = "".join(f"-{bot.partition(':')[0]}" for bot in others)
    mixed = f"-others{mixed}-{share:g}" if others else ""
    out = args.out or f"distill-{args.rules}-seed{args.seed}{rollouts}{mixed}"
    with progress_bar(args.deals, "deal", "distill") as update:
        folder = write_data(
            out,
            args.rules,
            deals=args.deals,
            seed=args.seed,
            teacher=Teacher(search),
            workers=args.workers,
            progress=update,
            notice=note,
            others=others,
            other_share=args.other_share,
        )
    offsets = read_data(folder, args.deals, arrays=())["offsets"]  # not the observations
    print(
        f"{len(offsets) - 1:,} decisions of {args.deals:,} deals, "
        f"{offsets[-1]:,} candidates valued: {folder}"
    )


def as_list(bots: Any) -> list:
    """bots_from_text's answer as a list (it gives one bot as itself)."""
    return bots if isinstance(bots, list) else [bots]


COMMANDS = {
    "study": study,
    "duel": duel,
    "ladder": ladder,
    "distill": distill,
    "simulate": simulate,
    "analyze": analyze,
    "demo": demo,
    "replay": replay,
    "view": view,
    "play": play,
    "serve-bot": serve_bot,
    "botzone": botzone,
    "botzone-match": botzone_match,
}
