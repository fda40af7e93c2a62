"""Export a web's ground truth in the raw formats that ``prepare_data.py``'s source readers read.

``export_for_prepare(web, out)`` writes:

- ``out/paracrawl/sorted.<iso1>-<iso1>``: the parallel URL pairs, one file per language pair, in the
  ParaCrawl human-evaluation layout of v6/v7 (8 tab-separated columns: url1, url2, src, trg,
  bicleaner, judgement, comments, time; ``src``/``trg`` are the pages' titles, judgement ``V``), so
  ``iter_pair_records("paracrawl", out / "paracrawl", ...)`` reads them. English comes first when it
  is one of the two languages (``sorted.en-mt``), else the pair's first language, else ISO order.
- ``out/cdx/websim.cdx``: one CommonCrawl CDX line (``urlkey timestamp {json}``) per page with a
  language (``url``, ``mime``, ``status``, ``languages`` as ISO 639-3, as CommonCrawl writes them),
  so ``iter_lang_records("cdx", out / "cdx" / "websim.cdx", ...)`` reads them. Trap pages, which
  have no language, are left out.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from html import unescape
from itertools import combinations
from pathlib import Path
from urllib.parse import urlsplit

from smartcrawl.langs import info
from smartcrawl.web.store import WebStore

_TITLE = re.compile(rb"<title>(.*?)</title>", re.S)
_TIMESTAMP = "20240101000000"


@dataclass(frozen=True)
class ExportSummary:
    """What :func:`export_for_prepare` wrote."""

    pair_files: dict[str, int]  # file name -> rows
    cdx_file: Path
    cdx_rows: int


def surt_key(url: str) -> str:
    """CommonCrawl's SURT url key: reversed host labels without ``www``, ``)``, path and query."""
    parts = urlsplit(url)
    labels = (parts.hostname or "").split(".")
    if labels and labels[0] == "www":
        labels = labels[1:]
    key = ",".join(reversed(labels)) + ")" + (parts.path or "/")
    if parts.query:
        key += "?" + parts.query
    return key.lower()


def cdx_line(url: str, lang: str, body: bytes) -> str:
    """One CDX line for a stored HTML page in language ``lang`` (ISO 639-3)."""
    digest = hashlib.sha1(body).hexdigest()
    record = {"url": url, "mime": "text/html", "mime-detected": "text/html", "status": "200", "digest": digest,
              "length": str(len(body)), "offset": "0", "filename": "websim.warc.gz", "charset": "UTF-8",
              "languages": lang}
    return f"{surt_key(url)} {_TIMESTAMP} {json.dumps(record, ensure_ascii=False)}"


def _title(body: bytes | None) -> str:
    if not body:
        return ""
    m = _TITLE.search(body)
    if not m:
        return ""
    text = unescape(m.group(1).decode("utf-8", "replace"))
    return " ".join(text.replace("\t", " ").split())


def _order(a: str, b: str, pair: tuple[str, str] | None) -> tuple[str, str]:
    if "eng" in (a, b):
        return ("eng", b if a == "eng" else a)
    if pair and pair[0] in (a, b):
        return (pair[0], b if a == pair[0] else a)
    return tuple(sorted((a, b), key=lambda x: info(x).iso1 or x))  # type: ignore[return-value]


def export_for_prepare(web: WebStore | str | Path, out_dir: str | Path) -> ExportSummary:
    """Write the parallel pairs (ParaCrawl layout) and URL->language rows (CDX) of a web."""
    store = web if isinstance(web, WebStore) else WebStore(web)
    out = Path(out_dir)
    (out / "paracrawl").mkdir(parents=True, exist_ok=True)
    (out / "cdx").mkdir(parents=True, exist_ok=True)
    manifest_pair = store.manifest().get("pair")
    pair = tuple(manifest_pair) if manifest_pair else None
    langs = store.truth_langs()
    groups = store.truth_groups()
    url_lang = dict(zip(langs["url"], langs["lang"]))
    titles: dict[str, str] = {}
    cdx_path = out / "cdx" / "websim.cdx"
    n_cdx = 0
    with cdx_path.open("w", encoding="utf-8") as fh:
        for page in store.iter_pages():
            lang = url_lang.get(page.url)
            if lang is None:
                continue
            titles[page.url] = _title(page.body)
            fh.write(cdx_line(page.url, lang, page.body) + "\n")
            n_cdx += 1
    rows: dict[tuple[str, str], list[str]] = defaultdict(list)
    for _, grp in groups.groupby("group", sort=True):
        members = sorted(zip(grp["lang"], grp["url"]))
        for (la, ua), (lb, ub) in combinations(members, 2):
            if la == lb:
                continue
            l1, l2 = _order(la, lb, pair)  # type: ignore[arg-type]
            u1, u2 = (ua, ub) if l1 == la else (ub, ua)
            rows[(l1, l2)].append("\t".join((u1, u2, titles.get(u1, ""), titles.get(u2, ""), "1.000", "V", "", "0")))
    written: dict[str, int] = {}
    for (l1, l2), lines in sorted(rows.items()):
        c1, c2 = info(l1).iso1, info(l2).iso1
        if not c1 or not c2:
            continue
        name = f"sorted.{c1}-{c2}"
        (out / "paracrawl" / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        written[name] = len(lines)
    return ExportSummary(written, cdx_path, n_cdx)
