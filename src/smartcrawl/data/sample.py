"""The built-in sample: a small data directory in the layout of ``../shared/data``, made by websim.

Used by ``make demo`` (and anyone without the real data) so that every data path of the project
runs on a fresh clone: ParaCrawl-style pair files, WMT16-style en-fr train/test pairs and a
MaCoCu-style en-sl TSV, all produced from synthetic websim webs (no real data is shipped).
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

from smartcrawl.urls import registered_domain
from smartcrawl.web.websim import build_websim, export_for_prepare

log = logging.getLogger(__name__)

# ParaCrawl-like pairs for the paper's four crawl pairs; en-fr becomes WMT16, en-sl becomes MaCoCu.
_PARACRAWL_PAIRS: tuple[tuple[str, str], ...] = (("eng", "isl"), ("eng", "mlt"), ("eng", "fin"), ("spa", "eus"))
_MARKER = ".complete"


def _export_pairs(pair: tuple[str, str], work: Path, n_sites: int, n_pages: int, seed: int) -> Path:
    """Build one websim web and export it; returns the export's ``paracrawl`` directory."""
    web = work / f"web-{pair[0]}-{pair[1]}"
    store = build_websim(web, pair=pair, n_sites=n_sites, n_pages=n_pages, seed=seed)
    store.close()
    export_for_prepare(web, work / f"export-{pair[0]}-{pair[1]}")
    return work / f"export-{pair[0]}-{pair[1]}" / "paracrawl"


def _pair_rows(path: Path) -> list[tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) >= 2:
            rows.append((cols[0], cols[1]))
    return rows


def write_builtin_sample(out_dir: str | Path, n_sites: int = 8, n_pages: int = 1500, seed: int = 0) -> Path:
    """Write the sample into ``out_dir`` (skipped when a complete one is there); returns ``out_dir``."""
    out = Path(out_dir)
    if (out / _MARKER).exists():
        return out
    if out.exists():
        shutil.rmtree(out)
    with tempfile.TemporaryDirectory(prefix="smartcrawl-sample-") as tmp:
        work = Path(tmp)
        pc_root = out / "paracrawl-human-evals"
        for i, pair in enumerate(_PARACRAWL_PAIRS):
            exported = _export_pairs(pair, work, n_sites, n_pages, seed + i)
            dest = pc_root / f"websim-{pair[0]}-{pair[1]}"
            dest.mkdir(parents=True, exist_ok=True)
            for f in sorted(exported.glob("sorted.*")):
                shutil.copy(f, dest / f.name)

        # WMT16-style en-fr gold pairs, split into train/test by web domain (disjoint, as the real task).
        fr = _export_pairs(("eng", "fra"), work, n_sites, n_pages, seed + 10)
        wmt = out / "wmt16"
        wmt.mkdir(parents=True, exist_ok=True)
        fr_rows = _pair_rows(fr / "sorted.en-fr")
        domains = sorted({registered_domain(en) for en, _ in fr_rows})
        test_domains = set(domains[1::2])  # every other site: balanced and domain-disjoint
        with (wmt / "train.pairs").open("w") as tr, (wmt / "test.pairs").open("w") as te:
            for en, fr_url in fr_rows:
                (te if registered_domain(en) in test_domains else tr).write(f"{en}\t{fr_url}\n")

        # MaCoCu-style en-sl document pairs with a header row.
        sl = _export_pairs(("eng", "slv"), work, n_sites, n_pages, seed + 20)
        macocu = out / "macocu"
        macocu.mkdir(parents=True, exist_ok=True)
        with (macocu / "MaCoCu-sl-en-sample.tsv").open("w") as f:
            f.write("\ten_source\tsl_source\ten_doc\tsl_doc\n")
            for i, (en, sl_url) in enumerate(_pair_rows(sl / "sorted.en-sl")):
                f.write(f"{i}\t{en}\t{sl_url}\tsynthetic\tsintetično\n")
    (out / "README.md").write_text(
        "Built-in synthetic sample (websim), in the layout of ../shared/data. Regenerate with\n"
        "`python -m smartcrawl.demo --sample-only`. Not real data.\n"
    )
    (out / _MARKER).write_text("ok\n")
    log.info("built-in sample written to %s", out)
    return out
