"""What the CLI and each of its verb modules share: the usage error (exit 2), the parser that raises it, and
JSON output. The verb modules import it from here, below the CLI that imports them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from paperdesk.core.errors import PaperdeskError


class UsageError(PaperdeskError):
    """Bad arguments: exit code 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every other error
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
