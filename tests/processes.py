"""Runs started as a terminal starts them, for the tests that check what a run leaves."""

import signal
import subprocess


def start_in_session(cmd, env, stdout=subprocess.PIPE):
    """`cmd` started in a session of its own (so that a signal can go to its whole group),
    its error output piped as text, with Ctrl-C, SIGTERM and SIGHUP acted on as a terminal
    sends them, even under a run started with one ignored (SIGINT in a background job,
    SIGHUP under nohup), which children inherit: a SIGHUP in the command's first second
    was lost so, as the command leaves an ignored signal ignored while it loads."""
    return subprocess.Popen(
        cmd,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=default_stop_signals,
    )


def default_stop_signals():
    """In the child, before it runs the command: the stop signals at their defaults."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
