"""Bots in other processes: ExternalBot names a command that plays a seat over the external-bot
protocol (docs/manual/external-bots.md, docs/schema/bot-protocol.json): one JSON line a
decision on its standard input, one line of answer on its standard output. ExternalSeat asks
it for one seat; bot_processes() is the span of a run, whose processes it closes."""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from shengji.core._core import Cards, legal_follows, legal_leads
from shengji.core.stopping import held_signals
from shengji.errors import BotError, CardError, ExternalBotError
from shengji.round.views import View

PROTOCOL = 1  # the protocol's version, in every message
MODES = ("seat", "each")  # a process a seat for the run, or a process a decision
ON_ERROR = ("forfeit", "raise")  # a failing bot forfeits the round, or stops the run
START_GRACE = 10.0  # seconds a process's first answer may take beyond `timeout`: its start-up
CLOSE_GRACE = 0.5  # seconds a process may take to exit once its input is closed
MAX_ANSWER = 1 << 16  # bytes of an answer line: more is garbage, not a slow answer
MAX_SAID = 200  # characters of a failing answer kept in its error and a forfeit's record
ERROR_TAIL = 4096  # bytes of a bot's error output kept (the end, to name a crash)
ERROR_READS = 64  # pipe-fulls of it read at most once the bot has ended (4 MiB)
MARK = "SHENGJI_BOT_PROCESS"  # in the environment of a bot and all it starts: its token
RUN = "SHENGJI_RUN"  # in a run's environment (its workers', Ray's): the pid that began it
PASS, YES, NO = "pass", "yes", "no"  # the answers that are not cards
# what went wrong with an answer, as the error to raise: fail(said, reason), `said` what the bot
# printed (None for nothing)
Failure = Callable[[str | None, str], Exception]


@dataclass(frozen=True)
class ExternalBot:
    """A bot that is a command line (`cmd`, a list of words: ["python", "mybot.py"]) speaking
    the external-bot protocol. mode "seat": the command is started once a seat for the run
    and answers every decision of that seat, one line each; "each": it is started for every
    decision and answers one. timeout: seconds each answer may take (a process's first answer
    START_GRACE more, for its start-up). legal: each play decision also lists the legal plays
    (every follow; the leads as sj.legal_leads lists them, up to sj.LEAD_CAP). A bot that
    exits, overruns its timeout, prints what is not an answer or answers what the rules
    refuse fails the decision: on_error "forfeit", its team forfeits the round
    (Rules.forfeited) and the run goes on; "raise", the run stops with an ExternalBotError
    naming the seat, the decision and what it printed (an IllegalAction for a refused
    answer, as a Python bot's). Text form: `process:cmd=python
    mybot.py,timeout=2,mode=each,legal=true,on_error=raise` (cmd is split as a POSIX shell
    does; a comma or a colon in it goes inside quotes)."""

    cmd: tuple[str, ...]
    timeout: float = 1.0
    mode: str = "seat"
    legal: bool = False
    on_error: str = "forfeit"

    def __post_init__(self) -> None:
        check_process_settings(self)
        if self.mode not in MODES:
            raise BotError(f"ExternalBot.mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not isinstance(self.legal, bool):
            raise BotError(f"ExternalBot.legal must be True or False, got {self.legal!r}")

    def __str__(self) -> str:
        return f"process({command_text(self.cmd)})"


def check_process_settings(bot: Any) -> None:
    """The settings a bot run as a process shares (an ExternalBot's, a BotzoneBot's), checked
    and stored as they are kept: `cmd` a tuple of words, `timeout` a float; BotError naming the
    bad one."""
    name = type(bot).__name__
    cmd = bot.cmd
    if isinstance(cmd, str) or not isinstance(cmd, (list, tuple)) or not cmd:
        raise BotError(
            f"{name}.cmd must be a non-empty list of words (a command line: "
            f'["python", "mybot.py"]), got {cmd!r}'
        )
    if not all(isinstance(w, str) and w and "\0" not in w for w in cmd):
        raise BotError(f"{name}.cmd: every word must be non-empty text, got {cmd!r}")
    object.__setattr__(bot, "cmd", tuple(cmd))
    timeout = bot.timeout
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not (0 < timeout <= 3600)
    ):
        raise BotError(f"{name}.timeout must be seconds in (0, 3600], got {timeout!r}")
    object.__setattr__(bot, "timeout", float(timeout))
    if bot.on_error not in ON_ERROR:
        raise BotError(
            f"{name}.on_error must be one of {', '.join(ON_ERROR)}, got {bot.on_error!r}"
        )


def command_text(cmd: tuple[str, ...]) -> str:
    """The command as one line that split_command reads back: each word as shlex.quote gives
    it, but quoted also where it holds a comma or a colon (which separate a text form's
    settings, and which shlex.quote leaves bare)."""
    return " ".join(
        "'" + w.replace("'", "'\"'\"'") + "'" if ("," in w or ":" in w) else shlex.quote(w)
        for w in cmd
    )


def split_command(text: str) -> tuple[str, ...]:
    """The words of a command line, split as a POSIX shell does (shlex); a BotError when its
    quotes do not close or it holds no word."""
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise BotError(f"process: cmd {text!r} does not split into words: {e}") from None
    if not words:
        raise BotError("process: cmd is empty")
    return tuple(words)


def split_outside_quotes(text: str, separators: str) -> list[str]:
    """`text` cut at each of `separators` that is not inside single or double quotes (as a
    POSIX shell reads them: a backslash escapes outside single quotes)."""
    parts: list[str] = []
    part: list[str] = []
    quote, escaped = "", False
    for c in text:
        if escaped:
            escaped = False
        elif c == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in separators:
            parts.append("".join(part))
            part = []
            continue
        part.append(c)
    parts.append("".join(part))
    return parts


def message(view: View, legal: bool) -> dict[str, Any]:
    """The protocol's message of one decision: its version, the decision, the seat, with
    `legal` the plays allowed (declare: the options and "pass" where it may pass; revolt: "no"
    and "yes"; play: the legal plays; bury: none, any 8 cards of the hand), and the view."""
    out: dict[str, Any] = {"protocol": PROTOCOL, "decision": view.action, "seat": view.seat}
    if legal:
        out["legal"] = legal_answers(view)
    out["view"] = view.to_dict()
    return out


def legal_answers(view: View) -> list[str] | None:
    """The answers the rules allow at this view, as answer lines (None for a bury)."""
    if view.action == "declare":
        return ([PASS] if view.may_pass else []) + [str(o) for o in view.options]
    if view.action == "revolt":
        return [NO, YES]
    if view.action == "bury":
        return None
    assert view.trump is not None
    if view.lead is None:
        return [str(p) for p in legal_leads(view.hand, view.trump).plays]
    return [str(p) for p in legal_follows(view.hand, view.lead, view.trump)]


class ExternalSeat:
    """One seat of an ExternalBot, with the Bot methods: each asks the bot's process (of the
    run's bot_processes, by seat) and reads its answer. Outside bot_processes, a process is
    started for the decision and closed after it."""

    def __init__(self, bot: ExternalBot, seat: int):
        self.bot = bot
        self.seat = seat
        self.said: str | None = None  # the last answer line read

    def declare(self, view: View) -> Cards | None:
        """A show of view.options, or None for "pass"."""
        said = self.ask(view)
        if said == PASS:
            return None
        return self.cards(view, said, f'cards of a show or "{PASS}"')

    def revolt(self, view: View) -> bool:
        """ "yes" or "no"."""
        said = self.ask(view)
        if said not in (YES, NO):
            raise self.failure(view, said, f'answered {clipped(said)!r}, not "{YES}" or "{NO}"')
        return said == YES

    def bury(self, view: View) -> Cards:
        """Eight cards of the hand."""
        return self.cards(view, self.ask(view), "cards")

    def play(self, view: View) -> Cards:
        """A lead or a follow."""
        return self.cards(view, self.ask(view), "cards")

    def cards(self, view: View, said: str, what: str) -> Cards:
        """The answer as Cards; ExternalBotError when it is not card text."""
        try:
            return Cards(said)
        except CardError as e:
            reason = f"answered {clipped(said)!r}, not {what} ({clipped(str(e))})"
            raise self.failure(view, said, reason) from None

    def failure(self, view: View, said: str | None, reason: str) -> ExternalBotError:
        """The error naming this seat, the decision and what the bot printed (its first
        MAX_SAID characters)."""
        return ExternalBotError(self.seat, view.action, clipped(said), f"{self.bot}: {reason}")

    def ask(self, view: View) -> str:
        """The bot's answer line to this view's message (stripped of outer spaces)."""
        line = (json.dumps(message(view, self.bot.legal), separators=(",", ":")) + "\n").encode()
        processes = SESSION.get()
        self.said = None
        fail = functools.partial(self.failure, view)
        if processes is None or self.bot.mode == "each":
            with contextlib.closing(BotProcess(self.bot.cmd)) as once:
                self.said = once.ask(line, self.bot.timeout + START_GRACE, fail)
                return self.said
        key = (self.bot, self.seat)
        if key not in processes:
            processes[key] = BotProcess(self.bot.cmd)
        process = processes[key]
        grace = START_GRACE if process.answers == 0 else 0.0
        self.said = process.ask(line, self.bot.timeout + grace, fail)
        return self.said

    def drop(self) -> None:
        """After a failed decision: the seat's process of the run closed (killed if it does
        not exit), so that a fresh one answers the seat's next decision."""
        processes = SESSION.get()
        if processes is not None and (self.bot, self.seat) in processes:
            processes.pop((self.bot, self.seat)).close()


class BotProcess:
    """A running bot: its own session (no signal to the run's terminal reaches it), a token
    in its environment that all it starts inherits (close ends them all, even those that
    leave its session), its input and output pipes, and the last ERROR_TAIL bytes of its
    error output (read to name a crash; the rest is read and dropped)."""

    def __init__(self, cmd: tuple[str, ...]):
        self.cmd = cmd
        self.answers = 0
        self.pending = b""
        self.errors = b""
        self.token = f"{os.getpid()}.{next(TOKENS)}"
        try:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env={**os.environ, MARK: self.token},
            )
        except OSError as e:
            raise BotError(f"process {command_text(cmd)} does not start: {e}") from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        for pipe in (self.proc.stdin, self.proc.stderr):
            os.set_blocking(pipe.fileno(), False)
        LIVE.add(self)

    def ask(self, line: bytes, timeout: float, fail: Failure) -> str:
        """Send one message and read one answer line within `timeout` seconds; what went
        wrong is fail(said, reason), raised."""
        deadline = time.monotonic() + timeout
        try:
            self.send(line, deadline)
            answer = self.answer_line(deadline, timeout, fail)
        except (BrokenPipeError, EOFError):
            raise fail(None, self.ended()) from None
        self.answers += 1
        return answer

    def answer_line(self, deadline: float, timeout: float, fail: Failure) -> str:
        """The next line of the bot's output by the deadline, as text without outer spaces;
        EOFError when the output ends first, fail(said, reason) raised for the rest."""
        try:
            answer = self.read_line(deadline)
        except TimeoutError:
            raise fail(None, f"gave no answer within {timeout:g} s{self.partial()}") from None
        if answer is None:
            said = self.pending.decode(errors="replace")
            raise fail(said, f"printed {said[:80]!r}... without ending the line")
        try:
            return answer.decode().strip()
        except UnicodeDecodeError:
            said = answer.decode(errors="replace")
            raise fail(said, f"printed {clipped(said)!r}, not UTF-8 text") from None

    def wait_for(self, fd: int, writing: bool, deadline: float) -> bool:
        """Whether `fd` is ready (to write, or to read) by the deadline (TimeoutError
        otherwise): the bot's error output is read meanwhile, so that a bot that writes much
        of it never blocks."""
        errors = self.proc.stderr
        assert errors is not None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            watched = [fd] if not writing else []
            if not errors.closed:
                watched.append(errors.fileno())
            readable, writable, _ = select.select(watched, [fd] if writing else [], [], left)
            if not errors.closed and errors.fileno() in readable:
                self.read_errors()
            if (fd in writable) if writing else (fd in readable):
                return True

    def read_errors(self, reads: int = 1) -> None:
        """What the bot's error output holds now, up to `reads` pipe-fulls (a bot that
        floods it never holds the run here), its last ERROR_TAIL bytes kept."""
        errors = self.proc.stderr
        assert errors is not None
        with contextlib.suppress(BlockingIOError):
            for _ in range(reads):
                if errors.closed:
                    return
                chunk = os.read(errors.fileno(), 65536)
                if not chunk:
                    errors.close()  # the end of it: every process holding it is gone
                self.errors = (self.errors + chunk)[-ERROR_TAIL:]

    def send(self, data: bytes, deadline: float) -> None:
        """Write all of `data` to the bot's input by the deadline (TimeoutError otherwise:
        a bot that reads nothing never blocks the run)."""
        assert self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        while view:
            self.wait_for(fd, True, deadline)
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                continue

    def read_line(self, deadline: float) -> bytes | None:
        """One line of the bot's output by the deadline, without its newline; None for a
        line longer than MAX_ANSWER. EOFError when the output ends first."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.pending:
            if len(self.pending) > MAX_ANSWER:
                return None
            self.wait_for(fd, False, deadline)
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line

    def partial(self) -> str:
        """What the bot printed of an unfinished line, for a timeout's message."""
        if not self.pending:
            return ""
        return f" (it printed {self.pending[:80].decode(errors='replace')!r} without a newline)"

    def ended(self) -> str:
        """Why the bot's output ended: its exit status and the end of its error output."""
        try:
            status = self.proc.wait(CLOSE_GRACE)
            how = (
                f"exited with status {status}"
                if status >= 0
                else f"was killed by signal {signal.Signals(-status).name}"
            )
        except subprocess.TimeoutExpired:
            how = "closed its output"
        self.read_errors(ERROR_READS)
        tail = self.errors[-300:].decode(errors="replace").strip()
        said = self.pending[:MAX_SAID].decode(errors="replace")
        said = f"{said!r} and then " if said else ""
        return f"printed {said}no answer: it {how}" + (
            f"; its error output ends: {tail!r}" if tail else ""
        )

    def close(self, grace: float = CLOSE_GRACE) -> None:
        """End the bot: its input closed, `grace` seconds to exit, then every process with
        its token killed (whatever it started, in its session or not) and waited for."""
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        if self.proc.stdout.closed:  # closed already (a stop, then the span's end)
            return
        LIVE.discard(self)
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        if grace:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(grace)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        kill_marked(self.token)
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


def kill_marked(token: str | None) -> None:
    """Kill every process whose environment holds MARK=token (None: the token of any bot
    this process started, or any bot of this process's run, begun here or in a process
    that started this one: Ray's workers run bots too), until none is left (one that forks
    meanwhile leaves its child to the next pass). Those this user cannot read are not the
    bot's. Without /proc (not Linux), only the bot's process group was killed (close)."""
    exact = f"{MARK}={token}".encode()
    mine = f"{MARK}={os.getpid()}.".encode()
    run = f"{RUN}={os.environ.get(RUN, os.getpid())}".encode()
    gone_by = time.monotonic() + CLOSE_GRACE
    killed: set[int] = set()  # an exiting process's environment reads empty: waited for by pid
    while time.monotonic() < gone_by:
        found = list(killed)
        with contextlib.suppress(OSError):
            for entry in os.scandir("/proc"):
                if entry.name.isdigit():
                    try:
                        with open(f"/proc/{entry.name}/environ", "rb") as f:
                            names = f.read().split(b"\0")
                    except OSError:
                        continue
                    marks = [n for n in names if n.startswith(f"{MARK}=".encode())]
                    if token:
                        hit = exact in marks
                    else:
                        hit = bool(marks) and (run in names or marks[0].startswith(mine))
                    if hit:
                        found.append(int(entry.name))
        alive = [pid for pid in found if not zombie(pid)]
        if not alive:
            return
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed.update(alive)
        time.sleep(0.001)


def zombie(pid: int) -> bool:
    """Whether the process has ended, waiting to be reaped (it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] == b"Z"
    except OSError:
        return True


def clipped(said: str | None) -> str | None:
    """What a bot said, its first MAX_SAID characters (a flood of garbage is not kept)."""
    if said is None or len(said) <= MAX_SAID:
        return said
    return said[:MAX_SAID] + "..."


def end_bot_processes() -> None:
    """End every bot process this process runs, now (no grace), and all they started: a
    run does this as it stops, those starting meanwhile included."""
    kill_bot_processes()
    for process in list(LIVE):
        process.close(grace=0)


def kill_bot_processes() -> None:
    """Kill every bot process this process started and all they started, waiting for none:
    safe in a signal handler (a study's worker ends so), whatever the code it interrupts
    holds (a process's wait lock)."""
    for process in list(LIVE):
        if process.proc.returncode is None:  # not reaped: its pid is still its own
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.proc.pid, signal.SIGKILL)
    kill_marked(None)


TOKENS = itertools.count()  # this process's bot processes, numbered
LIVE: set[BotProcess] = set()  # the bot processes not yet closed


# the processes of a run by (bot, seat): an ExternalBot's BotProcess, a BotzoneBot's
# BotzoneProgram; each closed at the run's end
SESSION: ContextVar[dict[tuple[Any, int], Any] | None] = ContextVar(
    "shengji_bot_processes", default=None
)


@contextlib.contextmanager
def bot_processes() -> Iterator[None]:
    """The span of a run (a round, a match, a frame of rounds, a duel's chunk): the external
    bots' processes started in it are kept a seat each and closed at its end, however it ends
    (an error; Ctrl-C: at once, with every bot this process started, one still starting
    too). Nested, the outermost one keeps them."""
    if SESSION.get() is not None:
        yield
        return
    processes: dict[tuple[Any, int], Any] = {}
    token = SESSION.set(processes)
    try:
        yield
    finally:
        with held_signals():  # a further signal cannot cut the closing short
            SESSION.reset(token)
            if isinstance(sys.exc_info()[1], KeyboardInterrupt):
                end_bot_processes()
            for process in processes.values():
                process.close()
