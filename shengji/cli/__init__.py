"""The `shengji` command line (`main`): its parser and dispatch (`parser`), the commands
(`commands`) and the text they print (`render`)."""

from shengji.cli.parser import main

__all__ = ["main"]
