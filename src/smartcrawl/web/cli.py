"""``python -m smartcrawl.web``: build, inspect and serve test-bed webs.

Each sub-command lives beside the code it drives and registers itself through ``add_parser``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

# Modules that each expose ``add_parser(subparsers) -> None`` registering sub-commands whose
# parsers set ``func`` (a callable taking the parsed namespace and returning an exit code).
_COMMAND_MODULES: tuple[str, ...] = (
    "smartcrawl.web.websim.cli",
    "smartcrawl.web.debian.cli",
    "smartcrawl.web.server.cli",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available sub-command."""
    parser = argparse.ArgumentParser(prog="python -m smartcrawl.web", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that part of the test bed is not installed in this checkout
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen sub-command."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
