"""websim sub-commands of ``python -m smartcrawl.web``.

- ``websim``: generate a web (``--pair eng-mlt --sites 50 --pages 20000 --seed 0 --out DIR``);
- ``websim-calibrate``: measure URL conventions on real pairs, print real vs generated shares, and
  with ``--write-default`` rewrite the package's ``default_mix.json``;
- ``websim-cld2``: CLD2 accuracy per language, on fresh pages or on a stored web (``--web DIR``);
- ``websim-export``: write a web's truth as ParaCrawl-layout pairs and CDX lines.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

from smartcrawl.langs import to_iso3
from smartcrawl.web.store import WebStore
from smartcrawl.web.websim.calibration import (
    DEFAULT_SHARED_DATA,
    calibrate,
    calibration_table,
    generated_measurement,
    write_defaults,
)
from smartcrawl.web.websim.cld2check import accuracy_table, check_languages, check_web
from smartcrawl.web.websim.config import load_default_mix
from smartcrawl.web.websim.export import export_for_prepare
from smartcrawl.web.websim.generate import build_websim
from smartcrawl.web.websim.text import supported_languages

log = logging.getLogger(__name__)


def parse_pair(text: str) -> tuple[str, str]:
    """``"eng-mlt"`` or ``"en-mt"`` -> ``("eng", "mlt")``; raises ``argparse.ArgumentTypeError``."""
    parts = [p for p in text.replace("_", "-").split("-") if p]
    codes = [to_iso3(p) for p in parts]
    if len(codes) != 2 or None in codes or codes[0] == codes[1]:
        raise argparse.ArgumentTypeError(f"expected a language pair such as eng-mlt, got {text!r}")
    return codes[0], codes[1]  # type: ignore[return-value]


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the websim sub-commands."""
    p = subparsers.add_parser("websim", help="generate a synthetic multilingual web (websim)")
    p.add_argument("--pair", type=parse_pair, default=("eng", "mlt"),
                   help=f"language pair, e.g. eng-mlt (supported: {', '.join(supported_languages())})")
    p.add_argument("--sites", type=int, default=50, help="number of sites (default 50)")
    p.add_argument("--pages", type=int, default=20_000, help="total number of pages, about (default 20000)")
    p.add_argument("--seed", type=int, default=0, help="random seed; the same seed gives the same web")
    p.add_argument("--out", type=Path, required=True, help="web directory to write")
    p.add_argument("--other-langs", default="0-3", help="min-max number of extra languages per site (default 0-3)")
    p.add_argument("--no-traps", action="store_true", help="no crawler traps (endless calendars, session ids)")
    p.add_argument("--mix", default=None,
                   help="JSON object convention -> weight replacing the calibrated mix, e.g. '{\"dir_code\": 1}'")
    p.set_defaults(func=run_generate)

    c = subparsers.add_parser("websim-calibrate", help="measure URL conventions on real pairs; real vs websim table")
    c.add_argument("--shared-data", type=Path, default=DEFAULT_SHARED_DATA,
                   help="folder with paracrawl-human-evals/ and wmt16/ (default ../shared/data)")
    c.add_argument("--write-default", action="store_true",
                   help="rewrite the package's default_mix.json from this measurement")
    c.add_argument("--sites", type=int, default=1000, help="sites of the generated web compared (default 1000)")
    c.add_argument("--pages", type=int, default=60_000, help="pages of the generated web compared (default 60000)")
    c.add_argument("--seed", type=int, default=0)
    c.set_defaults(func=run_calibrate)

    d = subparsers.add_parser("websim-cld2", help="CLD2 accuracy per language on websim pages")
    d.add_argument("--web", type=Path, default=None, help="check a stored web instead of fresh pages")
    d.add_argument("--pages-per-lang", type=int, default=200, help="pages checked per language (default 200)")
    d.add_argument("--langs", default="", help="comma-separated languages (default: all supported)")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--min-accuracy", type=float, default=0.95, help="exit 1 when a language is below this")
    d.set_defaults(func=run_cld2)

    e = subparsers.add_parser("websim-export", help="export a web's truth for prepare_data.py (ParaCrawl TSV + CDX)")
    e.add_argument("web_dir", type=Path)
    e.add_argument("out_dir", type=Path)
    e.set_defaults(func=run_export)


def run_generate(args: argparse.Namespace) -> int:
    """Generate a web and print a one-line summary."""
    lo, _, hi = args.other_langs.partition("-")
    options: dict[str, object] = {"other_langs": (int(lo), int(hi or lo))}
    if args.no_traps:
        options.update(calendar_trap_prob=0.0, session_trap_prob=0.0)
    if args.mix:
        options["mix"] = json.loads(args.mix)
    start = time.perf_counter()
    store = build_websim(args.out, tuple(args.pair), args.sites, args.pages, args.seed, **options)
    langs = store.truth_langs()
    n_groups = store.truth_groups()["group"].nunique()
    print(f"websim {args.pair[0]}-{args.pair[1]}: {len(store.sites())} hosts, {len(langs)} content pages, "
          f"{n_groups} translation groups -> {args.out} ({time.perf_counter() - start:.1f} s)")
    store.close()
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    """Print the calibration table; optionally rewrite the default mix first."""
    calibration = calibrate(args.shared_data)
    if args.write_default:
        path = write_defaults(calibration)
        print(f"wrote {path}")
        mix_source = load_default_mix(path)
    else:
        mix_source = calibration.defaults()
    generated = generated_measurement(mix_source, n_sites=args.sites, n_pages=args.pages, seed=args.seed)
    print(calibration_table(calibration, generated, mix_source["mix"]))
    return 0


def run_cld2(args: argparse.Namespace) -> int:
    """Print CLD2 accuracy per language; exit 1 when a language is below ``--min-accuracy``."""
    if args.web:
        results = check_web(WebStore(args.web), args.pages_per_lang, args.seed)
    else:
        langs = [c.strip() for c in args.langs.split(",") if c.strip()] or None
        results = check_languages(langs, args.pages_per_lang, args.seed)
    print(accuracy_table(results))
    worst = min((r.accuracy for r in results.values()), default=0.0)
    return 0 if worst >= args.min_accuracy else 1


def run_export(args: argparse.Namespace) -> int:
    """Export a web and print what was written."""
    summary = export_for_prepare(args.web_dir, args.out_dir)
    for name, n in summary.pair_files.items():
        print(f"{args.out_dir / 'paracrawl' / name}: {n} pairs")
    print(f"{summary.cdx_file}: {summary.cdx_rows} URL->language rows")
    return 0
