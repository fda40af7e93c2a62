"""URL language-marking conventions: URL building, the pair classifier, and their agreement."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from smartcrawl.web.websim.classify import LanguageTokens, classify_pair, find_marks, short_token_place
from smartcrawl.web.websim.config import WebsimConfig
from smartcrawl.web.websim.conventions import (
    CONVENTIONS,
    DIR,
    QUERY,
    SUFFIX,
    LabelMaker,
    LangAddress,
    SiteUrls,
    UrlStyle,
    assign_addresses,
    code_token,
    language_tld,
)
from smartcrawl.web.websim.generate import plan_web

# (url1, lang1, url2, lang2, expected convention): real-web shapes, several from the shared data.
CASES = [
    ("http://game3a.com/en/3043/x.html", "eng", "http://game3a.com/bg/3043/x.html", "bul", "dir_code"),
    ("http://aerobus.com/features.html", "eng", "http://aerobus.com/mx/features.html", "spa", "dir_code"),
    ("https://www.weber.com/IE/en/tips/w.html", "eng", "https://www.weber.com/HR/hr/savjeti/w.html", "hrv", "dir_code"),
    ("http://www.alfa.com/en/p/", "eng", "http://www.alfa.com/pt-PT/p/", "por", "dir_code"),
    ("http://www.muhammad.com/88languages/English/a.html", "eng", "http://www.muhammad.com/88languages/Maltese/a.html",
     "mlt", "dir_name"),
    ("https://en.babygraz.com/b/7/", "eng", "https://el.babygraz.com/b/7/", "ell", "subdomain"),
    ("http://m.kejianinc.com/1/v.html", "eng", "http://m.mt.kejianinc.com/1/v.html", "mlt", "subdomain"),
    ("https://www.lc-tech.com/pc/t/?lang=en", "eng", "https://www.lc-tech.com/pc/t/?lang=lt", "lit", "query"),
    ("http://gcompris.net/screenshots-en.html", "eng", "http://gcompris.net/screenshots-hu.html", "hun", "suffix"),
    ("http://x.org/index.en.html", "eng", "http://x.org/index.es.html", "spa", "suffix"),
    ("http://www.tripadvisor.co.uk/h-1.html", "eng", "http://www.tripadvisor.com.gr/h-1.html", "ell", "country_domain"),
    ("http://amagro.com/uniqueness-of-lignohumate.html", "eng", "http://amagro.com/cim-je-lignohumat-unikatni.html",
     "ces", "no_marker"),
    ("http://tlaxcala-int.org/article.asp?reference=2273", "eng", "http://tlaxcala-int.org/article.asp?reference=2274",
     "fra", "opaque_id"),
    ("http://us.mozaweb.com/tools.php?a=b", "eng", "http://www.mozaweb.com/no/tools.php?a=b", "nob", "mixed"),
    ("http://angelescitycuisine.blogspot.in/2010.html", "eng", "http://www.clubdeperuanos.com/receta/", "spa", "other"),
    ("http://www.ipu.org/news-e/16-2.htm", "eng", "http://www.ipu.org/news-f/16-2.htm", "fra", "dir_code"),
    ("http://tulliana.eu/c.php?LANG=E&id=3", "eng", "http://tulliana.eu/c.php?LANG=F&id=3", "fra", "query"),
    ("http://www.ofm.org/2/min/Let03en.html", "eng", "http://www.ofm.org/2/min/Let03fr.html", "fra", "suffix"),
]


@pytest.mark.parametrize("url1,lang1,url2,lang2,expected", CASES)
def test_classify_real_shapes(url1: str, lang1: str, url2: str, lang2: str, expected: str) -> None:
    assert classify_pair(url1, lang1, url2, lang2).convention == expected


def test_marks_record_place_form_and_parameter() -> None:
    tokens = LanguageTokens()
    marks = find_marks("http://es.x.com/ES/a/page_es-ES.htm?hl=es", "spa", tokens)
    by_place = {m.place: m for m in marks}
    assert by_place["subdomain"].form == "iso1"
    assert by_place["dir_code"].form == "iso1_upper"
    assert by_place["suffix"].form == "iso1_region"
    assert by_place["query"].key == "hl"
    # A country code deeper in the path is a place, not a language ("/forecast/us/").
    assert find_marks("http://meteocast.net/forecast/us/x/", "eng", tokens) == ()


def test_short_token_place() -> None:
    assert short_token_place("http://a.com/x/res_s.asp", "http://a.com/x/res_s_f.asp") == "suffix"
    assert short_token_place("http://a.com/sea/x.html", "http://a.com/mar/x.html") is None  # words, not codes
    assert short_token_place("http://a.com/news/x", "http://a.com/noticias/x") is None


def test_site_urls_for_each_kind() -> None:
    addrs = {
        "eng": LangAddress("eng", "www.a.com"),
        "spa": LangAddress("spa", "www.a.com", DIR, "es"),
        "fin": LangAddress("fin", "www.a.com", QUERY, "fi"),
        "mlt": LangAddress("mlt", "www.a.com", SUFFIX, "mt"),
        "isl": LangAddress("isl", "is.a.com", home_path="forsida"),
    }
    urls = SiteUrls(addrs, UrlStyle(ext=".html", param="lang", suffix_sep="."))
    assert urls.home("eng") == "http://www.a.com/"
    assert urls.home("spa") == "http://www.a.com/es/"
    assert urls.home("fin") == "http://www.a.com/?lang=fi"
    assert urls.home("mlt") == "http://www.a.com/index.mt.html"
    assert urls.home("isl") == "http://is.a.com/forsida/"
    assert urls.doc("spa", "noticias", "gran-casa", 7) == "http://www.a.com/es/noticias/gran-casa.html"
    assert urls.doc("mlt", "ahbarijiet", "dar", 7) == "http://www.a.com/ahbarijiet/dar.mt.html"
    assert urls.listing("fin", "uutiset", 3, 2) == "http://www.a.com/uutiset/page/2/?lang=fi"
    opaque = SiteUrls(addrs, UrlStyle(opaque=True, id_param="node"))
    assert opaque.doc("eng", "news", "x", 123) == "http://www.a.com/node/123"


def test_code_tokens_and_tlds() -> None:
    rng = random.Random(0)
    assert code_token("spa", "iso1", rng) == "es"
    assert code_token("spa", "iso1_upper", rng) == "ES"
    assert code_token("isl", "iso3", rng) in ("isl", "ice")
    assert code_token("isl", "iso1_region", rng).lower().replace("_", "-") == "is-is"
    assert language_tld("eus") == "eus" and language_tld("fin") == "fi" and language_tld("eng") == "com"


def test_every_convention_assigns_distinct_homes() -> None:
    langs = ("eng", "mlt", "fra", "deu")
    for conv in CONVENTIONS:
        for seed in range(5):
            rng = random.Random(seed)
            plan = assign_addresses(conv, langs, "eng", "site", "com", rng, {"iso1": 1.0}, {"lang": 1.0},
                                    seed % 2 == 0, LabelMaker(rng), {"dir_code": 1.0, "query": 1.0})
            assert set(plan.addresses) == set(langs)
            if conv == "no_marker":
                assert plan.translated_slugs


def test_generated_pairs_classify_as_their_site_convention() -> None:
    """The classifier recovers the convention each websim site was built with (doc pairs of the pair)."""
    base = WebsimConfig(pair=("eng", "fin"), n_sites=len(CONVENTIONS) * 2, n_pages=3000, seed=5,
                        calendar_trap_prob=0.0, session_trap_prob=0.0).resolved()
    tokens = LanguageTokens()
    agree: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for conv in CONVENTIONS:
        cfg = replace(base, mix={conv: 1.0}, n_sites=3, n_pages=600)
        for site in plan_web(cfg):
            for gid, members in site.groups():
                urls = {lang: url for url, lang in members}
                if "/doc/" in gid and "eng" in urls and "fin" in urls:
                    got = classify_pair(urls["eng"], "eng", urls["fin"], "fin", tokens).convention
                    total[conv] += 1
                    agree[conv] += got == conv
    for conv in CONVENTIONS:
        assert total[conv] > 0, conv
        assert agree[conv] / total[conv] >= 0.9, (conv, agree[conv], total[conv])
