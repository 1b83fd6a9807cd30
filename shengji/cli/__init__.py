"""The `shengji` command line: play a round and print it, re-check and print a saved one, run
a Monte Carlo study, a duplicate duel of two bots, or analyse one hand's bury or trump."""
from __future__ import annotations

import argparse
import json
import signal
import sys

import shengji as sj
from shengji._optional import MissingExtra, needs
from shengji.bots import bots_from_text
from shengji.cards import SUIT_SYMBOLS
from shengji.core.deals import parse_predeal
from shengji.errors import ArgumentError


def pretty(cards) -> str:
    """Card text with suit symbols: `A♠ 10♥ SJ`."""
    return " ".join(c if c in ("SJ", "BJ") else c[:-1] + SUIT_SYMBOLS[c[-1]]
                    for c in sj.Cards(cards)) or "-"


def print_round(rec: sj.RoundRecord, out=None) -> None:
    """A round record, readably: the declarations, the hands at the first trick, the bottom,
    every trick and the outcome."""
    out = sys.stdout if out is None else out
    trump = rec.trump
    suit = trump.suit
    print(f"Round of {rec.rules.name}, seed {rec.seed}: levels {sj.RANK_NAMES[rec.levels[0]]} "
          f"(seats 0+2) and {sj.RANK_NAMES[rec.levels[1]]} (seats 1+3).", file=out)
    for e in rec.events:
        who = f"seat {e.seat}" if e.seat is not None else "the table"
        card = f" {pretty(e.cards)}" if e.cards else ""
        when = {"drawing": f"at draw {e.at}", "dealt": "after the deal",
                "buried": "after burying"}[e.when]
        print(f"  deal {e.deal}, {when}: {who} {e.action.replace('_', ' ')}{card}", file=out)
    print(f"Dealer seat {rec.dealer}, level {sj.RANK_NAMES[trump.level]}, trump "
          f"{SUIT_SYMBOLS[suit] if suit else 'none (无主)'}"
          f"{f', declared by seat {rec.declarer}' if rec.declarer is not None else ''}.",
          file=out)
    for seat, hand in enumerate(rec.hands):
        print(f"  seat {seat}: {pretty_hand(hand, trump)}", file=out)
    for b in rec.buries:
        print(f"  seat {b.seat} buries {pretty(b.cards)}", file=out)
    for i, t in enumerate(rec.tricks, 1):
        shown = "  ".join(f"{s}:{pretty(p)}" for s, p in zip(t.seats, t.plays))
        failed = f"  (throw {pretty(t.attempted)} failed)" if t.attempted else ""
        print(f"trick {i:2d}  {shown}  -> seat {t.winner} (+{t.points}){failed}", file=out)
    s = rec.settlement
    team = "dealer's team" if s.dealer_holds else "defenders"
    print(f"Defenders: {rec.trick_points} in tricks, penalty {rec.penalty:+d}, bottom "
          f"{rec.bottom_points} x {rec.multiplier} -> {rec.defender_points} points; "
          f"the {team} {'hold' if s.dealer_holds else 'take over'} and rise {s.rise}.",
          file=out)


def pretty_hand(hand, trump) -> str:
    """The hand's cards by category, trumps first, each from the highest card down."""
    cards: dict[str, list[str]] = {}
    for card in sorted(sj.Cards(hand), key=lambda c: sj.order(c, trump), reverse=True):
        cards.setdefault(sj.category(card, trump), []).append(card)
    return " | ".join(" ".join(pretty(c) for c in cards[cat]) for cat in "TSHCD" if cat in cards)


def print_summary(summary: dict, out=None, title: str | None = None) -> None:
    """The metrics as a table: each value with its 95% interval and count."""
    with needs("the summary table", "study"):
        from tabulate import tabulate
    out = sys.stdout if out is None else out
    if title is None:
        from shengji.studies.report import describe
        from shengji.studies.study import STUDIES
        title = describe(summary, STUDIES[summary["study"]])
    rows = [[m["name"], m["group"], "-" if m["value"] is None else f"{m['value']:.4f}",
             "-" if m["ci_low"] is None else f"[{m['ci_low']:.4f}, {m['ci_high']:.4f}]", m["n"]]
            for m in summary["metrics"]]
    print(title, file=out)
    # the values as formatted above, not re-read as numbers (tabulate would drop digits)
    print(tabulate(rows, headers=["metric", "group", "value", "95% interval", "n"],
                   disable_numparse=True,
                   colalign=("left", "left", "right", "right", "right")), file=out)


def study(args) -> None:
    """`shengji study`: run a study with a progress bar and print its table."""
    with needs("shengji study", "study"):
        from tqdm import tqdm

    from shengji.studies import study as st
    with tqdm(total=args.deals, unit="deal", unit_scale=True, desc=args.name,
              disable=None) as bar:
        summary = st.run_study(args.name, args.rules, deals=args.deals, seed=args.seed,
                               workers=args.workers, out=args.out, resume=args.resume,
                               progress=bar.update, backend=args.backend,
                               ray_address=args.ray_address,
                               strategies=None if args.strategies is None
                               else args.strategies.split(","),
                               play_every=args.play_every, bots=args.bots,
                               against=args.against, predeal=parse_predeal(args.predeal),
                               bottom=args.bottom)
    print_summary(summary)
    print(f"written: {args.out}/summary.json, deals.parquet and the plots")


def duel(args) -> None:
    """Two bots in duplicate, into a study folder."""
    with needs("shengji duel", "study"):
        from tqdm import tqdm
    deals = DUEL_DEALS if args.deals is None and args.matches is None else args.deals
    with tqdm(total=args.matches or deals, unit="match" if args.matches else "deal",
              unit_scale=True, desc="duel", disable=None) as bar:
        result = sj.duel(args.a, args.b, deals=deals, matches=args.matches, rules=args.rules,
                         seed=args.seed, first_round=args.first_round, workers=args.workers,
                         backend=args.backend, ray_address=args.ray_address, out=args.out,
                         resume=args.resume, progress=bar.update,
                         predeal=parse_predeal(args.predeal), bottom=args.bottom)
    print_summary(result.summary)
    plot = "wins.png" if args.matches else "score.png"
    print(f"written: {args.out}/summary.json, deals.parquet and {plot}")


DUEL_DEALS = 100_000      # the duel's default on the command line


def simulate(args) -> None:
    """Rounds or matches with the chosen bots, summed up with 95% intervals."""
    import numpy as np

    from shengji.studies.stats import Sums, level_delta, metric
    bots = bots_from_text(args.bots)
    metrics: list[dict] = []
    if args.matches and args.rounds is not None:
        raise ArgumentError("--rounds and --matches exclude each other: play rounds or matches")
    if args.matches and args.workers is not None:
        raise ArgumentError("--workers is for rounds: matches are played one after another")
    rounds = 10_000 if args.rounds is None else args.rounds
    predeal = parse_predeal(args.predeal)
    if args.matches and (predeal or args.bottom):
        raise ArgumentError("--predeal and --bottom condition rounds: matches take neither")
    if args.matches:
        with needs("shengji simulate", "study"):
            from tqdm import tqdm
        winners, lengths = [], []
        for i in tqdm(range(args.matches), unit="match", desc="matches", disable=None):
            m = sj.play_match(args.rules, seed=sj.round_seed(args.seed, i), bots=bots)
            winners.append(m.winner)
            lengths.append(len(m.rounds))
        w = np.array(winners)
        metrics = [metric("wins", "team=0+2", Sums.of(w == 0)),
                   metric("wins", "team=1+3", Sums.of(w == 1)),
                   metric("rounds_mean", "all", Sums.of(lengths))]
        what = f"{args.matches:,} matches"
    else:
        frame = sj.simulate_rounds(rounds, args.rules, bots=bots, seed=args.seed,
                                   workers=args.workers or 1, predeal=predeal,
                                   bottom=args.bottom)
        holds = frame["dealer_holds"].to_numpy()
        delta = level_delta({"rise": frame["rise"].to_numpy(), "dealer_holds": holds})
        metrics += [
            metric("defender_points_mean", "all", Sums.of(frame["defender_points"].to_numpy())),
            metric("dealer_holds", "all", Sums.of(holds)),
            metric("level_delta_mean", "all", Sums.of(delta))]
        metrics += [metric("bottom_dug", "all", Sums.of(frame["multiplier"].to_numpy() > 0)),
                    metric("throws_mean", "all", Sums.of(frame["throws"].to_numpy())),
                    metric("failed_throws_mean", "all",
                           Sums.of(frame["failed_throws"].to_numpy()))]
        fixed = "".join(f", seat {seat} holds {cards}" for seat, cards in predeal.items())
        what = f"{rounds:,} rounds{fixed}{f', bottom {args.bottom}' if args.bottom else ''}"
    print_summary({"metrics": metrics},
                  title=f"{what}, rules {args.rules}, bots {args.bots}, seed {args.seed}"
                        + ("" if args.matches else " (seat 0 deals every round: its team, "
                                                   "seats 0 and 2, is the dealer's team)"))


def analyze(args) -> None:
    """The ranked choices of one hand, each with the interval of its difference to the best."""
    with needs("shengji analyze", "study"):
        from tabulate import tabulate

    from shengji.studies.analyze import analyze_bury, analyze_trump, trump_of, trump_text
    bots = bots_from_text(args.bots)
    if args.what == "bury":
        trump = trump_of(args.trump)
        frame = analyze_bury(args.hand, trump, args.rules, args.worlds, bots, args.seed,
                             args.candidate, search=args.search)
        title = f"Burying from {pretty_hand(args.hand, trump)}, trump {trump_text(trump)}"
    else:
        frame = analyze_trump(args.hand, args.level, args.rules, args.worlds, bots, args.seed)
        title = f"Trumps for {pretty(args.hand)} at level {args.level}"
    choice = frame.columns[0]
    rows = [[rank, pretty(r[choice]) if choice == "bury" else r[choice],
             f"{r.level_delta_mean:+.3f}",
             "best" if rank == 1 else f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]",
             f"{r.defender_points_mean:.1f}", f"{r.dealer_holds:.3f}"]
            + ([r.by] if "by" in frame else [])
            for rank, (_, r) in enumerate(frame.iterrows(), 1)]
    print(f"{title}: rules {args.rules}, bots {args.bots}, {args.worlds:,} worlds, "
          f"seed {args.seed}")
    print(tabulate(rows, headers=["#", choice, "level change", "minus the best (95%)",
                                  "defenders' points", "dealer holds"]
                   + (["by"] if "by" in frame else []),
                   colalign=("right", "left", "right", "right", "right", "right", "left"),
                   disable_numparse=True))


class Parser(argparse.ArgumentParser):
    """Bad usage is one line (and exit status 2), not the usage block and then the error."""

    def error(self, message: str):  # type: ignore[override]
        """Exit with status 2 and the error in one line."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main(argv: list[str] | None = None) -> int:
    """The `shengji` command: parse `argv` (default: the process's arguments) and run it;
    0 when done, else an exit status (2 for bad input, 128 + the signal when interrupted)."""
    from shengji.core.validate import MAX_RUN_DEALS, count, cli_type, seed
    parser = Parser(prog="shengji", description=__doc__)
    parser.add_argument("--version", action="version", version=f"shengji {sj.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    seed_arg = cli_type(seed, "--seed")
    p_study = sub.add_parser(
        "study", help="Monte Carlo studies: trump-calling, burying",
        description="Deal many rounds and measure, with 95% intervals. trump-calling: one "
                    "seat's hand and the bottom, and calling strategies (eager, patient with "
                    "3, 5 or 7 cards of a suit, never) for four greedy bots in first rounds: "
                    "the declarations of every deal, and every --play-every-th deal played "
                    "out. burying: burying strategies (low, voids, points, random, "
                    "low_voids) played out by --bots on the same deals, with differences "
                    "against low paired by deal. Results go to OUT: summary.json, "
                    "deals.parquet (one row per deal) and PNG plots. Finished chunks are kept "
                    "if the run is interrupted (Ctrl-C, SIGTERM); running the same study into "
                    "the same folder continues it; a folder holding another study is refused.")
    p_study.add_argument("name", choices=["trump-calling", "burying"], help="the study to run")
    p_study.add_argument("--rules", default="v3", help="preset: v3, match16 or bo3 (default v3)")
    p_study.add_argument("--deals", type=cli_type(count, "--deals"), default=100_000,
                         help="number of deals (default 100,000: a few seconds on 2 cores "
                              "for trump-calling, about 25 s for burying)")
    p_study.add_argument("--seed", type=seed_arg, default=0,
                         help="seed: deal i depends on (seed, i) only (default 0)")
    p_study.add_argument("--workers", type=cli_type(count, "--workers", high=1024), default=None,
                         help="worker processes (default: one per core; 1 runs in this "
                              "process); the results do not depend on it")
    p_study.add_argument("--out", default="study-out",
                         help="output folder (default study-out)")
    p_study.add_argument("--strategies", default=None, metavar="A,B,...",
                         help="compare only these strategies (trump-calling: eager, patient3, "
                              "patient5, patient7, never; burying: low, voids, points, random, "
                              "low_voids; default all)")
    p_study.add_argument("--backend", choices=["local", "ray"], default="local",
                         help="local: processes on this machine (default); ray: Ray tasks, on a "
                              "local Ray started for the run or on --ray-address (needs "
                              "pip install 'shengji[ray]')")
    p_study.add_argument("--ray-address", default=None, metavar="ADDR",
                         help="join the Ray cluster at ADDR (with --backend ray); a host:port "
                              "where nothing answers within 10 s stops the run")
    p_study.add_argument("--play-every", type=cli_type(count, "--play-every", low=0),
                         default=None, metavar="K",
                         help="trump-calling: also play deal i out when i %% K == 0, for "
                              "dealer_holds and level_delta_mean (default 10; 1: every deal; "
                              "0: none)")
    p_study.add_argument("--bots", default=None, choices=["greedy", "random"],
                         help="burying: the bots that play the rounds out after the bury "
                              "(default greedy)")
    p_study.add_argument("--against", default=None, metavar="SPEC",
                         help="the baseline each strategy plays in duplicate against, for its "
                              "duel_score: one of the study's strategies or a native bot "
                              "(greedy:call=eager; default the first strategy)")
    p_study.add_argument("--resume", action="store_true",
                         help="continue the study already in --out (an error if there is "
                              "none), computing only what is missing")
    p_duel = sub.add_parser(
        "duel", help="two bots in duplicate: each deal played twice, the teams swapped",
        description="Bot A (seats 0 and 2) against bot B (seats 1 and 3) on the same deals, "
                    "each deal played again with the teams swapped and the same cards to the "
                    "same seats, so the luck of the cards cancels out. score: A's level "
                    "advantage over B a deal (A's rise when A rises, minus B's when B rises, "
                    "the mean of the two rounds); A's and B's hold rates as dealer and points "
                    "as defenders; with --matches, the share of matches A wins. Results go to "
                    "OUT as for a study (summary.json, deals.parquet, a plot), continued by "
                    "the same command after an interruption.")
    p_duel.add_argument("--a", required=True, metavar="SPEC",
                        help="team A's bot: random, greedy, greedy:call=eager,patience=5, "
                             "pimc:rollouts=200 (search bots play round by round: slow), "
                             "learned (the shipped network, native) or "
                             "learned:path=ckpt.npz (another one)")
    p_duel.add_argument("--b", required=True, metavar="SPEC", help="team B's bot")
    p_duel.add_argument("--deals", type=cli_type(count, "--deals"), default=None,
                        help=f"number of deals, each played twice (default {DUEL_DEALS:,}: "
                             "a few seconds on 2 cores for greedy bots)")
    p_duel.add_argument("--matches", type=cli_type(count, "--matches"), default=None,
                        help="play this many whole matches instead, each twice")
    p_duel.add_argument("--first-round", action="store_true",
                        help="deals as first rounds (where the rules say so, declaring picks "
                             "the dealer)")
    p_duel.add_argument("--rules", default="v3", help="preset: v3, match16 or bo3 (default v3)")
    p_duel.add_argument("--seed", type=seed_arg, default=0,
                        help="seed: deal i depends on (seed, i) only (default 0)")
    p_duel.add_argument("--workers", type=cli_type(count, "--workers", high=1024),
                        default=None, help="worker processes (default: one per core); the "
                                           "results do not depend on it")
    p_duel.add_argument("--backend", choices=["local", "ray"], default="local",
                        help="local: processes on this machine (default); ray: Ray tasks")
    p_duel.add_argument("--ray-address", default=None, metavar="ADDR",
                        help="join the Ray cluster at ADDR (with --backend ray)")
    p_duel.add_argument("--out", default="duel-out", help="output folder (default duel-out)")
    p_duel.add_argument("--resume", action="store_true",
                        help="continue the duel already in --out (an error if there is none)")
    p_demo = sub.add_parser(
        "demo", help="play one round and print it trick by trick",
        description="Deal one round with the chosen bots, play it and print the deal, the "
                    "declarations, the bottom and every trick. --save writes its record (JSON), "
                    "which `shengji replay` checks again.")
    p_demo.add_argument("--rules", default="v3", help="preset: v3, match16 or bo3 (default v3)")
    p_demo.add_argument("--seed", type=seed_arg, default=0, help="round seed (default 0)")
    p_demo.add_argument("--bots", default="greedy", metavar="SPEC",
                        help="a bot for all four seats, or four comma-separated: random, "
                             "greedy, greedy:call=eager,patience=5, pimc:rollouts=200, "
                             "learned (the shipped network), learned:path=ckpt.npz "
                             "(default greedy)")
    p_demo.add_argument("--save", metavar="FILE", help="also write the round record as JSON")
    p_sim = sub.add_parser(
        "simulate", help="rounds or matches with chosen bots, summed up",
        description="Play rounds (native, in worker threads) or whole matches with the chosen "
                    "bots and print a table of results with 95% intervals.")
    p_sim.add_argument("--rules", default="v3", help="preset: v3, match16 or bo3 (default v3)")
    p_sim.add_argument("--rounds", type=cli_type(count, "--rounds", high=10 ** 8), default=None,
                       help="rounds to play (default 10,000; at most 100,000,000)")
    p_sim.add_argument("--matches", type=cli_type(count, "--matches", high=MAX_RUN_DEALS),
                       default=None, help="play this many whole matches instead of rounds")
    p_sim.add_argument("--bots", default="greedy", metavar="SPEC",
                       help="a bot for all seats, or four comma-separated: "
                            "greedy,random,greedy,random; a bot's settings follow a colon: "
                            "greedy:call=eager,patience=5,random,greedy,random; pimc plays "
                            "round by round; learned (the shipped network) or "
                            "learned:path=ckpt.npz natively (default greedy)")
    p_sim.add_argument("--seed", type=seed_arg, default=0, help="seed (default 0)")
    p_sim.add_argument("--workers", type=cli_type(count, "--workers", high=1024), default=None,
                       help="worker threads for rounds (default 1)")
    for p in (p_study, p_duel, p_sim):
        p.add_argument("--predeal", action="append", default=[], metavar="SEAT=CARDS",
                       help="cards fixed to a seat (0..3, absolute; in a deal the dealer, the "
                            "first drawer, draws first) in every deal: \"0=BJ BJ 2S\", "
                            "repeated or ';'-separated; the rest is dealt uniformly")
        p.add_argument("--bottom", default=None, metavar="CARDS",
                       help="cards fixed to the bottom in every deal")
    p_analyze = sub.add_parser(
        "analyze", help="one hand: which cards to bury, which trump to declare",
        description="Play each choice of one hand out in the same sampled worlds (uniform deals "
                    "of the cards it cannot see) and rank the choices by the dealer's team's "
                    "mean level change, each with the 95% interval of its difference to the "
                    "best, paired by world. bury: the dealer's 33 cards, the bottom taken up, "
                    "under a trump it declared; the candidates are each greedy bury strategy's "
                    "choice, yours (--candidate) and a search from the best. trump: a 25-card "
                    "hand at the end of the draw, its team dealing; each trump it could "
                    "declare.")
    what = p_analyze.add_subparsers(dest="what", required=True)
    p_bury = what.add_parser("bury", help="rank buries of the dealer's 33 cards",
                             description="Rank buries of the dealer's 33 cards (seat 0, the "
                                         "bottom taken up) under the trump it declared.")
    p_bury.add_argument("--hand", required=True, help="the dealer's 33 cards, e.g. \"BJ BJ 2S "
                                                      "AS ...\"")
    p_bury.add_argument("--trump", required=True,
                        help="the trump declared: level then suit, 2S, 10H, AC; 2NT: no trump")
    p_bury.add_argument("--candidate", action="append", default=None, metavar="CARDS",
                        help="a bury of your own, 8 cards of the hand (repeat for more)")
    p_bury.add_argument("--search", type=cli_type(count, "--search", low=0, high=10 ** 9),
                        default=40_000, metavar="N",
                        help="the most play-outs the search from the best bury may take "
                             "(default 40,000: about half a second with greedy bots; 0: no "
                             "search)")
    p_trump = what.add_parser("trump", help="rank the trumps a 25-card hand could declare",
                              description="Rank the trumps a 25-card hand (seat 0, at the end "
                                          "of the draw, its team dealing) could declare.")
    p_trump.add_argument("--hand", required=True, help="the seat's 25 cards")
    p_trump.add_argument("--level", required=True, help="the level played: 2..10, J, Q, K, A")
    for p in (p_bury, p_trump):
        p.add_argument("--rules", default="v3", help="preset: v3, match16 or bo3 (default v3)")
        p.add_argument("--worlds", type=cli_type(count, "--worlds", high=1_000_000),
                       default=2000, help="sampled worlds, the same for every choice "
                                          "(default 2,000)")
        p.add_argument("--bots", default="greedy",
                       help="who plays: greedy, random or pimc (options after colons: "
                            "pimc:rollouts=100, slow: about 0.15 s a play-out), for every "
                            "seat or four separated by commas (default greedy)")
        p.add_argument("--seed", type=seed_arg, default=0, help="seed (default 0)")
    p_replay = sub.add_parser(
        "replay", help="re-check a saved round record and print it",
        description="Play a saved round record (shengji demo --save, RoundRecord.to_dict()) "
                    "again through the engine, checking every action against the rules and "
                    "every trick against the plain reference, then print it. A record that "
                    "does not replay exactly is refused with the first difference.")
    p_replay.add_argument("file", help="a JSON round record (shengji demo --save)")
    args = parser.parse_args(argv)
    try:
        runs = {"study": study, "simulate": simulate, "duel": duel, "analyze": analyze}
        if args.command in runs:
            runs[args.command](args)
            return 0
        if args.command == "demo":
            rec = sj.play_round(args.rules, seed=args.seed, bots=bots_from_text(args.bots))
            if args.save:
                with open(args.save, "w", encoding="utf-8") as f:
                    json.dump(rec.to_dict(), f, ensure_ascii=False)
        else:
            with open(args.file, encoding="utf-8") as f:
                rec = sj.replay(json.load(f))
        print_round(rec)
    except (ValueError, OSError) as exc:
        parser.exit(2, f"shengji: error: {exc}\n")
    except MissingExtra as exc:
        parser.exit(1, f"shengji: error: {exc}\n")
    except KeyboardInterrupt as stop:
        parser.exit(128 + getattr(stop, "signum", signal.SIGINT),
                    "shengji: interrupted; the finished chunks are saved: the same "
                    "command continues the study\n" if args.command in ("study", "duel")
                    else "shengji: interrupted\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
