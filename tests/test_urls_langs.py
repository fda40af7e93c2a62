"""URL helpers and language-code normalisation."""

from __future__ import annotations

import pytest

from smartcrawl.langs import LANGUAGES, to_iso3
from smartcrawl.urls import BadURL, preprocess_url, registered_domain


@pytest.mark.parametrize(
    ("code", "iso3"),
    [("en", "eng"), ("eng", "eng"), ("en-US", "eng"), ("en_GB", "eng"), ("English", "eng"), ("fre", "fra"),
     ("IS", "isl"), ("ice", "isl"), ("mt", "mlt"), ("eu", "eus"), ("baq", "eus"), ("nb", "nob"), ("sq", "sqi"),
     ("cnr", "cnr"), ("un", "und"), ("zh-Hant", "zho"), ("Íslenska", "isl")],
)
def test_to_iso3(code: str, iso3: str) -> None:
    assert to_iso3(code) == iso3


@pytest.mark.parametrize("code", ["", "  ", "qqq", "e", "english-ish", "12"])
def test_to_iso3_unknown(code: str) -> None:
    assert to_iso3(code) is None


def test_albanian_url_tokens() -> None:
    toks = set(LANGUAGES["sqi"].url_tokens())
    assert {"albanian", "shqip", "sqi", "alb", "sq", "sq-al", "sq-xk"} <= toks


def test_registered_domain() -> None:
    assert registered_domain("https://www.bbc.co.uk/news") == "bbc.co.uk"
    assert registered_domain("http://a.b.example.com.mt/x?y=1") == "example.com.mt"
    assert registered_domain("example.org/path") == "example.org"
    assert registered_domain("http://127.0.0.1:8080/x") == "127.0.0.1"


@pytest.mark.parametrize(
    ("url", "reason"),
    [("", "empty_url"), ("http://a b.com/", "whitespace_in_url"), ("ftp://x.com/f", "not_http_url"),
     ("http://localhost/", "no_host"), ("http://[::1/", "unparsable_url")],
)
def test_bad_urls(url: str, reason: str) -> None:
    with pytest.raises(BadURL) as err:
        registered_domain(url)
    assert err.value.reason == reason


def test_preprocess_url() -> None:
    assert preprocess_url("https://a.com/en/x%20y/") == "a.com / en / x y"
    assert preprocess_url("http://b.org/caf%C3%A9?q=1") == "b.org / café?q=1"
