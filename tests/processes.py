"""Runs started as a terminal starts them, for the tests that check what a run leaves."""

import signal
import subprocess


def start_in_session(cmd, env, stdout=subprocess.PIPE):
    """`cmd` started in a session of its own (so that a signal can go to its whole group),
    its error output piped as text, with Ctrl-C acted on as a terminal sends it, even under
    a run started with SIGINT ignored (as a background job is), which children inherit."""
    return subprocess.Popen(
        cmd,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
