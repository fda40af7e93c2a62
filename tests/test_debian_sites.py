"""Debian documentation sites: language trees, link rewriting, chooser page and CLD2-confirmed ground truth.

The fast tests build sites from small fake unpacked packages written in ``tmp_path``; one slow test
downloads the real packages with apt.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from smartcrawl.web.debian import apt
from smartcrawl.web.debian.build import build_web, page_url, rewrite_links
from smartcrawl.web.debian.cli import parse_langs
from smartcrawl.web.debian.langid import detect_html, sniff_charset
from smartcrawl.web.debian.reach import site_reach
from smartcrawl.web.debian.sites import (
    APACHE_MANUAL, GUIDE_DOC, LIBREOFFICE_HELP, MissingLanguage, apache_from_root, install_guide_from_root,
    libreoffice_from_roots, prepare_site,
)
from smartcrawl.web.debian.source import lang_dirs, pick_code
from smartcrawl.web.server import serve_webs
from smartcrawl.web.store import WebStore

TEXT = {
    "eng": (
        "This chapter explains how to open, edit and save documents. Choose the command from the menu and "
        "the dialog shows every option that you can change before the file is written to the disk."
    ),
    "fin": (
        "Tässä luvussa kerrotaan, miten asiakirjoja avataan, muokataan ja tallennetaan. Valitse komento "
        "valikosta, niin valintaikkunassa näkyvät kaikki asetukset, joita voit muuttaa ennen tallentamista."
    ),
    "spa": (
        "Este capítulo explica cómo abrir, modificar y guardar los documentos. Elija la orden en el menú y "
        "el cuadro de diálogo muestra todas las opciones que puede cambiar antes de guardar el archivo."
    ),
    "fra": (
        "Ce chapitre explique comment ouvrir, modifier et enregistrer les documents. Choisissez la commande "
        "dans le menu et la boîte de dialogue affiche toutes les options que vous pouvez changer."
    ),
}


def _page(lang: str, title: str, extra: str = "", charset: str = "utf-8", base: str = "") -> bytes:
    html = (
        f'<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset={charset}">'
        f"{base}<title>{title}</title><script>var english_words_in_a_script = 'ignored by the text';</script>"
        f"</head><body><h1>{title}</h1><p>{TEXT[lang]}</p><p>{TEXT[lang]}</p>{extra}</body></html>"
    )
    return html.encode(charset)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture()
def lo_roots(tmp_path: Path) -> dict[str, Path]:
    """Fake unpacked libreoffice-help-{common,en-us,fi}: b.html is untranslated (English) in Finnish."""
    roots = {name: tmp_path / f"libreoffice-help-{name}" for name in ("common", "en-us", "fi")}
    base = '<base href="../../../">'
    for pkg, code, lang in (("en-us", "en-US", "eng"), ("fi", "fi", "fin")):
        tree = roots[pkg] / LIBREOFFICE_HELP / code
        _write(tree / "text/shared/05/new_help.html", _page(lang, "Help", f'<a href="{code}/text/a.html">a</a>', base=base))
        _write(tree / "text/a.html", _page(lang, "A", f'<a href="{code}/text/b.html">b</a>', base='<base href="../../">'))
        _write(tree / "text/b.html", _page("eng", "B", base='<base href="../../">'))
        _write(tree / "bookmarks.js", b"var bookmarks = [];")
    _write(roots["en-us"] / LIBREOFFICE_HELP / "en-US/text/only_en.html", _page("eng", "Only English"))
    common = roots["common"] / LIBREOFFICE_HELP
    _write(common / "index.html", b"<html><body><script>location='en-US/text/shared/05/new_help.html'</script></body></html>")
    _write(common / "default.css", b"body { margin: 0 }")
    _write(common / "media/navigation/favicon.ico", b"\x00\x00\x01\x00")
    return roots


@pytest.fixture()
def apache_root(tmp_path: Path) -> Path:
    """Fake unpacked apache2-doc with en, es (one page an English copy) and fr (Latin-1) trees."""
    root = tmp_path / "apache2-doc"
    manual = root / APACHE_MANUAL
    link = '<a href="https://httpd.apache.org/docs/2.4/mod/core.html">core</a> <a href="../fr/x.html" hreflang="fr">fr</a>'
    for code, lang in (("en", "eng"), ("es", "spa")):
        _write(manual / code / "index.html", _page(lang, "Index", link))
        _write(manual / code / "mod/core.html", _page(lang, "Core"))
    _write(manual / "es/x.html", _page("eng", "Untranslated"))
    _write(manual / "en/x.html", _page("eng", "X"))
    _write(manual / "fr/x.html", _page("fra", "Échange", charset="iso-8859-1"))
    _write(manual / "index.html", b'<html><head><meta http-equiv="refresh" content="0; URL=en/index.html"></head></html>')
    _write(manual / "style/css/manual.css", b"h1 { color: red }")
    _write(manual / "images/feather.png", b"\x89PNG\r\n")
    return root


def _truth(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    store = WebStore(out)
    return store.truth_langs(), store.truth_groups()


def test_lang_dirs_and_code_choice(tmp_path: Path) -> None:
    for name in ("en", "pt-br", "zh_CN", "images", "style", "en-US", "mod_x", "css"):
        (tmp_path / name).mkdir()
    found = lang_dirs(tmp_path)
    assert found == {"en": "eng", "en-US": "eng", "pt-br": "por", "zh_CN": "zho"}
    assert pick_code({"en-GB": "eng", "en-US": "eng"}, "eng") == "en-US"
    assert pick_code({"pt-br": "por", "pt": "por"}, "por") == "pt"
    assert pick_code({"en": "eng", "en-US": "eng"}, "eng") == "en"
    assert pick_code({"fi": "fin"}, "isl") is None


def test_langid_on_pages() -> None:
    assert detect_html(_page("fin", "Otsikko")).lang == "fin"
    latin1 = _page("fra", "Échange", charset="iso-8859-1")
    assert sniff_charset(latin1) == "iso-8859-1"
    assert detect_html(latin1).lang == "fra"
    assert detect_html(b"").lang == "und"


def test_parse_langs() -> None:
    assert parse_langs("eng-fin", sep="-") == ["eng", "fin"]
    assert parse_langs("es-eu", sep="-") == ["spa", "eus"]
    assert parse_langs("de,fr,pt-br") == ["deu", "fra", "por"]
    with pytest.raises(SystemExit):
        parse_langs("eng-xx1", sep="-")


def test_libreoffice_site_truth_and_chooser(tmp_path: Path, lo_roots: dict[str, Path]) -> None:
    source = libreoffice_from_roots(lo_roots["common"], {"en-US": lo_roots["en-us"], "fi": lo_roots["fi"]}, ["eng", "fin"])
    assert [(t.code, t.prefix) for t in source.trees] == [("en-US", "/help/en-US/"), ("fi", "/help/fi/")]
    out = tmp_path / "web"
    report = build_web(out, "debian-eng-fin", ["eng", "fin"], [source])
    host = "help.libreoffice.test"
    store = WebStore(out)
    manifest = store.manifest()
    assert manifest["pair"] == ["eng", "fin"]
    assert [s.host for s in store.sites()] == [host]
    assert store.sites()[0].seeds == [f"http://{host}/"] and store.sites()[0].langs == ["eng", "fin"]
    urls = {p.url for p in store.iter_pages()}
    assert f"http://{host}/help/fi/text/a.html" in urls
    assert f"http://{host}/help/index.html" in urls  # shared HTML page
    assert f"http://{host}/help/default.css" not in urls  # assets only with with_assets
    assert f"http://{host}/help/fi/bookmarks.js" not in urls
    # the chooser at / links each language's start page
    root = store.get(f"http://{host}/")
    assert root is not None and root.status == 200
    html = root.body.decode()
    assert 'href="/help/en-US/text/shared/05/new_help.html" hreflang="en-US"' in html
    assert 'href="/help/fi/text/shared/05/new_help.html" hreflang="fi"' in html and "Suomi" in html
    store.close()

    langs, groups = _truth(out)
    assert set(langs.columns) == {"url", "host", "lang"}
    by_url = dict(zip(langs.url, langs.lang))
    assert by_url[f"http://{host}/help/fi/text/a.html"] == "fin"
    assert by_url[f"http://{host}/help/en-US/text/b.html"] == "eng"
    assert f"http://{host}/help/fi/text/b.html" not in by_url  # English copy in the Finnish tree: dropped
    assert f"http://{host}/" not in by_url and f"http://{host}/help/index.html" not in by_url
    assert len(langs) == 4 + 2
    assert set(groups.group) == {f"{host}:text/shared/05/new_help.html", f"{host}:text/a.html"}
    assert (groups.groupby("group").lang.apply(set) == {"eng", "fin"}).all()
    assert set(groups.host) == {host}

    dis = pd.read_parquet(out / "truth" / "disagreements.parquet")
    assert dis.to_dict("records")[0] | {"percent": 0} == {
        "url": f"http://{host}/help/fi/text/b.html", "host": host, "tree_lang": "fin", "cld2_lang": "eng",
        "reliable": True, "percent": 0,
    }
    saved = json.loads((out / "build_report.json").read_text())
    assert saved == json.loads(json.dumps(report))
    site = saved["sites"][0]
    assert site["chooser_added"] is True and site["groups"] == 2 and site["pair_groups"] == 2
    assert [(l["code"], l["html_pages"], l["confirmed"], l["disagreements"]) for l in site["langs"]] == [
        ("en-US", 4, 4, {}), ("fi", 3, 2, {"eng": 1}),
    ]
    assert saved["truth_pages"] == 6 and saved["pages"] == len(urls)


def test_apache_site_rewrites_links_and_keeps_assets(tmp_path: Path, apache_root: Path) -> None:
    source = apache_from_root(apache_root, ["eng", "spa", "fra"])
    assert source.languages_available == ("eng", "fra", "spa")
    out = tmp_path / "web"
    report = build_web(out, "apache", ["eng", "spa"], [source], with_assets=True)
    host = "httpd.apache.test"
    store = WebStore(out)
    es_index = store.get(f"http://{host}/manual/es/index.html")
    assert es_index is not None
    assert b'href="/manual/es/mod/core.html"' in es_index.body  # absolute link to the real site rewritten
    assert b'href="../fr/x.html" hreflang="fr"' in es_index.body  # relative links untouched
    fr = store.get(f"http://{host}/manual/fr/x.html")
    assert fr is not None and fr.content_type == "text/html; charset=iso-8859-1"
    css = store.get(f"http://{host}/manual/style/css/manual.css")
    assert css is not None and css.content_type.startswith("text/css")
    png = store.get(f"http://{host}/manual/images/feather.png")
    assert png is not None and png.content_type == "image/png"
    assert store.get(f"http://{host}/manual/index.html") is not None
    store.close()
    site = report["sites"][0]  # type: ignore[index]
    assert site["rewritten_links"] == 2 and site["assets"] == 2
    langs, groups = _truth(out)
    by_url = dict(zip(langs.url, langs.lang))
    assert by_url[f"http://{host}/manual/fr/x.html"] == "fra"
    assert f"http://{host}/manual/es/x.html" not in by_url
    group_x = groups[groups.group == f"{host}:x.html"]
    assert set(group_x.lang) == {"eng", "fra"}  # the Spanish copy is English: not a translation
    assert site["groups"] == 3 and site["pair_groups"] == 2  # index, mod/core (eng+spa+fra) and x (eng+fra)


def test_missing_language_and_prepare_site(tmp_path: Path, apache_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingLanguage, match="fin"):
        apache_from_root(apache_root, ["eng", "fin"])
    guide = tmp_path / "installation-guide-amd64"
    for code, lang in (("en", "eng"), ("es", "spa"), ("zh_CN", "eng")):
        _write(guide / GUIDE_DOC / code / "index.html", _page(lang, "Guide"))
    _write(guide / GUIDE_DOC / "changelog.gz", b"\x1f\x8b")
    fetched: list[str] = []

    def fetch(package: str) -> Path:
        fetched.append(package)
        return {"apache2-doc": apache_root, "installation-guide-amd64": guide}[package]

    src = prepare_site("install-guide", ["spa", "eng"], fetch)
    assert [(t.code, t.prefix) for t in src.trees] == [("es", "/es/"), ("en", "/en/")]
    assert src.host == "install-guide.debian.test"
    assert prepare_site("apache", ["eng"], fetch).trees[0].root == apache_root / APACHE_MANUAL / "en"
    assert fetched == ["installation-guide-amd64", "apache2-doc"]
    monkeypatch.setattr("smartcrawl.web.debian.sites.libreoffice_packages", lambda: {"libreoffice-help-fi": "fin"})
    with pytest.raises(MissingLanguage, match="isl"):
        prepare_site("libreoffice", ["fin", "isl"], fetch)
    with pytest.raises(ValueError):
        prepare_site("nosuchsite", ["eng"], fetch)
    # install guide: chooser lists es and en; zh_CN exists but was not asked for
    out = tmp_path / "web"
    build_web(out, "guide", ["spa", "eng"], [src])
    store = WebStore(out)
    urls = {p.url for p in store.iter_pages()}
    assert urls == {"http://install-guide.debian.test/", "http://install-guide.debian.test/es/index.html",
                    "http://install-guide.debian.test/en/index.html"}
    store.close()


def test_rewrite_and_url_helpers() -> None:
    body, n = rewrite_links(b'<a href="http://x.org/d/a.html">a</a><img src=\'http://x.org/d/i.png\'> http://x.org/d/t',
                            [("http://x.org/d/", "/m/en/")])
    assert n == 2 and body == b'<a href="/m/en/a.html">a</a><img src=\'/m/en/i.png\'> http://x.org/d/t'
    assert page_url("h.test", "/help/fi/", "text/a b.html") == "http://h.test/help/fi/text/a%20b.html"


def test_built_site_is_served(tmp_path: Path, lo_roots: dict[str, Path]) -> None:
    source = libreoffice_from_roots(lo_roots["common"], {"en-US": lo_roots["en-us"], "fi": lo_roots["fi"]}, ["eng", "fin"])
    out = tmp_path / "web"
    build_web(out, "debian-eng-fin", ["eng", "fin"], [source])
    with serve_webs([out]) as server:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": server.proxy_url}))
        with opener.open("http://help.libreoffice.test/", timeout=10) as resp:
            assert b"/help/fi/text/shared/05/new_help.html" in resp.read()
        with opener.open("http://help.libreoffice.test/help/fi/text/a.html", timeout=10) as resp:
            assert "Tässä luvussa".encode() in resp.read()


@pytest.mark.slow
def test_real_debian_packages(tmp_path: Path) -> None:
    """Downloads libreoffice-help-{es,eu,common} with apt (network) into the user cache and builds spa-eus."""
    if not apt.apt_tools_available():
        pytest.skip("apt-get / dpkg-deb not available")
    from smartcrawl.web.cli import main

    out = tmp_path / "spa-eus"
    assert main(["debian", "--pair", "spa-eus", "--sites", "libreoffice", "--out", str(out)]) == 0
    report = json.loads((out / "build_report.json").read_text())
    assert report["pair_groups"] > 1000
    langs, groups = _truth(out)
    assert set(langs.lang) == {"spa", "eus"}
    assert groups.group.nunique() == report["groups"]


def test_cli_builds_sites_that_have_the_pair(tmp_path: Path, apache_root: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from smartcrawl.web.cli import main

    def fake_prepare(site: str, langs: list[str], fetch: object) -> object:
        if site == "apache":
            return apache_from_root(apache_root, langs)
        raise MissingLanguage(f"{site} has none of it")

    monkeypatch.setattr("smartcrawl.web.debian.cli.prepare_site", fake_prepare)
    monkeypatch.setattr("smartcrawl.web.debian.apt.apt_tools_available", lambda: False)
    out = tmp_path / "web"
    assert main(["debian", "--pair", "en-es", "--extra-langs", "fr,isl", "--out", str(out), "--cache-dir", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["name"] == "debian-eng-spa" and report["pair"] == ["eng", "spa"]
    assert [s["name"] for s in report["sites"]] == ["apache"]
    assert [l["code"] for l in report["sites"][0]["langs"]] == ["en", "es", "fr"]  # isl: the site has none
    assert main(["debian", "--pair", "eng-fin", "--out", str(tmp_path / "none"), "--cache-dir", str(tmp_path)]) == 1


def test_chooser_falls_back_to_first_page(tmp_path: Path) -> None:
    root = tmp_path / "installation-guide-amd64"
    _write(root / GUIDE_DOC / "en/ch01/intro.html", _page("eng", "Intro"))
    _write(root / GUIDE_DOC / "en/welcome.html", _page("eng", "Welcome"))
    src = install_guide_from_root(root, ["eng"])
    assert src.trees[0].start == "welcome.html"  # no index.html: the shallowest page


# -- reachability: the help's JavaScript contents and index as static pages, site maps ---------------------------

def _contents_js(code: str) -> str:
    return (
        "document.getElementById(\"Contents\").innerHTML='\\\n"
        "    <ul><li><input type=\"checkbox\" id=\"02\"><label for=\"02\">Writer</label><ul>\\\n"
        f"    <li><a target=\"_top\" href=\"{code}/text/swriter/main.html?DbPAR=WRITER\">Writer\\'s main page</a></li>\\\n"
        "  </ul></li></ul>\\\n';\n"
    )


def _bookmarks_js(code: str, n: int) -> str:
    rows = [f'{{url:"{code}/text/shared/kw{i}.html?DbPAR=SHARED#bm_id{i}", app:"SHARED", text:"key \\\\{i} &#34;q&#34;"}},'
            for i in range(n)]
    return "var bookmarks = [\n" + "\n".join(rows) + "\n];\n"


@pytest.fixture()
def lo_js_roots(tmp_path: Path) -> dict[str, Path]:
    """Fake LibreOffice help trees whose pages are linked only by contents.js / bookmarks.js, plus orphans.

    In each tree: the start page links nothing; contents.js reaches swriter/main.html, which links
    swriter/sub.html; bookmarks.js reaches shared/kw0..kw4.html; shared/orphan.html is linked by nothing.
    """
    roots = {name: tmp_path / f"libreoffice-help-{name}" for name in ("common", "en-us", "fi")}
    labels = {"en-US": ("Contents", "Index"), "fi": ("Sisällys", "Hakemisto")}
    for pkg, code, lang in (("en-us", "en-US", "eng"), ("fi", "fi", "fin")):
        tree = roots[pkg] / LIBREOFFICE_HELP / code
        side = (f'<a class="logo" href="{code}/text/shared/05/new_help.html"><p>LibreOffice Help</p></a>'
                f'<label for="accordion-1">{labels[code][0]}</label><div id="Contents"></div>'
                f'<div class="index-label">{labels[code][1]}  \U0001f50e\ufe0e </div>')
        _write(tree / "text/shared/05/new_help.html", _page(lang, "Help", side, base='<base href="../../../../">'))
        _write(tree / "text/swriter/main.html",
               _page(lang, "Main", f'<a href="{code}/text/swriter/sub.html">sub</a>', base='<base href="../../../">'))
        _write(tree / "text/swriter/sub.html", _page(lang, "Sub"))
        for i in range(5):
            _write(tree / f"text/shared/kw{i}.html", _page(lang, f"Keyword {i}"))
        _write(tree / "text/shared/orphan.html", _page(lang, f"Orphan {code}"))
        _write(tree / "contents.js", _contents_js(code).encode())
        _write(tree / "bookmarks.js", _bookmarks_js(code, 5).encode())
    _write(roots["common"] / LIBREOFFICE_HELP / "index.html", b"<html><body><script>location='x'</script></body></html>")
    return roots


def _bfs_links(store: WebStore, seeds: list[str]) -> set[str]:
    """A plain BFS over stored pages: <a href> (with <base href>) and redirects, same host, no fragments."""
    from urllib.parse import urldefrag, urljoin, urlsplit

    import lxml.html

    hosts = {urlsplit(s).hostname for s in seeds}
    seen: set[str] = set()
    todo = list(seeds)
    while todo:
        url = todo.pop(0)
        page = store.get(url)
        if url in seen or page is None:
            continue
        seen.add(url)
        if page.location:
            todo.append(urljoin(url, page.location))
            continue
        doc = lxml.html.document_fromstring(page.body)
        base = urljoin(url, (doc.xpath("//base/@href") or [url])[0])
        for href in doc.xpath("//a/@href"):
            link = urldefrag(urljoin(base, href))[0]
            if urlsplit(link).hostname in hosts:
                todo.append(link)
    return seen


def test_every_truth_page_is_reachable_from_the_seeds(tmp_path: Path, lo_js_roots: dict[str, Path],
                                                      apache_root: Path) -> None:
    lo = libreoffice_from_roots(lo_js_roots["common"], {"en-US": lo_js_roots["en-us"], "fi": lo_js_roots["fi"]},
                                ["eng", "fin"])
    out = tmp_path / "web"
    report = build_web(out, "debian-eng-fin", ["eng", "fin"], [lo, apache_from_root(apache_root, ["eng", "spa"])])
    store = WebStore(out)
    langs, _ = _truth(out)
    assert len(langs) == 2 * 9 + 5  # every page of both LibreOffice trees + the confirmed Apache pages
    for site in store.sites():
        reached = _bfs_links(store, site.seeds)
        truth = set(langs.url[langs.host == site.host])
        assert truth and truth <= reached, sorted(truth - reached)
        assert {r.host: r.share for r in site_reach(store)}[site.host] == 1.0
    host = "help.libreoffice.test"
    # without the static contents, index and site map only the start pages are reachable
    assert _bfs_links(store, [f"http://{host}/help/fi/text/shared/05/new_help.html"]) == {
        f"http://{host}/help/fi/text/shared/05/new_help.html"}
    contents = store.get(f"http://{host}/help/fi/contents.html")
    assert contents is not None
    html = contents.body.decode()
    assert '<label for="02">Writer</label>' in html and "Writer's main page" in html
    assert 'href="../fi/text/swriter/main.html"' in html  # the ?DbPAR= module hint dropped
    index = store.get(f"http://{host}/help/fi/bookmarks.html")
    assert index is not None and 'href="../fi/text/shared/kw3.html#bm_id3"' in index.body.decode()
    assert "key \\3 &quot;q&quot;" in index.body.decode() and "<title>LibreOffice Help: Hakemisto</title>" in index.body.decode()
    sitemap = store.get(f"http://{host}/help/fi/sitemap.html")
    assert sitemap is not None and '<a href="text/shared/orphan.html">Orphan fi</a>' in sitemap.body.decode()
    root = store.get(f"http://{host}/")
    assert root is not None
    assert '<a href="/help/fi/contents.html" hreflang="fi">Sisällys</a>' in root.body.decode()
    assert '<a href="/help/fi/sitemap.html" hreflang="fi">Site map</a>' in root.body.decode()
    store.close()
    # the generated pages carry no ground truth; the report counts them and what reaches the truth
    assert not langs.url.str.contains("contents.html|bookmarks|sitemap").any()
    lo_report = report["sites"][0]  # type: ignore[index]
    assert [(l["code"], l["nav_pages"], l["sitemap_links"], l["truth_reached"]) for l in lo_report["langs"]] == [
        ("en-US", 3, 1, 9), ("fi", 3, 1, 9),
    ]
    assert lo_report["max_hops"] == 3  # / -> contents -> swriter/main -> swriter/sub


def test_navigation_helpers() -> None:
    from smartcrawl.web.debian.helpnav import contents_html, help_labels, local_href, parse_bookmarks
    from smartcrawl.web.debian.navpages import page_name, paginate, pager_html
    from smartcrawl.web.debian.sitemap import free_stem, page_title, sitemap_nav

    assert local_href("fi/text/a.html?DbPAR=CALC#bm_1") == "../fi/text/a.html#bm_1"
    assert local_href("https://x.org/a?b") == "https://x.org/a?b" and local_href("#top") == "#top"
    assert contents_html("no tree here") == ""
    assert 'href="../en-US/text/swriter/main.html"' in contents_html(_contents_js("en-US"))
    marks = parse_bookmarks(_bookmarks_js("fi", 2))
    assert [(m.url, m.app, m.text) for m in marks] == [
        ("fi/text/shared/kw0.html?DbPAR=SHARED#bm_id0", "SHARED", "key \\0 &#34;q&#34;"),
        ("fi/text/shared/kw1.html?DbPAR=SHARED#bm_id1", "SHARED", "key \\1 &#34;q&#34;"),
    ]
    assert help_labels(b"<html><body><p>nothing</p></body></html>").contents == "Contents"
    assert paginate([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]] and paginate([], 3) == []
    assert [page_name("s", n, 3) for n in (1, 2, 3)] == ["s.html", "s-2.html", "s-3.html"]
    assert pager_html("s", 1, 1) == "" and '<a href="s-2.html">2</a>' in pager_html("s", 1, 2)
    assert free_stem({"sitemap.html"}, 1) == "sitemap_" and free_stem(set(), 2) == "sitemap"
    assert page_title(b"<html><head><title> A  page </title></head></html>", "x") == "A page"
    assert page_title(b"<html><body><h1>Head</h1></body></html>", "x") == "Head"
    nav = sitemap_nav("en", "Site", [("b.html", "B"), ("a.html", "A"), ("c.html", "C")], per_page=2,
                      taken={"sitemap.html"})
    assert [p.rel for p in nav.pages] == ["sitemap_.html", "sitemap_-2.html"] and nav.entries == (("sitemap_.html", "Site map"),)
    first = nav.pages[0].body.decode()
    assert first.index('href="a.html"') < first.index('href="b.html"') and 'href="sitemap_-2.html"' in first
    assert sitemap_nav("en", "Site", []).pages == ()
