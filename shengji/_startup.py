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


def interrupted(signum: int, frame: Any) -> NoReturn:
    """End the command now: the line of an interrupted command, status 128 + the signal.
    Not by an exception, which could land where Python ignores it (a module lock's callback,
    a finalizer) and let the command run on."""
    with contextlib.suppress(Exception):  # what was printed (None: no output at all)
        sys.stdout.flush()
    sys.stderr.write("shengji: interrupted\n")
    sys.stderr.flush()
    os._exit(128 + signum)


quiet_while_loading()
