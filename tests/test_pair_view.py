"""The marked pair view: differences between two pre-processed URLs put in brackets, the rest untouched."""

from __future__ import annotations

import pytest

from smartcrawl.pair_view import check_pair_view, mark_differences, pair_inputs


def test_language_mark_and_id_are_bracketed() -> None:
    a, b = mark_differences("a.com / en / news / 12", "a.com / fr / news / 13")
    assert a == "a.com / [ en ] / news / [ 12 ]"
    assert b == "a.com / [ fr ] / news / [ 13 ]"


def test_identical_texts_are_unchanged_and_insertions_marked_on_one_side() -> None:
    assert mark_differences("a.com / x-y", "a.com / x-y") == ("a.com / x-y", "a.com / x-y")
    a, b = mark_differences("a.com / page.html", "a.com / fi / page.html")
    assert a == "a.com / page.html"
    assert b == "a.com / [ fi / ] page.html"  # difflib aligns the first "/"; either reading is fine


def test_runs_of_differing_words_share_one_bracket_and_text_outside_is_kept() -> None:
    a, b = mark_differences("s.is / about-me / bio.html", "s.is / apie-mane / biografija.html")
    assert a == "s.is / [ about ]-[ me ] / [ bio ].html"  # the shared "-" stays outside
    assert b == "s.is / [ apie ]-[ mane ] / [ biografija ].html"
    a, b = mark_differences("s.is / news / 2020 / x", "s.is / fr / actualites / 2021 / y")
    assert a == "s.is / [ news ] / [ 2020 ] / [ x ]"
    assert b == "s.is / [ fr ] / [ actualites ] / [ 2021 / y ]"
    # removing the markers gives back the input
    assert b.replace("[ ", "").replace(" ]", "") == "s.is / fr / actualites / 2021 / y"


def test_pair_inputs_preprocess_then_mark() -> None:
    first, second = pair_inputs(["https://a.com/en/x%20y"], ["https://a.com/fr/x%20y"], "marked")
    assert first == ["a.com / [ en ] / x y"] and second == ["a.com / [ fr ] / x y"]
    assert pair_inputs(["https://a.com/en/x"], ["https://a.com/fr/x"], "plain") == (["a.com / en / x"], ["a.com / fr / x"])


def test_empty_and_unknown_view() -> None:
    assert mark_differences("", "a.com") == ("", "[ a.com ]")
    assert mark_differences("", "") == ("", "")
    with pytest.raises(ValueError, match="pair_view: unknown view 'diff'; allowed: plain, marked"):
        check_pair_view("diff")
