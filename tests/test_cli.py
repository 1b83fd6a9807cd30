"""The command line: the demo plays and prints a whole round, replay re-checks a saved one, and
bad options or files end with one clear error line."""

import json
import re
import subprocess
import sys

import pytest
from extras import require_extra

import shengji as sj
from shengji.cli import main


def test_demo_prints_every_card_and_every_point(capsys, tmp_path):
    saved = tmp_path / "round.json"
    assert main(["demo", "--rules", "bo3", "--seed", "4", "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    tricks = re.findall(r"^trick +\d+ +(.*) -> seat \d \(\+(\d+)\)", out, re.M)
    cards = sum(len(re.findall(r"(?:10|[2-9JQKA])[♠♥♣♦]|SJ|BJ", t)) for t, _ in tricks)
    assert cards == 100
    record = json.loads(saved.read_text())
    assert sum(int(p) for _, p in tricks) + record["bottom_points"] == 200
    assert f"-> {record['defender_points']} points" in out
    assert out == sj.RoundRecord.from_dict(record).text() + "\n"  # the record's own text
    assert main(["replay", str(saved)]) == 0
    assert capsys.readouterr().out == out


@pytest.mark.parametrize(
    "args,words",
    [
        (["demo", "--rules", "v4"], "unknown preset"),
        (["demo", "--bots", "smart"], "unknown bot"),
        (["replay", "/nonexistent.json"], "No such file"),
    ],
)
def test_bad_options(args, words):
    run = subprocess.run([sys.executable, "-m", "shengji", *args], capture_output=True, text=True)
    assert run.returncode == 2 and words in run.stderr and len(run.stderr.splitlines()) == 1


@pytest.mark.slow
def test_a_changed_record_is_refused(tmp_path):
    saved = tmp_path / "round.json"
    assert main(["demo", "--seed", "1", "--save", str(saved)]) == 0
    record = json.loads(saved.read_text())
    record["tricks"][3]["plays"][1], record["tricks"][3]["plays"][2] = (
        record["tricks"][3]["plays"][2],
        record["tricks"][3]["plays"][1],
    )
    saved.write_text(json.dumps(record))
    run = subprocess.run(
        [sys.executable, "-m", "shengji", "replay", str(saved)], capture_output=True, text=True
    )
    assert run.returncode == 2 and "replay" in run.stderr
    saved.write_text("[1, 2]")
    run = subprocess.run(
        [sys.executable, "-m", "shengji", "replay", str(saved)], capture_output=True, text=True
    )
    assert run.returncode == 2 and "RoundRecord" in run.stderr


def test_simulate_rounds_and_matches(capsys):
    assert (
        main(
            [
                "simulate",
                "--rounds",
                "2000",
                "--bots",
                "greedy,random,greedy,random",
                "--workers",
                "2",
                "--seed",
                "3",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "2,000 rounds, rules v3, bots greedy,random,greedy,random" in out
    holds = float(re.search(r"^dealer_holds +all +([\d.]+)", out, re.M).group(1))
    import shengji as sj

    frame = sj.simulate_rounds(2000, "v3", bots=["greedy", "random"] * 2, seed=3)
    assert holds == pytest.approx(frame["dealer_holds"].mean(), abs=1e-4)
    assert main(["simulate", "--matches", "3", "--rules", "bo3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    wins = [float(x) for x in re.findall(r"^wins +team=\S+ +([\d.]+)", out, re.M)]
    assert len(wins) == 2 and sum(wins) == pytest.approx(1)


def printed_metrics(out):
    """The rows of a summary table: name, group, value, interval's ends, n, as printed."""
    return re.findall(r"^(\S+) +(\S+) +(-?[\d.]+) +\[(-?[\d.]+), (-?[\d.]+)\] +(\d+)$", out, re.M)


def as_printed(metrics):
    return [
        (
            m["name"],
            m["group"],
            f"{m['value']:.4f}",
            f"{m['ci_low']:.4f}",
            f"{m['ci_high']:.4f}",
            str(m["n"]),
        )
        for m in metrics
    ]


def test_simulate_prints_the_library_s_metrics(capsys):
    import numpy as np

    import shengji as sj
    from shengji.studies.stats import match_metrics, round_metrics

    frame = sj.simulate_rounds(600, "v3", bots="greedy", seed=2)
    metrics = round_metrics(frame)
    value = {m["name"]: m["value"] for m in metrics}
    delta = np.where(frame["dealer_holds"], frame["rise"], -frame["rise"])
    assert value == pytest.approx(
        {
            "defender_points_mean": frame["defender_points"].mean(),
            "dealer_holds": frame["dealer_holds"].mean(),
            "level_delta_mean": delta.mean(),
            "bottom_dug": (frame["multiplier"] > 0).mean(),
            "throws_mean": frame["throws"].mean(),
            "failed_throws_mean": frame["failed_throws"].mean(),
        }
    )
    assert {m["n"] for m in metrics} == {600} and {m["group"] for m in metrics} == {"all"}
    assert main(["simulate", "--rounds", "600", "--seed", "2"]) == 0
    assert printed_metrics(capsys.readouterr().out) == as_printed(metrics)
    matches = [sj.play_match("bo3", seed=sj.round_seed(1, i), bots="greedy") for i in range(3)]
    metrics = match_metrics(iter(matches))
    assert [m["value"] for m in metrics] == pytest.approx(
        [
            np.mean([m.winner == 0 for m in matches]),
            np.mean([m.winner == 1 for m in matches]),
            np.mean([len(m.rounds) for m in matches]),
        ]
    )
    assert main(["simulate", "--matches", "3", "--rules", "bo3", "--seed", "1"]) == 0
    assert printed_metrics(capsys.readouterr().out) == as_printed(metrics)


@pytest.mark.parametrize(
    "args,words",
    [
        (["simulate", "--bots", "greedy,smart"], "bots must be a name or four"),
        (["simulate", "--bots", "greedy,smart,greedy,greedy"], "unknown bot"),
        (["simulate", "--rounds", "0"], "must be an integer from 1"),
    ],
)
def test_simulate_bad_options(args, words):
    run = subprocess.run([sys.executable, "-m", "shengji", *args], capture_output=True, text=True)
    assert run.returncode == 2 and words in run.stderr


BIG = "99999999999999999999"
BAD_INPUT = [
    # every command x bad values: exit 2, one line naming the problem, nothing written
    (["study", "trump-calling", "--deals", "0"], "--deals: must be an integer from 1"),
    (["study", "trump-calling", "--deals", BIG], "--deals: must be an integer from 1"),
    (["study", "trump-calling", "--deals", "1e5"], "--deals: must be an integer"),
    (["study", "trump-calling", "--seed", "-1"], "--seed: must be an integer from 0"),
    (["study", "trump-calling", "--seed", str(2**64)], "--seed: must be an integer from 0"),
    (["study", "trump-calling", "--workers", "0"], "--workers: must be an integer from 1"),
    (["study", "trump-calling", "--play-every", "-1"], "--play-every: must be an integer"),
    (["study", "trump-calling", "--strategies", ""], "no strategies: ''"),
    (["study", "trump-calling", "--strategies", "eager,bogus"], "'bogus'"),
    (["study", "trump-calling", "--strategies", "eager,eager"], "repeated"),
    (["study", "burying", "--play-every", "3"], "--play-every is an option of the trump"),
    (["study", "trump-calling", "--bots", "random"], "choose greedy or expert"),
    (["study", "trump-calling", "--ray-address", "127.0.0.1:1"], "only with the ray backend"),
    (["study", "burying", "--against", "pimc"], "--against: 'pimc' is not a native bot"),
    (["study", "burying", "--against", "greedy:call=eagr"], "--against: bot 'greedy:call=eagr'"),
    (["study", "trump-calling", "--rules", "v4"], "unknown preset"),
    (["study", "dealing"], "invalid choice"),
    (["simulate", "--matches", "3", "--seed", "-5"], "--seed: must be an integer from 0"),
    (["simulate", "--matches", "3", "--seed", str(2**64)], "--seed: must be an integer"),
    (["simulate", "--rounds", BIG], "--rounds: must be an integer from 1 to 100,000,000"),
    (["simulate", "--rounds", "0"], "--rounds: must be an integer from 1"),
    (["simulate", "--matches", "0"], "--matches: must be an integer from 1"),
    (["simulate", "--rounds", "10", "--matches", "2"], "--rounds and --matches exclude"),
    (["simulate", "--matches", "2", "--workers", "2"], "--workers is for rounds"),
    (["simulate", "--workers", "0"], "--workers: must be an integer from 1"),
    (["simulate", "--rules", "v4"], "unknown preset"),
    (["simulate", "--bots", "greedy,smart"], "bots must be a name or four"),
    (["demo", "--seed", "-1"], "--seed: must be an integer from 0"),
    (["demo", "--bots", "smart"], "unknown bot"),
    (["replay", "/nonexistent.json"], "No such file"),
    (
        ["demo", "--save", "/nonexistent/dir/r.json"],
        "cannot write /nonexistent/dir/r.json: No such",
    ),
    (["demo", "--bogus"], "unrecognized arguments"),
]


def test_no_command_lists_every_command(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: shengji")
    for command in ("study", "duel", "ladder", "demo", "simulate", "analyze", "replay", "view"):
        assert f"\n    {command} " in err, command


@pytest.mark.parametrize("args,words", BAD_INPUT, ids=[" ".join(a) or "none" for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_and_writes_nothing(args, words, tmp_path, capsys):
    if args[:1] in (["study"], ["duel"]):
        require_extra("study")  # a study's command line needs it before its options
    out = tmp_path / "out"
    argv = args + (["--out", str(out)] if args[:1] == ["study"] and len(args) > 1 else [])
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err, err
    assert not out.exists()


def test_version_and_help_texts(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("shengji ")
    for command in ("study", "duel", "simulate", "demo", "replay"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert len(text.split("options:")[0].split("\n\n", 1)[1].strip()) > 60, command


def test_output_piped_to_a_reader_that_leaves_is_no_error():
    """`shengji demo | head -0`: the reader has gone; no error line, SIGPIPE's status."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "shengji", "demo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # before the demo prints: its first write finds no reader
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 128 + 13 and err == "", err


def test_replay_checks_a_match_record_round_by_round(tmp_path, capsys):
    saved = tmp_path / "m.json"
    assert main(["demo", "--match", "--rules", "bo3", "--save", str(saved)]) == 0
    capsys.readouterr()
    assert main(["replay", str(saved)]) == 0
    printed = capsys.readouterr().out
    data = json.loads(saved.read_text())
    assert printed == sj.replay_match(data).text() + "\n"
    assert printed.startswith("Match of bo3") and f"{len(data['rounds'])} rounds" in printed
    data["rounds"][1]["defender_points"] += 5  # a round that did not happen so
    saved.write_text(json.dumps(data))
    with pytest.raises(SystemExit) as stop:
        main(["replay", str(saved)])
    assert stop.value.code == 2
    assert "rounds[1]: replay: defender_points differs" in capsys.readouterr().err


def test_a_page_that_cannot_be_written_is_one_line(tmp_path, capsys):
    saved = tmp_path / "round.json"
    assert main(["demo", "--seed", "3", "--save", str(saved)]) == 0
    capsys.readouterr()
    for out, why in [
        ("/nonexistent/dir/x.html", "No such file or directory"),
        (str(tmp_path), "Is a directory"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main(["view", str(saved), "-o", out])
        assert stop.value.code == 2
        assert capsys.readouterr().err == f"shengji: error: cannot write {out}: {why}\n"


# -- a study's, a duel's and a ladder's folder -------------------------------------------------


def run_command(capsys, args):
    """`shengji ARGS`, which must succeed: its (stdout, stderr)."""
    assert main(args) == 0
    return capsys.readouterr()


def written_folder(out):
    """The folder a study's, duel's or ladder's `written:` line names."""
    return re.search(r"^(?:written|read): (\S+)/", out, re.M).group(1)


@pytest.mark.slow
def test_each_command_has_its_own_default_folder(tmp_path, monkeypatch, capsys):
    """The README's study, then studies.md's, another study, the README's two duels and two
    ladders, one after another in one folder, none with --out: each has a folder of its own."""
    require_extra("study")
    monkeypatch.chdir(tmp_path)
    commands = [
        ["study", "trump-calling", "--deals", "300"],
        ["study", "trump-calling", "--deals", "200", "--bots", "greedy"],
        ["study", "burying", "--deals", "100"],
        ["duel", "--a", "greedy:call=eager", "--b", "greedy", "--deals", "200"],
        ["duel", "--a", "greedy:call=eager", "--b", "greedy:patience=7", "--deals", "200"],
        ["ladder", "--bots", "greedy,random,expert", "--deals", "20"],
        ["ladder", "--bots", "greedy,random", "--deals", "20"],
    ]
    folders = []
    for args in commands:
        out, err = run_command(capsys, [*args, "--workers", "1"])
        folder = written_folder(out)
        assert f"{folder}: " in err and "this command's own folder" in err, err
        result = "ladder.json" if args[0] == "ladder" else "summary.json"
        assert (tmp_path / folder / result).exists()
        folders.append(folder)
    assert len(set(folders)) == len(commands)
    assert folders[0].startswith("study-trump-calling-") and folders[3].startswith("duel-")
    # the workers and the folder's options leave the numbers, and so the folder, as they are
    out, _ = run_command(capsys, [*commands[0], "--workers", "2"])
    assert written_folder(out) == folders[0]


@pytest.mark.slow
def test_the_same_command_again_says_what_it_read_from_its_folder(tmp_path, monkeypatch, capsys):
    require_extra("study")
    monkeypatch.chdir(tmp_path)
    args = ["duel", "--a", "greedy", "--b", "random", "--deals", "300", "--workers", "1"]
    first = run_command(capsys, args)
    assert "300 deals to compute" in first.err and "read from" not in first.err
    again = run_command(capsys, args)
    # the same table, its last line saying the files were read, not written
    assert again.out == first.out.replace("\nwritten: ", "\nread: ")
    assert again.out.splitlines()[-1].startswith("read: ") and again.out != first.out
    folder = written_folder(first.out)
    assert f"{folder} holds this run already: its 300 deals are read from it, none computed" in (
        again.err
    )
    # a folder holding part of the run: the rest computed, and said
    args = ["study", "trump-calling", "--deals", "50001", "--play-every", "0", "--workers", "1"]
    first = run_command(capsys, args)
    folder = tmp_path / written_folder(first.out)
    for part in (folder / "chunks").glob("000000050000.*"):  # the last chunk: one deal
        part.unlink()
    again = run_command(capsys, args)
    assert again.out == first.out  # one deal computed: written
    assert "holds 50,000 of this run's 50,001 deals: those are read from it, 1 computed" in (
        again.err
    )


@pytest.mark.slow
def test_an_explicit_out_of_another_run_is_refused_naming_what_differs(
    tmp_path, monkeypatch, capsys
):
    require_extra("study")
    monkeypatch.chdir(tmp_path)
    out = str(tmp_path / "o")
    args = ["study", "trump-calling", "--deals", "300", "--workers", "1"]
    run_command(capsys, [*args, "--out", out])
    for other, differ in [
        (["--seed", "1"], "what differs: seed"),
        (["--bots", "expert"], "what differs: bots"),
        (["--deals", "200", "--play-every", "3"], "what differs: deals, play_every"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main([*args, *other, "--out", out])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and f"{out} holds another study" in err, err
        assert differ in err and "choose another --out" in err, err
        assert main([*args, *other]) == 0  # its own folder, without --out
        capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["duel", "--a", "greedy", "--b", "random", "--deals", "300", "--out", out])
    assert "holds another study (trump-calling" in capsys.readouterr().err


def bot_forms(text):
    """The bots a help text shows by their text forms (each followed by what it is, in
    brackets), and those it names as not taken ("not pimc, search: ...")."""
    text = " ".join(text.split())
    shown = set(re.findall(r"(?<![\w-])([a-z]+)(?::\S+)? \(", text))
    for names in re.findall(r"\(not ([a-z, ]+):", text):
        shown.update(names.split(", "))
    return shown


@pytest.mark.parametrize(
    "command",
    ["duel", "demo", "simulate", "ladder", "study", "analyze bury", "analyze trump"],
)
def test_every_bot_and_its_text_form_is_in_the_help(command, capsys):
    from shengji.bots import TEXT_BOTS

    with pytest.raises(SystemExit):
        main([*command.split(), "--help"])
    assert set(TEXT_BOTS) <= bot_forms(capsys.readouterr().out)


def test_the_help_s_bot_forms_are_every_bot_s_and_read_as_they_say():
    from shengji.bots import TEXT_BOTS, bot_from_text, resolve_bots
    from shengji.cli.parser import BOT_FORMS

    assert list(BOT_FORMS) == list(TEXT_BOTS)
    for name, (form, _, native) in BOT_FORMS.items():
        bot = bot_from_text(name if name == "learned" else form)  # its form names a file
        assert (resolve_bots(bot)[1][0] is None) == native, name


def test_distill_writes_its_own_folder_and_continues_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["distill", "--deals", "2", "--workers", "1", "--rollouts", "60"]) == 0
    printed = capsys.readouterr().out
    decisions = int(re.search(r"^([\d,]+) decisions of 2 deals", printed).group(1))
    folder = tmp_path / "distill-v3-seed0-rollouts60"
    assert f": {folder.name}" in printed and decisions > 40
    assert main(["distill", "--deals", "2", "--workers", "1", "--rollouts", "60"]) == 0
    told = capsys.readouterr()
    assert told.out == printed and "holds 2 of these 2 deals" in told.err
    with pytest.raises(SystemExit) as stop:
        main(["distill", "--deals", "2", "--seed", "1", "--rollouts", "60", "--out", folder.name])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"{folder.name} holds data of another seed:" in err, err


def test_distill_with_others_writes_a_folder_named_by_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    args = ["distill", "--deals", "2", "--workers", "1", "--rollouts", "60"]
    assert main([*args, "--others", "expert:void_risk=3,greedy", "--other-share", "0.5"]) == 0
    folder = tmp_path / "distill-v3-seed0-rollouts60-others-expert-greedy-0.5"
    assert f": {folder.name}" in capsys.readouterr().out
    manifest = json.loads((folder / "manifest.json").read_text())
    assert (manifest["others"], manifest["other_share"]) == (["expert:void_risk=3", "greedy"], 0.5)
    # the teacher's folder without others: refused by what differs
    with pytest.raises(SystemExit) as stop:
        main([*args, "--out", folder.name])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "holds data of another other_share, others:" in err, err
    for bad, said in (
        (["--other-share", "0.5"], "other_share is the share of deals of the others"),
        (["--others", "greedy", "--other-share", "1.5"], "other_share must be a number above 0"),
        (["--others", "nope"], "unknown bot 'nope'"),
    ):
        with pytest.raises(SystemExit) as stop:
            main([*args, *bad])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and said in err and err.count("\n") == 1, err
