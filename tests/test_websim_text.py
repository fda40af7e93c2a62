"""websim text: concept-aligned lexicons, plan rendering, slugs, and CLD2 on generated pages."""

from __future__ import annotations

import random
import re

import pytest

from smartcrawl.web.websim.cld2check import accuracy_table, check_languages, detect, visible_text
from smartcrawl.web.websim.text import (
    UI_KEYS,
    Vocabulary,
    ascii_fold,
    load_lexicon,
    load_lexicons,
    make_entities,
    make_paragraphs,
    make_title,
    parse_lexicon,
    render_paragraph,
    render_sentence,
    slugify,
    supported_languages,
)

PAPER_LANGS = ("eng", "isl", "mlt", "fin", "spa", "eus")


def test_at_least_fourteen_languages_including_the_papers() -> None:
    langs = supported_languages()
    assert len(langs) >= 14
    assert set(PAPER_LANGS) <= set(langs)


def test_lexicons_are_concept_aligned() -> None:
    vocab = Vocabulary()
    for lang, lex in load_lexicons().items():
        assert len(lex.nouns) == vocab.n_nouns, lang
        assert len(lex.verbs) == vocab.n_verbs, lang
        assert len(lex.adjectives) == vocab.n_adjectives, lang
        assert len(lex.function) >= 30, lang
        assert [k for k, _ in lex.ui] == list(UI_KEYS), lang
        assert all(w and "," not in w for w in lex.nouns + lex.verbs + lex.adjectives), lang


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no text"):
        load_lexicon("xyz")


def test_parse_lexicon_sections_and_glue() -> None:
    lex = parse_lexicon("tst", "# c\n[function]\nil-, u\n[ui]\nhome = Dar\n[nouns]\nbelt, ktieb\n[verbs]\njara\n[adjectives]\nsabiħ\n")
    assert lex.function == ("il-", "u") and lex.nouns == ("belt", "ktieb") and lex.ui_text("home") == "Dar"
    # A function word ending in "-" is glued to the next word (Maltese articles).
    assert render_sentence((("F", 0), ("N", 0), ("V", 0)), lex) == "Il-belt jara."


def test_translations_share_structure_entities_and_numbers() -> None:
    rng = random.Random(3)
    vocab = Vocabulary()
    ents = make_entities(rng, 3)
    plan = make_paragraphs(rng, len(ents), vocab, (3, 3), (4, 4))
    lexs = load_lexicons(["eng", "fin", "mlt"])
    texts = {lang: [render_paragraph(p, lex, ents) for p in plan] for lang, lex in lexs.items()}
    for lang, paras in texts.items():
        assert len(paras) == 3 and all(p.count(".") >= 4 for p in paras), lang
    numbers = {lang: sorted(re.findall(r"\d+", " ".join(t))) for lang, t in texts.items()}
    assert numbers["eng"] == numbers["fin"] == numbers["mlt"]
    for ent in ents:
        counts = {lang: " ".join(t).count(ent) for lang, t in texts.items()}
        assert len(set(counts.values())) == 1
    ratio = len(" ".join(texts["fin"])) / len(" ".join(texts["eng"]))
    assert 0.7 < ratio < 1.6  # translation-like length ratio


def test_slugs() -> None:
    assert ascii_fold("Íslenska għali Straße þorp") == "islenska ghali strasse thorp"
    assert slugify(["Speċjali", "aħbarijiet"]) == "specjali-ahbarijiet"
    assert slugify(["día", "año"], keep_unicode=True) == "d%C3%ADa-a%C3%B1o"
    lex = load_lexicon("isl")
    title = make_title(random.Random(1), Vocabulary())
    assert slugify([lex.word(s) for s in title if s[0] != "F"]).isascii()


def test_visible_text_and_detect() -> None:
    html = "<html><head><style>p{}</style><title>T</title></head><body><p>Þetta &amp; hitt</p><script>x</script></body></html>"
    assert visible_text(html) == "T Þetta & hitt"
    assert detect("") == "und"


def test_cld2_identifies_generated_pages_in_every_language() -> None:
    results = check_languages(pages_per_lang=40, seed=1)
    assert set(results) == set(supported_languages())
    table = accuracy_table(results)
    for lang, r in results.items():
        assert r.n >= 30, (lang, table)
        assert r.accuracy >= 0.95, table
