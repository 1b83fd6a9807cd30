"""The command line's first second: a Ctrl-C while the package loads, before the command's
own handling begins (shengji.cli.parser.main), ends in the one line a later one gives, not
in a traceback of the imports. Imported first by the package, it acts as it is imported."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Any, NoReturn


def quiet_while_loading() -> None:
    """Where this process runs the `shengji` command, Ctrl-C, SIGTERM and SIGHUP end it in
    one line from here on (the command's run handles them its own way meanwhile), not by
    the signal's default (a SIGHUP in the imports' second would end it silently); a
    library's import is left as it is, and so is a signal that was ignored."""
    argv = getattr(sys, "orig_argv", [])
    as_module = "-m" in argv[:-1] and argv[argv.index("-m") + 1] == "shengji"
    as_script = os.path.basename(sys.argv[0]) == "shengji"
    if not (as_module or as_script):
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupted)
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, interrupted)


def interrupted_line(command: str | None) -> str:
    """The line an interrupted command ends with: a study, a duel or a ladder says that
    running it again continues it (its finished chunks are saved)."""
    if command in ("study", "duel", "ladder"):
        return (
            "shengji: interrupted; the finished chunks are saved: the same command continues "
            "the study"
        )
    return "shengji: interrupted"


def command_of(words: list[str]) -> str | None:
    """The command's name among the command line's words: the first that is no option."""
    return next((w for w in words if not w.startswith("-")), None)


def interrupted(signum: int, frame: Any) -> NoReturn:
    """End the command now: the line of an interrupted command, status 128 + the signal.
    Not by an exception, which could land where Python ignores it (a module lock's callback,
    a finalizer) and let the command run on."""
    with contextlib.suppress(Exception):  # what was printed (None: no output at all)
        sys.stdout.flush()
    sys.stderr.write(interrupted_line(command_of(sys.argv[1:])) + "\n")
    sys.stderr.flush()
    os._exit(128 + signum)


quiet_while_loading()
