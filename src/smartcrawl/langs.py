"""Language codes, names and endonyms, normalised to ISO 639-3.

Every source writes languages its own way (``en``, ``eng``, ``en-US``, ``pt_BR``, ``fre``,
``English``); :func:`to_iso3` maps them all to one ISO 639-3 code (macrolanguage codes where the
web uses them, e.g. ``nor``, ``msa``, ``zho``). :data:`LANGUAGES` holds the extra facts the URL
baselines and the synthetic web need (endonym, ISO 639-2/B, countries where the language is official).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import pycountry


@dataclass(frozen=True)
class LanguageInfo:
    """Facts about one language used by URL rules and by the synthetic web."""

    iso3: str
    iso1: str | None
    name: str
    endonym: str
    iso2b: str | None = None
    countries: tuple[str, ...] = field(default_factory=tuple)

    @property
    def iso2_codes(self) -> tuple[str, ...]:
        """The ISO 639-2 codes (terminological = ISO 639-3 here, and bibliographic if different)."""
        return tuple(dict.fromkeys(c for c in (self.iso3, self.iso2b) if c))

    def url_tokens(self) -> tuple[str, ...]:
        """Tokens that mark this language in a URL (WMT16 URL-matching baseline, Buck & Koehn 2016).

        English name, endonym, ISO 639-1 and 639-2 codes, and ``639-1 + '-' + country`` for the
        countries where the language is official, all lower-cased.
        """
        toks: list[str] = [self.name.lower(), self.endonym.lower(), *self.iso2_codes]
        if self.iso1:
            toks.append(self.iso1)
            toks.extend(f"{self.iso1}-{c}" for c in self.countries)
        return tuple(dict.fromkeys(toks))


# The languages of the paper's experiments and of ../shared/data. Endonyms and official-country lists
# are facts from ISO 3166 / CLDR territory data, kept to what the URL rules need.
_TABLE: tuple[tuple[str, str | None, str, str, str | None, str], ...] = (
    # iso3, iso1, English name, endonym, iso2b, countries (ISO 3166-1 alpha-2, lower-case)
    ("eng", "en", "English", "English", None, "gb us ie au nz ca za in mt ph sg ng"),
    ("fra", "fr", "French", "Français", "fre", "fr be ch ca lu mc sn ci"),
    ("spa", "es", "Spanish", "Español", None, "es mx ar co cl pe ve ec gt cu bo do hn py sv ni cr pa uy"),
    ("deu", "de", "German", "Deutsch", "ger", "de at ch li lu be"),
    ("ita", "it", "Italian", "Italiano", None, "it ch sm va"),
    ("por", "pt", "Portuguese", "Português", None, "pt br ao mz cv"),
    ("nld", "nl", "Dutch", "Nederlands", "dut", "nl be sr"),
    ("isl", "is", "Icelandic", "Íslenska", "ice", "is"),
    ("mlt", "mt", "Maltese", "Malti", None, "mt"),
    ("fin", "fi", "Finnish", "Suomi", None, "fi"),
    ("eus", "eu", "Basque", "Euskara", "baq", "es"),
    ("cat", "ca", "Catalan", "Català", None, "ad es"),
    ("glg", "gl", "Galician", "Galego", None, "es"),
    ("bul", "bg", "Bulgarian", "Български", None, "bg"),
    ("ces", "cs", "Czech", "Čeština", "cze", "cz"),
    ("dan", "da", "Danish", "Dansk", None, "dk"),
    ("ell", "el", "Greek", "Ελληνικά", "gre", "gr cy"),
    ("est", "et", "Estonian", "Eesti", None, "ee"),
    ("gle", "ga", "Irish", "Gaeilge", None, "ie"),
    ("hrv", "hr", "Croatian", "Hrvatski", None, "hr ba"),
    ("hun", "hu", "Hungarian", "Magyar", None, "hu"),
    ("lit", "lt", "Lithuanian", "Lietuvių", None, "lt"),
    ("lav", "lv", "Latvian", "Latviešu", None, "lv"),
    ("nob", "nb", "Norwegian Bokmål", "Norsk bokmål", None, "no"),
    ("nno", "nn", "Norwegian Nynorsk", "Norsk nynorsk", None, "no"),
    ("nor", "no", "Norwegian", "Norsk", None, "no"),
    ("pol", "pl", "Polish", "Polski", None, "pl"),
    ("ron", "ro", "Romanian", "Română", "rum", "ro md"),
    ("slk", "sk", "Slovak", "Slovenčina", "slo", "sk"),
    ("slv", "sl", "Slovenian", "Slovenščina", None, "si"),
    ("swe", "sv", "Swedish", "Svenska", None, "se fi"),
    ("sqi", "sq", "Albanian", "Shqip", "alb", "al xk"),
    ("mkd", "mk", "Macedonian", "Македонски", "mac", "mk"),
    ("cnr", None, "Montenegrin", "Crnogorski", None, "me"),
    ("srp", "sr", "Serbian", "Српски", None, "rs ba me xk"),
    ("tur", "tr", "Turkish", "Türkçe", None, "tr cy"),
    ("rus", "ru", "Russian", "Русский", None, "ru by kz kg"),
    ("ukr", "uk", "Ukrainian", "Українська", None, "ua"),
    ("zho", "zh", "Chinese", "中文", "chi", "cn tw sg hk"),
    ("jpn", "ja", "Japanese", "日本語", None, "jp"),
    ("kor", "ko", "Korean", "한국어", None, "kr kp"),
    ("ara", "ar", "Arabic", "العربية", None, "sa eg ae ma dz iq jo kw lb ly om qa sy tn ye"),
)

LANGUAGES: dict[str, LanguageInfo] = {
    iso3: LanguageInfo(iso3, iso1, name, endonym, iso2b, tuple(countries.split()))
    for iso3, iso1, name, endonym, iso2b, countries in _TABLE
}

# Individual-language codes the web writes for a macrolanguage we keep as one class.
_ALIASES: dict[str, str] = {
    "nb": "nob", "nn": "nno", "no": "nor",
    "zh": "zho", "cmn": "zho", "chi": "zho", "zh-cn": "zho", "zh-tw": "zho", "zh-hans": "zho", "zh-hant": "zho",
    "ms": "msa", "zsm": "msa", "fa": "fas", "pes": "fas", "ar": "ara", "arb": "ara",
    "sh": "hbs", "iw": "heb", "in": "ind", "ji": "yid", "jw": "jav",
    "sq": "sqi", "als": "sqi", "et": "est", "ekk": "est", "lv": "lav", "lvs": "lav",
    "unknown": "und", "un": "und", "xx": "und", "und": "und",
}

_NAME_INDEX: dict[str, str] = {
    key: info.iso3
    for info in LANGUAGES.values()
    for key in (info.name.lower(), info.endonym.lower())
}

_SPLIT_RE = re.compile(r"[-_@.]")

UNKNOWN = "und"


@functools.lru_cache(maxsize=65536)
def to_iso3(code: str) -> str | None:
    """Normalise a language code, locale tag or English name to ISO 639-3; ``None`` if unknown.

    ``"en"``, ``"eng"``, ``"en-US"``, ``"en_GB"``, ``"English"`` -> ``"eng"``; ``"fre"`` -> ``"fra"``;
    ``"nb"`` -> ``"nob"``; ``"un"``/``"unknown"`` -> ``"und"``.
    """
    raw = code.strip().lower()
    if not raw:
        return None
    if raw in _ALIASES:
        return _ALIASES[raw]
    if raw in _NAME_INDEX:
        return _NAME_INDEX[raw]
    base = _SPLIT_RE.split(raw, maxsplit=1)[0]
    if base in _ALIASES:
        return _ALIASES[base]
    if not base.isalpha() or len(base) not in (2, 3):
        return None
    if len(base) == 2:
        lang = pycountry.languages.get(alpha_2=base)
    else:
        lang = pycountry.languages.get(alpha_3=base)
        if lang is None:
            lang = pycountry.languages.get(bibliographic=base)
    if lang is None:
        return None
    return str(lang.alpha_3)


def info(iso3: str) -> LanguageInfo:
    """Return the :class:`LanguageInfo` of an ISO 639-3 code, derived from ISO 639 when not tabled."""
    if iso3 in LANGUAGES:
        return LANGUAGES[iso3]
    lang = pycountry.languages.get(alpha_3=iso3)
    if lang is None:
        raise KeyError(f"unknown ISO 639-3 code {iso3!r}")
    name = str(lang.name)
    return LanguageInfo(iso3, getattr(lang, "alpha_2", None), name, name, getattr(lang, "bibliographic", None))


def iso1(iso3: str) -> str | None:
    """ISO 639-1 code of an ISO 639-3 code, or ``None`` when the language has none."""
    return info(iso3).iso1
