"""An ``argparse.ArgumentParser`` whose usage errors are one line, not a usage block.

``gin3 train`` has some forty flags: argparse's default answer to a bad one
prints the whole usage (17 lines) above the message. Here the message comes
alone, with the subcommand's name and a pointer to ``--help``; exit status 2
as argparse's.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class OneLineErrorParser(argparse.ArgumentParser):
    """``error()`` prints ``PROG: error: MESSAGE (see PROG --help)`` and exits with status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise SystemExit(status)
