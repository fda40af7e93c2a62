"""The ``smartcrawl`` command: one door to every tool of the project.

``smartcrawl demo`` | ``smartcrawl web ...`` | ``smartcrawl crawl <overrides>`` | ``smartcrawl prepare-cards``.
Training and data preparation are Hydra entry points at the repository root (``train.py``,
``prepare_data.py``).
"""

from __future__ import annotations

import importlib
import sys

_COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("smartcrawl.demo", "the main job on the embedded default (prepares both data sets)"),
    "web": ("smartcrawl.web.cli", "build, inspect and serve test-bed webs (websim, Debian docs)"),
    "crawl": ("smartcrawl.crawl.cli", "crawl sites for a language pair (Hydra overrides)"),
    "data-tables": ("smartcrawl.analysis.data_tables", "print the data-set cards under results/ as tables"),
}


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``argv[0]`` to the module that implements it."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help") or args[0] not in _COMMANDS:
        print("usage: smartcrawl {" + ",".join(_COMMANDS) + "} [args...]\n")
        for name, (_, doc) in _COMMANDS.items():
            print(f"  {name:12s} {doc}")
        return 0 if args and args[0] in ("-h", "--help") else 2
    module = importlib.import_module(_COMMANDS[args[0]][0])
    return int(module.main(args[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
