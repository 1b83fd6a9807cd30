"""The `shengji` command's options, one subparser a command, and `main`: it parses, runs the
command (shengji.cli.commands) and turns every error into one line and an exit status."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any, NoReturn

from shengji._optional import MissingExtra
from shengji._startup import command_of, interrupted_line
from shengji._version import __version__
from shengji.bots import TEXT_BOTS
from shengji.bots.external import end_bot_processes
from shengji.cli.commands import COMMANDS, DUEL_DEALS
from shengji.core.stopping import STOP_SIGNALS
from shengji.core.validate import MAX_RUN_DEALS, cli_type, count, integer, seed
from shengji.studies.backends import stopping_on_signals

DESCRIPTION = (
    "The `shengji` command line: play a round and print it, re-check and print a "
    "saved one or write it as a web page, run a Monte Carlo study, a duplicate duel of two bots, or analyse "
    "one hand's bury or trump, or the plays of a round."
)
RULES = "a preset, v3, match16, bo3 or botzone, or a variant: v3:throw_penalty=20 (default v3)"
SEED = cli_type(seed, "--seed")
WORKERS = cli_type(count, "--workers", high=1024)
# each bot with a text form (shengji.bots.TEXT_BOTS) as the help texts show it: its text form,
# what it is, and whether it plays natively (as a study's baseline can)
BOT_FORMS = {
    "random": ("random", "random legal plays", True),
    "greedy": ("greedy:call=eager,patience=5", "rules; calling, burying as settings", True),
    "expert": ("expert:void_risk=3", "a club player's rules, each a setting", True),
    "pimc": ("pimc:rollouts=200", "a determinizing search: slow", False),
    "search": ("search", "the sharper pimc, the strongest: slow", False),
    "learned": ("learned:path=ckpt.npz", "a network; learned: the shipped one", True),
    "process": ("process:cmd=./mybot", "a program on the external-bot protocol", False),
    "botzone": ("botzone:cmd=./mybot", "a Botzone Tractor bot (botzone rules)", False),
}


class Parser(argparse.ArgumentParser):
    """Bad usage is one line (and exit status 2), not the usage block and then the error."""

    def error(self, message: str) -> NoReturn:
        """Exit with status 2 and the error in one line."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def bots_help(native: bool = False) -> str:
    """Every bot of TEXT_BOTS by its text form and what it is, for a help text; `native`: only
    those that play natively, the others named after them."""
    forms = {name: BOT_FORMS.get(name, (name, "", True)) for name in TEXT_BOTS}
    listed = ", ".join(
        f"{form} ({what})" if what else form
        for form, what, plays_natively in forms.values()
        if plays_natively or not native
    )
    if not native:
        return f"{listed}; settings after a colon (docs/manual/bots.md)"
    others = [name for name, (_, _, plays_natively) in forms.items() if not plays_natively]
    return f"{listed} (not {', '.join(others)}: they play in Python, round by round)"


def main(argv: list[str] | None = None) -> int:
    """The `shengji` command: parse `argv` (default: the process's arguments) and run it;
    0 when done, else an exit status (2 for bad input, 1 for a missing extra, 128 + the signal
    when interrupted)."""
    words = sys.argv[1:] if argv is None else argv
    if not words:  # a newcomer's first try: the commands, not an error about one
        sys.stderr.write(build_parser().format_help())
        return 2
    # the command's name before it is parsed: a signal meanwhile gets the same line
    command = command_of(words)
    try:
        # SIGTERM and SIGHUP end every command as Ctrl-C does, from here on: one line and
        # 128 + the signal, whatever the command was doing
        with stopping_on_signals():
            args = build_parser().parse_args(argv)
            COMMANDS[args.command](args)
    except BrokenPipeError:
        # the reader has gone (`shengji demo | head`): no error, and none again when Python
        # flushes the closed output at exit; the status of a process SIGPIPE ends
        if sys.stdout is not None:  # None: closed from the start, nothing to flush
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + getattr(signal, "SIGPIPE", 13)
    except (ValueError, OSError) as exc:
        fail(2, f"shengji: error: {exc}")
    except MissingExtra as exc:
        fail(1, f"shengji: error: {exc}")
    except KeyboardInterrupt as stop:
        # stopped: a further signal changes nothing while Python exits (Ray's exit hooks
        # take a while), the status stays the first signal's
        for s in (signal.SIGINT, *STOP_SIGNALS):
            signal.signal(s, signal.SIG_IGN)
        end_bot_processes()  # any a signal cut the run's closing short of
        fail(128 + getattr(stop, "signum", signal.SIGINT), interrupted_line(command))
    return 0


def fail(status: int, line: str) -> NoReturn:
    """End the command: `line` on stderr, exit status `status`."""
    sys.stderr.write(line + "\n")
    sys.exit(status)


def build_parser() -> Parser:
    """The parser of every command and its options."""
    parser = Parser(prog="shengji", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"shengji {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    add_study(sub)
    add_duel(sub)
    add_ladder(sub)
    add_distill(sub)
    add_demo(sub)
    add_simulate(sub)
    add_analyze(sub)
    add_replay(sub)
    add_view(sub)
    add_play(sub)
    add_serve_bot(sub)
    add_botzone(sub)
    add_botzone_match(sub)
    return parser


def add_study(sub: Any) -> None:
    """`shengji study NAME`."""
    p = sub.add_parser(
        "study",
        help="Monte Carlo studies: trump-calling, burying",
        description="Deal many rounds and measure, with 95% intervals. trump-calling: one "
        "seat's hand and the bottom, and calling strategies (eager, patient with "
        "3, 5 or 7 cards of a suit, never) for four --bots in first rounds: "
        "the declarations of every deal, and every --play-every-th deal played "
        "out. burying: burying strategies (low, voids, points, random, "
        "low_voids) played out by --bots on the same deals, with differences "
        "against low paired by deal. Results go to OUT: summary.json, "
        "deals.parquet (one row per deal) and PNG plots. Finished chunks are kept "
        "if the run is interrupted (Ctrl-C, SIGTERM); running the same study into "
        "the same folder continues it; a folder holding another study is refused.",
    )
    p.add_argument("name", choices=["trump-calling", "burying"], help="the study to run")
    p.add_argument("--rules", default="v3", help=RULES)
    p.add_argument(
        "--deals",
        type=cli_type(count, "--deals"),
        default=100_000,
        help="number of deals (default 100,000: a few seconds on 2 cores "
        "for trump-calling, about 25 s for burying)",
    )
    p.add_argument(
        "--seed", type=SEED, default=0, help="seed: deal i depends on (seed, i) only (default 0)"
    )
    p.add_argument(
        "--workers",
        type=WORKERS,
        default=None,
        help="worker processes (default: one per core; 1 runs in this "
        "process); the results do not depend on it",
    )
    add_out(p, "study", "study-NAME-DIGEST")
    p.add_argument(
        "--strategies",
        default=None,
        metavar="A,B,...",
        help="compare only these strategies (trump-calling: eager, patient3, "
        "patient5, patient7, never; burying: low, voids, points, random, "
        "low_voids; default all)",
    )
    p.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="local: processes on this machine (default); ray: Ray tasks, on a "
        "local Ray started for the run or on --ray-address (needs "
        "pip install 'shengji[ray]')",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="join the Ray cluster at ADDR (with --backend ray); a host:port "
        "where nothing answers within 10 s stops the run",
    )
    p.add_argument(
        "--play-every",
        type=cli_type(count, "--play-every", low=0),
        default=None,
        metavar="K",
        help="trump-calling: also play deal i out when i %% K == 0, for "
        "dealer_holds and level_delta_mean (default 10; 1: every deal; "
        "0: none)",
    )
    p.add_argument(
        "--bots",
        default=None,
        choices=["greedy", "expert", "random"],
        help="who plays the rounds out (default greedy): burying, greedy, expert or random "
        "bots after the bury; trump-calling, greedy or expert bots with each calling strategy",
    )
    p.add_argument(
        "--against",
        default=None,
        metavar="SPEC",
        help="the baseline each strategy plays in duplicate against, for its "
        "duel_score: one of the study's strategies (default the first) or a bot that plays "
        f"natively: {bots_help(native=True)}",
    )
    add_resume(p, "study")
    add_conditions(p)


def add_duel(sub: Any) -> None:
    """`shengji duel --a SPEC --b SPEC`."""
    p = sub.add_parser(
        "duel",
        help="two bots in duplicate: each deal played twice, the teams swapped",
        description="Bot A (seats 0 and 2) against bot B (seats 1 and 3) on the same deals, "
        "each deal played again with the teams swapped and the same cards to the "
        "same seats, so the luck of the cards cancels out. score: A's level "
        "advantage over B a deal (A's rise when A rises, minus B's when B rises, "
        "the mean of the two rounds); A's and B's hold rates as dealer and points "
        "as defenders; with --matches, the share of matches A wins. Results go to "
        "OUT as for a study (summary.json, deals.parquet, a plot), continued by "
        "the same command after an interruption.",
    )
    p.add_argument(
        "--a",
        required=True,
        metavar="SPEC",
        help=f"team A's bot, by its text form: {bots_help()}",
    )
    p.add_argument("--b", required=True, metavar="SPEC", help="team B's bot (as --a)")
    p.add_argument(
        "--deals",
        type=cli_type(count, "--deals"),
        default=None,
        help=f"number of deals, each played twice (default {DUEL_DEALS:,}: "
        "a few seconds on 2 cores for greedy bots)",
    )
    p.add_argument(
        "--matches",
        type=cli_type(count, "--matches"),
        default=None,
        help="play this many whole matches instead, each twice",
    )
    p.add_argument(
        "--first-round",
        action="store_true",
        help="deals as first rounds (where the rules say so, declaring picks the dealer)",
    )
    p.add_argument("--rules", default="v3", help=RULES)
    p.add_argument(
        "--seed", type=SEED, default=0, help="seed: deal i depends on (seed, i) only (default 0)"
    )
    add_worker_processes(p)
    p.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="local: processes on this machine (default); ray: Ray tasks",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="join the Ray cluster at ADDR (with --backend ray)",
    )
    add_out(p, "duel", "duel-DIGEST")
    add_resume(p, "duel")
    add_conditions(p)


def add_ladder(sub: Any) -> None:
    """`shengji ladder --bots SPEC [SPEC ...]`."""
    p = sub.add_parser(
        "ladder",
        help="every pair of bots in duplicate: a payoff cross-table and standings",
        description="Every pair of the bots plays a duplicate duel on the same frozen deals "
        "(seed 0: the evaluation deals). The cross-table gives the row bot's score a deal "
        "against the column bot with its paired 95% interval; the standings each bot's "
        "mean score against the field, its leveling rate (its levels over all the levels "
        "gained in its rounds) and, with --matches, the share of whole matches it won. "
        "Each pair's duel is a folder under OUT, continued by the same command after an "
        "interruption.",
    )
    p.add_argument(
        "--bots",
        required=True,
        nargs="+",
        metavar="SPEC",
        help="two bots or more, separated by spaces or commas (a part with = and no colon is "
        f"a setting of the bot before it), by their text forms: {bots_help()}",
    )
    p.add_argument(
        "--deals",
        type=cli_type(count, "--deals"),
        default=2_000,
        help="deals a pair, each played twice (default 2,000: a few seconds a pair of "
        "native bots, 20 minutes a pair with pimc or search on 2 cores)",
    )
    p.add_argument(
        "--matches",
        type=cli_type(count, "--matches", low=0),
        default=0,
        help="whole matches a pair too, each played twice (default 0: none)",
    )
    p.add_argument("--rules", default="v3", help=RULES)
    p.add_argument(
        "--seed", type=SEED, default=0, help="seed of the deals (default 0, the evaluation deals)"
    )
    add_worker_processes(p)
    add_out(p, "ladder", "ladder-DIGEST")
    add_resume(p, "ladder")


def add_distill(sub: Any) -> None:
    """`shengji distill`."""
    p = sub.add_parser(
        "distill",
        help="training data from the search: its decisions and its values of each candidate",
        description="The sharper search plays DEALS deals at all four seats; each of its plays "
        "with two or more candidates is written down with the seat's observation, the "
        "candidates, the search's value of each (mean level change, its standard error, the "
        "worlds it was played in), the play chosen, the expert's play and the round's "
        "result. Written as chunks into OUT, which the same command continues (more deals "
        "extend it); examples/train_distill.py trains the learned bot's network on it. "
        "About 7 deals (350 decisions) a second on 2 cores.",
    )
    p.add_argument("--rules", default="v3", help=RULES)
    p.add_argument(
        "--deals",
        type=cli_type(count, "--deals"),
        default=1_000,
        help="deals to play (default 1,000: about 2.5 minutes on 2 cores)",
    )
    p.add_argument(
        "--seed", type=SEED, default=0, help="seed of the deals and the search (default 0)"
    )
    p.add_argument(
        "--rollouts",
        type=cli_type(count, "--rollouts"),
        default=None,
        help="the search's rollouts a decision (default the sharper search's, 390)",
    )
    p.add_argument(
        "--others",
        default=None,
        metavar="BOTS",
        help="for variety, bots that play one team in a share of the deals, the search the "
        "other, its decisions noted as ever: expert,greedy (each bot as many deals, at each "
        "team as often)",
    )
    p.add_argument(
        "--other-share",
        type=float,
        default=None,
        metavar="SHARE",
        help="the share of the deals the --others play in (default 0.25: every fourth deal)",
    )
    add_worker_processes(p)
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="output folder (default distill-RULES-seedSEED, -rolloutsN with --rollouts, "
        "-others-BOT-BOT-SHARE with --others: the same command continues it, more deals "
        "extend it; a folder of other rules, seed, rollouts or others is refused)",
    )


def add_worker_processes(p: argparse.ArgumentParser) -> None:
    """--workers of a command run in worker processes (duel, ladder)."""
    p.add_argument(
        "--workers",
        type=WORKERS,
        default=None,
        help="worker processes (default: one per core); the results do not depend on it",
    )


def add_out(p: argparse.ArgumentParser, what: str, own: str) -> None:
    """--out of a command whose run is a folder the same command continues."""
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help=f"output folder (default: this command's own, {own}, DIGEST naming the options "
        "that decide the numbers: the same command continues it, another command gets "
        f"another; a folder holding another {what} is refused)",
    )


def add_resume(p: argparse.ArgumentParser, what: str) -> None:
    """--resume of a command whose run is a folder the same command continues."""
    p.add_argument(
        "--resume",
        action="store_true",
        help=f"continue the {what} already in the folder (an error if there is none), "
        "computing only what is missing",
    )


def add_demo(sub: Any) -> None:
    """`shengji demo`."""
    p = sub.add_parser(
        "demo",
        help="play one round and print it trick by trick",
        description="Deal one round with the chosen bots, play it and print the deal, the "
        "declarations, the bottom and every trick. --save writes its record (JSON), "
        "which `shengji replay` checks again and `shengji view` shows as a web page. "
        "--match plays a whole match instead, printed a line a round.",
    )
    p.add_argument("--rules", default="v3", help=RULES)
    p.add_argument("--seed", type=SEED, default=0, help="round seed (default 0)")
    p.add_argument(
        "--bots",
        default="greedy",
        metavar="SPEC",
        help=f"a bot for all four seats, or four comma-separated (default greedy): {bots_help()}",
    )
    p.add_argument("--save", metavar="FILE", help="also write the round (or match) record as JSON")
    p.add_argument(
        "--match",
        action="store_true",
        help="play a whole match from levels 2 (round k seeded round_seed(seed, k))",
    )


def add_simulate(sub: Any) -> None:
    """`shengji simulate`."""
    p = sub.add_parser(
        "simulate",
        help="rounds or matches with chosen bots, summed up",
        description="Play rounds (native, in worker threads) or whole matches with the chosen "
        "bots and print a table of results with 95% intervals.",
    )
    p.add_argument("--rules", default="v3", help=RULES)
    p.add_argument(
        "--rounds",
        type=cli_type(count, "--rounds", high=10**8),
        default=None,
        help="rounds to play (default 10,000; at most 100,000,000)",
    )
    p.add_argument(
        "--matches",
        type=cli_type(count, "--matches", high=MAX_RUN_DEALS),
        default=None,
        help="play this many whole matches instead of rounds",
    )
    p.add_argument(
        "--bots",
        default="greedy",
        metavar="SPEC",
        help="a bot for all seats, or four comma-separated: greedy,random,greedy,random "
        f"(default greedy); text forms: {bots_help()}",
    )
    p.add_argument("--seed", type=SEED, default=0, help="seed (default 0)")
    p.add_argument(
        "--workers", type=WORKERS, default=None, help="worker threads for rounds (default 1)"
    )
    add_conditions(p)


def add_conditions(p: argparse.ArgumentParser) -> None:
    """--predeal, --bottom and --require: how every deal is conditioned (shengji.core.deals)."""
    p.add_argument(
        "--predeal",
        action="append",
        default=[],
        metavar="SEAT=CARDS",
        help="cards fixed to a seat (0..3, absolute; in a deal the dealer, the "
        'first drawer, draws first) in every deal: "0=BJ BJ 2S", '
        "repeated or ';'-separated; the rest is dealt uniformly",
    )
    p.add_argument(
        "--bottom", default=None, metavar="CARDS", help="cards fixed to the bottom in every deal"
    )
    p.add_argument(
        "--require",
        action="append",
        default=None,
        metavar="CLAUSE",
        help="a count every deal's place holds, dealt directly however rare (sj.require): "
        '"0: spades >= 8", "bottom: points >= 20"; PLACE 0..3 or bottom, GROUP a suit, '
        "jokers, points, a rank or a card, OP >=, >, <=, <, ==; repeat for more",
    )


def add_analyze(sub: Any) -> None:
    """`shengji analyze bury`, `trump`, `play` and `round`."""
    p = sub.add_parser(
        "analyze",
        help="one hand: which cards to bury, which trump to declare; a round's plays",
        description="Play each choice of one hand out in the same sampled worlds (uniform deals "
        "of the cards it cannot see) and rank the choices by the dealer's team's "
        "mean level change, each with the 95% interval of its difference to the "
        "best, paired by world. bury: the dealer's 33 cards, the bottom taken up, "
        "under a trump it declared; the candidates are each greedy bury strategy's "
        "choice, yours (--candidate) and a search from the best. trump: a 25-card "
        "hand at the end of the draw, its team dealing; each trump it could "
        "declare. play: every legal play of one decision of a saved round, from what "
        "its seat knew then. round: every play of a saved round against the best, "
        "written into the record for shengji view.",
    )
    what = p.add_subparsers(dest="what", required=True)
    bury = what.add_parser(
        "bury",
        help="rank buries of the dealer's 33 cards",
        description="Rank buries of the dealer's 33 cards (seat 0, the "
        "bottom taken up) under the trump it declared.",
    )
    bury.add_argument(
        "--hand", required=True, help='the dealer\'s 33 cards, e.g. "BJ BJ 2S AS ..."'
    )
    bury.add_argument(
        "--trump",
        required=True,
        help="the trump declared: level then suit, 2S, 10H, AC; 2NT: no trump",
    )
    bury.add_argument(
        "--candidate",
        action="append",
        default=None,
        metavar="CARDS",
        help="a bury of your own, 8 cards of the hand (repeat for more)",
    )
    bury.add_argument(
        "--search",
        type=cli_type(count, "--search", low=0, high=10**9),
        default=40_000,
        metavar="N",
        help="the most play-outs the search from the best bury may take "
        "(default 40,000: about half a second with greedy bots; 0: no "
        "search)",
    )
    add_analysis_options(bury)
    trump = what.add_parser(
        "trump",
        help="rank the trumps a 25-card hand could declare",
        description="Rank the trumps a 25-card hand (seat 0, at the end "
        "of the draw, its team dealing) could declare.",
    )
    trump.add_argument("--hand", required=True, help="the seat's 25 cards")
    trump.add_argument("--level", required=True, help="the level played: 2..10, J, Q, K, A")
    add_analysis_options(trump)
    play = what.add_parser(
        "play",
        help="rank every legal play of one decision of a saved round or of a position",
        description="Rank every legal play of one seat's decision in a saved round (shengji "
        'demo --save), or of the next play of a position (a JSON file {"position": '
        '{"hands": [the four hands as the play began], "trump": "2S", '
        '"dealer": 0, "plays": [every play since, in order], ...}}, the arguments of '
        "sj.position): each played out by native bots in the same worlds, sampled exactly "
        "from what that seat knew then (never the hands it could not see), ranked by its "
        "team's mean level change, each with the 95% interval of its difference to the "
        "best, paired by world. --exact: the endgame solver's values with every hand known.",
    )
    play.add_argument("file", help="a JSON round record (shengji demo --save) or position")
    play.add_argument(
        "--trick",
        type=cli_type(count, "--trick", low=1, high=10**6),
        help="in a record, the trick, from 1 (as shengji replay and the viewer number them)",
    )
    play.add_argument(
        "--seat",
        type=cli_type(count, "--seat", low=0, high=3),
        help="in a record, the seat deciding: 0..3",
    )
    play.add_argument(
        "--exact",
        action="store_true",
        help="the endgame solver's exact values, every hand known (a lead of at most 8 "
        "cards a hand)",
    )
    add_play_options(play, 1000)
    add_payoff_option(play)
    round_ = what.add_parser(
        "round",
        help="every play of a saved round against the best, for shengji view",
        description="Every play of a saved round (or of one seat) analysed as `analyze "
        "play` analyses one: its cost against the best play in its team's levels and "
        "points, printed as a table and, with --out, written into the record's "
        "annotations, which shengji view shows. Nothing is written for a record that "
        "does not replay.",
    )
    round_.add_argument("file", help="a JSON round record (shengji demo --save)")
    round_.add_argument(
        "--seat",
        type=cli_type(count, "--seat", low=0, high=3),
        default=None,
        help="only this seat's plays (default: every seat's)",
    )
    round_.add_argument(
        "--out",
        "-o",
        default=None,
        metavar="FILE",
        help="write the annotated record here (a JSON record for shengji view)",
    )
    add_play_options(round_, 200)
    add_payoff_option(bury)
    add_payoff_option(trump)


def add_payoff_option(p: argparse.ArgumentParser) -> None:
    """--payoff [N]: the payoff table of the best N choices."""
    p.add_argument(
        "--payoff",
        nargs="?",
        const=8,
        default=0,
        type=cli_type(count, "--payoff", high=1000),
        metavar="N",
        help="also print the payoff table of the best N choices (default 8): every pair's "
        "mean difference in level change with its paired 95%% interval",
    )


def add_play_options(p: argparse.ArgumentParser, worlds: int) -> None:
    """The options of analyze play and round: worlds, bots, seed, max-candidates and
    workers."""
    p.add_argument(
        "--worlds",
        type=cli_type(count, "--worlds", high=1_000_000),
        default=worlds,
        help=f"worlds sampled at each decision, the same for every play (default {worlds:,})",
    )
    p.add_argument(
        "--bots",
        default="expert",
        help="the native bots that play the worlds out: expert, greedy or random (options "
        "after colons), for every seat or four separated by commas (default expert)",
    )
    p.add_argument("--seed", type=SEED, default=0, help="seed of the worlds (default 0)")
    p.add_argument(
        "--max-candidates",
        type=cli_type(count, "--max-candidates", high=10**6),
        default=100,
        metavar="N",
        help="where a decision has more than N legal plays, those played out: at a lead every "
        "unit, then throws from each category in turn up to N in all; at a follow N spread "
        "evenly over the listed follows; the play made and the bot's choice always added "
        "(default 100)",
    )
    p.add_argument(
        "--workers",
        type=WORKERS,
        default=1,
        help="threads playing the worlds out, the same numbers for any count (default 1)",
    )


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    """The options both analyses take: rules, worlds, bots, seed and workers."""
    p.add_argument("--rules", default="v3", help=RULES)
    p.add_argument(
        "--worlds",
        type=cli_type(count, "--worlds", high=1_000_000),
        default=2000,
        help="sampled worlds, the same for every choice (default 2,000)",
    )
    p.add_argument(
        "--bots",
        default="greedy",
        help="who plays, for every seat or four separated by commas (default greedy; a "
        f"search is slow here, about 0.15 s a play-out at pimc:rollouts=100): {bots_help()}",
    )
    p.add_argument("--seed", type=SEED, default=0, help="seed (default 0)")
    p.add_argument(
        "--workers",
        type=WORKERS,
        default=1,
        help="processes playing the worlds of search bots such as pimc, the same numbers "
        "for any count (default 1; native bots play in one)",
    )


def add_replay(sub: Any) -> None:
    """`shengji replay FILE`."""
    p = sub.add_parser(
        "replay",
        help="re-check a saved round or match record and print it",
        description="Play a saved round record (shengji demo --save, RoundRecord.to_dict()) "
        "again through the engine, checking every action against the rules and "
        "every trick against the plain reference, then print it. A match record "
        "(shengji demo --match --save, shengji play) is checked round by round and "
        "printed a line a round. A record that does not replay exactly is refused "
        "with the first difference.",
    )
    p.add_argument("file", help="a JSON round or match record (shengji demo --save)")


def add_view(sub: Any) -> None:
    """`shengji view FILE [-o OUT]`."""
    p = sub.add_parser(
        "view",
        help="a saved round or match record as one HTML page",
        description="Replay a saved round record (shengji demo --save) or match record "
        "(MatchRecord.to_dict()) and write one self-contained HTML page of it, which opens "
        "from the file with no server or network: the hands as cards, the declarations, the "
        "bury and the bottom, the tricks one by one (buttons and the arrow keys), the "
        "defenders' points, the settlement and, where the record is annotated, each play's "
        "cost and the best alternative; a match round by round. A record that does not "
        "replay is refused and nothing is written.",
    )
    p.add_argument("file", help="a JSON round or match record")
    p.add_argument(
        "-o",
        "--out",
        default=None,
        metavar="FILE",
        help="the page to write (default: the record's name with .html)",
    )


def add_play(sub: Any) -> None:
    """`shengji play`."""
    p = sub.add_parser(
        "play",
        help="play a seat yourself in the browser, bots at the others, a coach beside",
        description="Serve a table on 127.0.0.1 and open it in the browser: you play --seat "
        "(the deal card by card with its shows, the bury, every trick) against --bots, a "
        "round or with --match a whole match. The coach weighs each of your plays (after "
        "each trick, or at the round's end) against the best, in levels and points, and a "
        "hint shows what the search would play. Every round is saved in --out as a record "
        "(shengji view, replay and analyze round open it); --resume DIR goes on with a game "
        "saved there. Ctrl-C stops the server, the game saved. Needs the play extra.",
    )
    # the game's settings default to None here: --resume takes a game's own, and refuses these
    p.add_argument("--rules", default=None, help=RULES)
    p.add_argument(
        "--bots",
        default=None,
        metavar="SPEC",
        help="a bot for the three other seats, or three comma-separated in seat order "
        f"(default expert; search plays stronger and slower): {bots_help()}",
    )
    p.add_argument(
        "--seat",
        type=cli_type(count, "--seat", low=0, high=3),
        default=None,
        help="your seat, 0..3 (default 0)",
    )
    p.add_argument("--match", action="store_true", help="a whole match from levels 2")
    p.add_argument("--seed", type=SEED, default=None, help="the deal's seed (default 0)")
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="the folder the game is saved in (default shengji-play-RULES-SEED)",
    )
    p.add_argument("--resume", default=None, metavar="DIR", help="go on with the game saved in DIR")
    p.add_argument(
        "--port",
        type=cli_type(integer, "--port", low=0, high=65535),
        default=0,
        help="the port (default: a free one)",
    )
    p.add_argument(
        "--no-browser", action="store_true", help="print the address only, open no browser"
    )
    p.add_argument(
        "--coach-worlds",
        type=cli_type(count, "--coach-worlds", high=100_000),
        default=None,
        help="worlds the coach weighs each of your plays in (default 200, about 0.1 to 0.5 "
        "s a play)",
    )


def add_botzone(sub: Any) -> None:
    """`shengji botzone --bot SPEC`."""
    p = sub.add_parser(
        "botzone",
        help="one of our bots as a Botzone Tractor bot, over stdin and stdout",
        description="Play one seat of Botzone's Tractor game (the botzone rules: "
        "docs/design/botzone.md) as a greedy or an expert bot: read Botzone's JSON input on "
        "standard input and answer with card ids. By default in Botzone's long-running "
        "mode (each answer followed by >>>BOTZONE_REQUEST_KEEP_RUNNING<<<, each later "
        "request read alone); --simple answers one turn from the whole input and ends.",
    )
    p.add_argument(
        "--bot", required=True, help="the bot's text form: greedy or expert, with their settings"
    )
    p.add_argument(
        "--simple",
        action="store_true",
        help="Botzone's simple mode: answer one turn from the whole input, then end",
    )


def add_botzone_match(sub: Any) -> None:
    """`shengji botzone-match --bot CMD`."""
    p = sub.add_parser(
        "botzone-match",
        help="whole matches of Botzone Tractor bots, judged here",
        description="Play whole matches (levels 2 to A) of four Botzone Tractor bots under the "
        "botzone rules, our engine their judge (docs/design/botzone.md): a bot builder's "
        "offline test. Each bot is a command line speaking Botzone's protocol, in either of "
        "its modes; one of ours is `shengji botzone --bot expert`. Each match's record is "
        "written to --out as JSON (shengji view shows it); a bot that fails forfeits its "
        "round, named on the standard error.",
    )
    p.add_argument(
        "--bot",
        action="append",
        required=True,
        metavar="CMD",
        help="a bot's command line, given once (every seat) or four times (seats 0 to 3)",
    )
    p.add_argument(
        "--matches",
        type=cli_type(count, "--matches", high=10**6),
        default=1,
        help="matches to play (default 1); match i is seeded round_seed(seed, i)",
    )
    p.add_argument("--seed", type=SEED, default=0, help="seed (default 0)")
    p.add_argument(
        "--timeout",
        type=float,
        default=1.0,
        help="seconds a bot's turn may take, its first twice that (default 1)",
    )
    p.add_argument(
        "--on-error",
        choices=("forfeit", "raise"),
        default="forfeit",
        help="a failing bot forfeits its round (default) or stops the run",
    )
    p.add_argument(
        "--out",
        default="botzone-matches",
        metavar="DIR",
        help="the folder the match records are written to (default botzone-matches)",
    )


def add_serve_bot(sub: Any) -> None:
    """`shengji serve-bot SPEC`."""
    p = sub.add_parser(
        "serve-bot",
        help="one of our bots on the external-bot protocol, over stdin and stdout",
        description="Answer each message of the external-bot protocol read on standard "
        "input (one JSON line a decision: docs/manual/external-bots.md) with the answer "
        "line of a greedy or an expert bot, until the input ends: a program in any "
        "language can play against our bots, and sj.ExternalBot(['shengji', 'serve-bot', "
        "'expert']) plays as the native expert does.",
    )
    p.add_argument("spec", help="the bot's text form: greedy or expert, with their settings")
