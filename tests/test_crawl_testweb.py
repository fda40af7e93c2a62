"""A small hand-written test-bed web for the crawler tests (and sanity tests of the web itself).

``build_test_web(root)`` writes a :class:`~smartcrawl.web.store.WebStore` with an English-Maltese site
full of crawler hazards (robots.txt, 404, redirect, redirect loop and chain, size cap, binary body
served as HTML, PDF, ISO-8859-3 and cp1252 pages, malformed HTML, path traps, a session-id trap,
unparsable links, an https link, a slow host and a failing host) plus a clean second site;
``build_chain_web(root, n)`` writes a bigger plain site for the kill/resume tests. Other test
modules import these builders (pytest puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from w3lib.encoding import html_to_unicode

from smartcrawl.crawl.content_lang import page_language
from smartcrawl.web.store import SiteInfo, StoredPage, WebStore

ALPHA = "www.alpha.test"
ALPHA_MT = "mt.alpha.test"
BETA = "www.beta.test"
SLOW = "slow.alpha.test"
FLAKY = "flaky.alpha.test"
CHAIN = "www.chain.test"

ENG = [
    "The government announced new measures to help families with the rising cost of living.",
    "The museum in Valletta opens every day from nine in the morning until five in the evening.",
    "Students can apply for a scholarship before the end of the month.",
    "The ferry between the two islands leaves every forty-five minutes during the summer.",
    "Our library offers free courses in reading and writing for adults.",
    "The weather will be sunny tomorrow with a light wind from the north.",
    "Please contact our office if you have any questions about your application.",
    "The new hospital wing will treat more patients and reduce the waiting lists.",
    "Farmers in the north of the island are harvesting potatoes this week.",
    "The festival brings music, food and fireworks to the village square.",
]
MLT = [
    "Il-gvern ħabbar miżuri ġodda biex jgħin lill-familji bl-għoli tal-ħajja.",
    "Il-mużew fil-Belt Valletta jiftaħ kuljum mid-disgħa ta' filgħodu sal-ħamsa ta' filgħaxija.",
    "L-istudenti jistgħu japplikaw għal borża ta' studju qabel tmiem ix-xahar.",
    "Il-vapur bejn iż-żewġ gżejjer jitlaq kull ħamsa u erbgħin minuta matul is-sajf.",
    "Il-librerija tagħna toffri korsijiet b'xejn fil-qari u l-kitba għall-adulti.",
    "It-temp għada se jkun xemxi b'riħ ħafif mit-tramuntana.",
    "Jekk jogħġbok ikkuntattja l-uffiċċju tagħna jekk għandek xi mistoqsijiet dwar l-applikazzjoni tiegħek.",
    "Il-ġwienaħ il-ġdid tal-isptar se jikkura aktar pazjenti u jnaqqas il-listi ta' stennija.",
    "Il-bdiewa fit-tramuntana tal-gżira qed jaħsdu l-patata din il-ġimgħa.",
    "Il-festa ġġib il-mużika, l-ikel u l-logħob tan-nar fil-pjazza tar-raħal.",
]
FRA = ("Le musée ouvre tous les jours de neuf heures du matin à cinq heures du soir. Les étudiants peuvent "
       "demander une bourse avant la fin du mois. Le temps sera ensoleillé demain avec un vent léger du nord.")

HTML = "text/html; charset=utf-8"


def text_of(sentences: list[str], i: int) -> str:
    """Three sentences of a language, chosen by page number."""
    return " ".join(sentences[(i + k) % len(sentences)] for k in (0, 3, 7))


def page(title: str, text: str, links: list[str], lang: str = "en", head: str = "") -> bytes:
    """A small UTF-8 HTML page."""
    anchors = "\n".join(f'<li><a href="{h}">link {n}</a></li>' for n, h in enumerate(links))
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>{head}'
            f"</head><body><h1>{title}</h1><p>{text}</p><ul>{anchors}</ul>"
            f"<script>var x = 'ignored script text';</script></body></html>").encode("utf-8")


def html(url: str, body: bytes, content_type: str = HTML, status: int = 200) -> StoredPage:
    """A stored HTML response."""
    return StoredPage(url=url, status=status, content_type=content_type, body=body)


def redirect(url: str, target: str, status: int = 302) -> StoredPage:
    """A stored redirect."""
    return StoredPage(url=url, status=status, content_type=HTML, body=b"<html><body>moved</body></html>",
                      location=target)


BAD_LINKS = ["http://[::1", "http://exa mple.com/", "http://www.alpha.test:99999/", "ftp://www.alpha.test/f",
             "javascript:void(0)", "mailto:info@alpha.test", "", "#top", "http://"]

# Pages of www.alpha.test (and mt.alpha.test) that a default test crawl stores (see test_crawl_e2e.TEST_SETTINGS).
NEWS = 6
EXPECTED_ALPHA: frozenset[str] = frozenset(
    [f"http://{ALPHA}/", f"http://{ALPHA}/mt/", f"http://{ALPHA}/en/about", f"http://{ALPHA}/mt/dwar",
     f"http://{ALPHA}/fr/", f"http://{ALPHA}/fr/page2", f"http://{ALPHA}/en/hidden", f"http://{ALPHA}/en/about-us",
     f"http://{ALPHA}/latin3", f"http://{ALPHA}/cp1252", f"http://{ALPHA}/malformed",
     f"http://{ALPHA}/trap/a/", f"http://{ALPHA}/trap/a/a/", f"http://{ALPHA}/session?sid=1",
     f"http://{ALPHA_MT}/", f"http://{ALPHA_MT}/mt/extra"]
    + [f"http://{ALPHA}/en/news/{k}" for k in range(1, NEWS + 1)]
    + [f"http://{ALPHA}/mt/news/{k}" for k in range(1, NEWS + 1)]
    + [f"http://{ALPHA}/deep/" + "".join(f"{j}/" for j in range(1, d + 1)) for d in range(1, 6)]
)
EXPECTED_BETA: frozenset[str] = frozenset(
    [f"http://{BETA}/"] + [f"http://{BETA}/{lang}/{x}" for lang in ("en", "mt") for x in "abc"]
)
# URL -> the language CLD2 must find there.
EXPECTED_LANG: dict[str, str] = {
    f"http://{ALPHA}/latin3": "mlt", f"http://{ALPHA}/cp1252": "eng", f"http://{ALPHA}/malformed": "eng",
    f"http://{ALPHA}/fr/": "fra", f"http://{ALPHA}/mt/news/3": "mlt", f"http://{ALPHA}/en/news/3": "eng",
}


def _alpha_pages() -> list[StoredPage]:
    a = f"http://{ALPHA}"
    home_links = ([f"/en/news/{k}" for k in range(1, 3)] + ["/en/about", f"http://{ALPHA_MT}/", "/fr/",
                  "/private/secret", "/missing", "/old", "/loop-a", "/chain/1", "/big", "/binary.html",
                  "/report.pdf", "/download", "/latin3", "/cp1252", "/malformed", "/trap/a/", "/deep/1/",
                  "/session?sid=1", "http://www.google.com/", f"https://{ALPHA}/secure", f"http://{SLOW}/page",
                  f"http://{FLAKY}/page", "/mt/"] + BAD_LINKS)
    pages = [html(f"{a}/", page("Alpha news", text_of(ENG, 0), home_links))]
    for k in range(1, NEWS + 1):
        nxt = [f"/en/news/{k + 1}"] if k < NEWS else []
        pages.append(html(f"{a}/en/news/{k}", page(f"News {k}", text_of(ENG, k), [f"/mt/news/{k}", "/", *nxt])))
        nxt_mt = [f"/mt/news/{k + 1}"] if k < NEWS else []
        pages.append(html(f"{a}/mt/news/{k}", page(f"Aħbarijiet {k}", text_of(MLT, k),
                                                   [f"/en/news/{k}", "/mt/", *nxt_mt], "mt")))
    pages += [
        html(f"{a}/mt/", page("Aħbarijiet", text_of(MLT, 0), ["/", "/mt/news/1", "/mt/dwar"], "mt")),
        html(f"{a}/en/about", page("About us", text_of(ENG, 4), ["/mt/dwar", "/"])),
        html(f"{a}/mt/dwar", page("Dwarna", text_of(MLT, 4), ["/en/about"], "mt")),
        html(f"{a}/fr/", page("Nouvelles", FRA, ["/fr/page2", "/en/hidden"], "fr")),
        html(f"{a}/fr/page2", page("Page deux", FRA, ["/fr/"], "fr")),
        html(f"{a}/en/hidden", page("Hidden", text_of(ENG, 6), ["/"])),
        html(f"{a}/en/about-us", page("About us (new)", text_of(ENG, 5), ["/"])),
        html(f"{a}/private/secret", page("Secret", text_of(ENG, 2), ["/"])),
        redirect(f"{a}/old", "/en/about-us", 301),
        redirect(f"{a}/loop-a", f"{a}/loop-b"),
        redirect(f"{a}/loop-b", f"{a}/loop-a"),
        *[redirect(f"{a}/chain/{k}", f"/chain/{k + 1}") for k in range(1, 10)],
        html(f"{a}/big", page("Big", " ".join([text_of(ENG, 1)] * 1200), ["/en/hidden"])),
        html(f"{a}/binary.html", bytes(range(256)) * 40),
        StoredPage(url=f"{a}/report.pdf", content_type="application/pdf", body=b"%PDF-1.4 fake"),
        StoredPage(url=f"{a}/download", content_type="application/pdf", body=b"%PDF-1.4" + bytes(5000)),
        html(f"{a}/latin3", page("Aħbarijiet", text_of(MLT, 7), ["/mt/"], "mt").replace(b'charset="utf-8"', b"")
             .decode("utf-8").encode("iso-8859-3"), "text/html; charset=iso-8859-3"),
        html(f"{a}/cp1252", ('<html><head><meta charset="windows-1252"><title>Quotes</title></head><body><p>'
                             "\u201cWelcome\u201d \u2013 " + text_of(ENG, 8) + "</p></body></html>").encode("cp1252"),
             "text/html"),
        html(f"{a}/malformed", ("<html><body><p>" + text_of(ENG, 9) + '<div><a href="/en/news/3">three<b></i>'
                                "<table><tr><td>cell<td><a href=/en/news/4>four" "\x00\x01<<>>&&&;;<p <a href='/fr/'>")
             .encode("utf-8")),
        html(f"{a}/trap/a/", page("Trap", text_of(ENG, 3), ["a/"])),
        *[html(f"{a}/trap/" + "a/" * d, page("Trap", text_of(ENG, 3), ["a/"])) for d in range(2, 6)],
        *[html(f"{a}/deep/" + "".join(f"{j}/" for j in range(1, d + 1)),
               page("Deep", text_of(ENG, d), [f"{d + 1}/"])) for d in range(1, 10)],
        *[html(f"{a}/session?sid={k}", page("Session", text_of(ENG, 2), [f"/session?sid={k + 1}"]))
          for k in range(1, 6)],
    ]
    mt = f"http://{ALPHA_MT}"
    pages += [
        html(f"{mt}/", page("Portal", text_of(MLT, 2), [f"{a}/mt/", "/mt/extra"], "mt")),
        html(f"{mt}/mt/extra", page("Iktar", text_of(MLT, 5), ["/"], "mt")),
        html(f"http://{SLOW}/page", page("Slow", text_of(ENG, 1), ["/"])),
        html(f"http://{FLAKY}/page", page("Flaky", text_of(ENG, 1), ["/"])),
    ]
    return pages


def _beta_pages() -> list[StoredPage]:
    b = f"http://{BETA}"
    pages = [html(f"{b}/", page("Beta", text_of(ENG, 5), ["/en/a", "/en/b", "/en/c"]))]
    for i, x in enumerate("abc"):
        pages.append(html(f"{b}/en/{x}", page(f"Beta {x}", text_of(ENG, i), [f"/mt/{x}", "/"])))
        pages.append(html(f"{b}/mt/{x}", page(f"Beta {x}", text_of(MLT, i), [f"/en/{x}"], "mt")))
    return pages


def _write_truth(store: WebStore, pages: list[StoredPage]) -> None:
    rows = []
    for p in pages:
        if p.status == 200 and p.content_type.startswith("text/html"):
            text = html_to_unicode(p.content_type, p.body)[1]
            lang = page_language(text).lang
            rows.append({"url": p.url, "host": p.url.split("/")[2], "lang": lang})
    langs = pd.DataFrame(rows, columns=["url", "host", "lang"])
    groups = pd.DataFrame(columns=["group", "url", "host", "lang"])
    store.write_truth(langs, groups)


def build_test_web(root: str | Path) -> Path:
    """Write the hazard web (module docstring) under ``root``; returns ``root``."""
    root = Path(root)
    store = WebStore(root)
    sites = [
        SiteInfo(host=ALPHA, seeds=[f"http://{ALPHA}/"], robots_txt="User-agent: *\nDisallow: /private/\n",
                 langs=["eng", "mlt"]),
        SiteInfo(host=ALPHA_MT, seeds=[f"http://{ALPHA_MT}/"], robots_txt="", langs=["mlt"]),
        SiteInfo(host=SLOW, seeds=[], langs=["eng"]),
        SiteInfo(host=FLAKY, seeds=[], langs=["eng"]),
        SiteInfo(host=BETA, seeds=[f"http://{BETA}/"], langs=["eng", "mlt"]),
    ]
    store.create("crawl-test-web", ("eng", "mlt"), sites)
    pages = _alpha_pages() + _beta_pages()
    store.add_pages(pages)
    _write_truth(store, pages)
    store.close()
    return root


def chain_urls(n: int) -> list[str]:
    """The pages of :func:`build_chain_web` (each one stored)."""
    c = f"http://{CHAIN}"
    return [f"{c}/"] + [f"{c}/{lang}/p{k}" for k in range(1, n + 1) for lang in ("en", "mt")]


def build_chain_web(root: str | Path, n: int = 30) -> Path:
    """A plain bilingual site: home -> en/p1..; each English page links its translation and the next two pages."""
    root = Path(root)
    store = WebStore(root)
    store.create("crawl-chain-web", ("eng", "mlt"), [SiteInfo(host=CHAIN, seeds=[f"http://{CHAIN}/"],
                                                              langs=["eng", "mlt"])])
    c = f"http://{CHAIN}"
    pages = [html(f"{c}/", page("Chain", text_of(ENG, 0), ["/en/p1", "/en/p2"]))]
    for k in range(1, n + 1):
        nxt = [f"/en/p{j}" for j in (k + 1, k + 2) if j <= n]
        pages.append(html(f"{c}/en/p{k}", page(f"Page {k}", text_of(ENG, k), [f"/mt/p{k}", *nxt, "/"])))
        pages.append(html(f"{c}/mt/p{k}", page(f"Paġna {k}", text_of(MLT, k), [f"/en/p{k}", "/"], "mt")))
    store.add_pages(pages)
    _write_truth(store, pages)
    store.close()
    return root


def test_test_web_languages(tmp_path: Path) -> None:
    """CLD2 recognises every language page of the test web as the language it was written in."""
    root = build_test_web(tmp_path / "web")
    truth = WebStore(root).truth_langs().set_index("url")["lang"].to_dict()
    for url, lang in EXPECTED_LANG.items():
        assert truth[url] == lang, url
    for k in range(1, NEWS + 1):
        assert truth[f"http://{ALPHA}/en/news/{k}"] == "eng"
        assert truth[f"http://{ALPHA}/mt/news/{k}"] == "mlt"
    chain = build_chain_web(tmp_path / "chain", 5)
    chain_truth = WebStore(chain).truth_langs()
    assert set(chain_truth["lang"]) == {"eng", "mlt"}
    assert len(chain_truth) == len(chain_urls(5))
