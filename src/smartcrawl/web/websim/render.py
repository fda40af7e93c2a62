"""HTML of websim pages: ``<html lang>``, title, menu, language switcher, text, links, pagination.

Links are written absolute, root-relative or document-relative according to the site's habit
(links to another host are always absolute). Calendar trap pages carry no language: their text is
digits and arrows only.
"""

from __future__ import annotations

import posixpath
import random
from collections.abc import Mapping
from html import escape
from urllib.parse import urlsplit

from smartcrawl.langs import info
from smartcrawl.web.websim.graph import CALENDAR, DOC, HOME, LIST, SESSION, Doc, PageRef, SiteModel
from smartcrawl.web.websim.text import Lexicon, render_paragraph, render_title


def _text(value: str) -> str:
    """Escape text content (quotes stay as they are)."""
    return escape(value, quote=False)


def make_href(src: str, dst: str, style: str, rng: random.Random) -> str:
    """How page ``src`` writes a link to ``dst``: ``absolute``, ``root``, ``relative`` or ``mixed``."""
    if style == "mixed":
        style = rng.choice(("absolute", "root", "relative"))
    s, d = urlsplit(src), urlsplit(dst)
    if style == "absolute" or s.netloc != d.netloc or s.scheme != d.scheme:
        return dst
    tail = f"?{d.query}" if d.query else ""
    path = d.path or "/"
    if style == "root":
        return path + tail
    src_dir = s.path if s.path.endswith("/") else posixpath.dirname(s.path or "/")
    rel = posixpath.relpath(path, src_dir or "/")
    if rel == ".":
        rel = "./"
    elif path.endswith("/"):
        rel += "/"
    if ":" in rel.split("/", 1)[0]:
        rel = "./" + rel
    return rel + tail


def _lang_attr(lang: str) -> str:
    li = info(lang)
    return li.iso1 or li.iso3


class PageRenderer:
    """Renders the pages of one site with the lexicons of its languages."""

    def __init__(self, site: SiteModel, lexicons: Mapping[str, Lexicon]) -> None:
        self.site = site
        self.lex = lexicons

    # -- helpers ---------------------------------------------------------------------------------
    def _a(self, src: str, dst: str, text: str, rng: random.Random, attrs: str = "") -> str:
        href = escape(make_href(src, dst, self.site.href_style, rng))
        return f'<a href="{href}"{attrs}>{_text(text)}</a>'

    def _head(self, lang_attr: str | None, title: str, alternates: Mapping[str, str]) -> list[str]:
        out = ["<!DOCTYPE html>", f'<html lang="{lang_attr}">' if lang_attr else "<html>", "<head>",
               '<meta charset="utf-8">', f"<title>{_text(title)}</title>"]
        if self.site.switcher == "hreflang" and len(alternates) > 1:
            for lang, url in alternates.items():
                out.append(f'<link rel="alternate" hreflang="{_lang_attr(lang)}" href="{escape(url)}">')
            out.append(f'<link rel="alternate" hreflang="x-default" href="{escape(self.site.seed_url)}">')
        out += ["</head>", "<body>"]
        return out

    def _nav(self, src: str, lang: str, rng: random.Random) -> list[str]:
        site, lex = self.site, self.lex[lang]
        items = [self._a(src, site.urls.home(lang), lex.ui_text("home"), rng)]
        for sec in site.sections:
            if site.listings[(lang, sec.idx)]:
                items.append(self._a(src, site.list_url(lang, sec.idx), lex.nouns[sec.concept].capitalize(), rng))
        out = ["<header>", self._a(src, site.urls.home(lang), site.display_name, rng, ' class="logo"'),
               '<nav class="menu"><ul>']
        out += [f"<li>{item}</li>" for item in items]
        out.append("</ul></nav>")
        return out

    def _switcher(self, src: str, here: str, targets: Mapping[str, str], rng: random.Random,
                  force: bool = False) -> list[str]:
        style = self.site.switcher
        if style == "none" and not force:
            return []
        links = []
        for lang, url in targets.items():
            if lang == here:
                continue
            li = info(lang)
            if style == "hreflang":
                attrs = f' hreflang="{_lang_attr(lang)}" lang="{_lang_attr(lang)}"'
                links.append(self._a(src, url, li.endonym, rng, attrs))
            else:
                label = li.endonym if self.site.index % 2 else (li.iso1 or li.iso3).upper()
                links.append(self._a(src, url, label, rng))
        if not links:
            return []
        return ['<ul class="languages">'] + [f"<li>{a}</li>" for a in links] + ["</ul>"]

    def _footer(self, src: str, lang: str, rng: random.Random, extra: tuple[str, ...] = ()) -> list[str]:
        site, lex = self.site, self.lex[lang]
        out = ["</main>", "<footer>"]
        if site.calendar:
            out.append(self._a(src, site.calendar_url(0), lex.ui_text("calendar"), rng))
        links = site.footer_links + extra
        if links:
            out.append(f"<p>{_text(lex.ui_text('more_links'))}:</p><ul>")
            out += [f'<li><a href="{escape(u)}">{_text(urlsplit(u).hostname or u)}</a></li>' for u in links]
            out.append("</ul>")
        out += [f"<p>{_text(lex.ui_text('contact'))}: info@{_text(site.main_host.removeprefix('www.'))}</p>",
                "</footer>", "</body>", "</html>"]
        return out

    def _doc_title(self, doc: Doc, lang: str) -> str:
        return render_title(doc.title, self.lex[doc.content_lang(lang, self.site.main)], doc.entities)

    # -- pages -----------------------------------------------------------------------------------
    def render(self, ref: PageRef) -> str:
        """The HTML of one page."""
        rng = random.Random(ref.url)
        if ref.kind == HOME:
            return self._home(ref, rng)
        if ref.kind == LIST:
            return self._list(ref, rng)
        if ref.kind == DOC:
            return self._doc(ref, rng)
        if ref.kind == CALENDAR:
            return self._calendar(ref, rng)
        if ref.kind == SESSION:
            return self._session(ref, rng)
        raise ValueError(f"unknown page kind {ref.kind!r}")

    def _home(self, ref: PageRef, rng: random.Random, session_step: int | None = None) -> str:
        site = self.site
        lang = ref.lang or site.main
        lex = self.lex[lang]
        src = ref.url
        homes = {lg: site.urls.home(lg) for lg in site.langs}
        out = self._head(_lang_attr(lang), f"{lex.ui_text('home')} - {site.display_name}", homes)
        out += self._nav(src, lang, rng)
        out += self._switcher(src, lang, homes, rng, force=True)  # every home lists the languages
        out.append("</header>")
        out.append("<main>")
        out.append(f"<h1>{_text(site.display_name)}</h1>")
        out += [f"<p>{_text(render_paragraph(p, lex, site.entities))}</p>" for p in site.home_intro]
        latest = [d for sec in site.sections for d in site.listings[(lang, sec.idx)][:3]]
        if latest:
            out.append("<ul class=\"latest\">")
            for d in sorted(latest, reverse=True)[:10]:
                doc = site.docs[d]
                out.append(f"<li>{self._a(src, doc.urls[lang], self._doc_title(doc, lang), rng)}</li>")
            out.append("</ul>")
        if session_step is not None:
            out.append(self._a(src, site.session_url(session_step + 1), lex.ui_text("next"), rng))
        elif site.session and lang == site.main:
            out.append(self._a(src, site.session_url(0), lex.ui_text("search"), rng))
        out += self._footer(src, lang, rng)
        return "\n".join(out)

    def _list(self, ref: PageRef, rng: random.Random) -> str:
        site = self.site
        lang = ref.lang or site.main
        lex = self.lex[lang]
        sec = site.sections[ref.key]
        src = ref.url
        name = lex.nouns[sec.concept].capitalize()
        title = name if ref.page == 1 else f"{name} - {lex.ui_text('page')} {ref.page}"
        alternates = {lg: site.list_url(lg, sec.idx) for lg in site.langs if site.listings[(lg, sec.idx)]}
        out = self._head(_lang_attr(lang), f"{title} - {site.display_name}", alternates if ref.page == 1 else {})
        out += self._nav(src, lang, rng)
        out += self._switcher(src, lang, alternates, rng)
        out += ["</header>", "<main>", f"<h1>{_text(title)}</h1>"]
        out += [f"<p>{_text(render_paragraph(p, lex))}</p>" for p in sec.intro]
        items = site.listings[(lang, sec.idx)]
        start = (ref.page - 1) * site.per_page
        out.append('<ul class="items">')
        for d in items[start:start + site.per_page]:
            doc = site.docs[d]
            out.append(f"<li>{self._a(src, doc.urls[lang], self._doc_title(doc, lang), rng)} <span>{doc.date}</span></li>")
        out.append("</ul>")
        n_pages = site.n_list_pages(lang, sec.idx)
        if n_pages > 1:
            out.append('<div class="pagination">')
            if ref.page > 1:
                out.append(self._a(src, site.list_url(lang, sec.idx, ref.page - 1), lex.ui_text("previous"), rng, ' rel="prev"'))
            for p in range(max(1, ref.page - 3), min(n_pages, ref.page + 3) + 1):
                out.append(str(p) if p == ref.page else self._a(src, site.list_url(lang, sec.idx, p), str(p), rng))
            if ref.page < n_pages:
                out.append(self._a(src, site.list_url(lang, sec.idx, ref.page + 1), lex.ui_text("next"), rng, ' rel="next"'))
            out.append("</div>")
        out += self._footer(src, lang, rng)
        return "\n".join(out)

    def _doc(self, ref: PageRef, rng: random.Random) -> str:
        site = self.site
        lang = ref.lang or site.main
        doc = site.docs[ref.key]
        lex = self.lex[lang]
        text_lex = self.lex[doc.content_lang(lang, site.main)]
        src = ref.url
        title = self._doc_title(doc, lang)
        real = {lg: doc.urls[lg] for lg in site.langs if lg in doc.langs}
        out = self._head(_lang_attr(lang), f"{title} - {site.display_name}", real if lang in doc.langs else {})
        out += self._nav(src, lang, rng)
        targets: dict[str, str] = {}
        for lg in site.langs:
            if lg in doc.urls:
                targets[lg] = doc.urls[lg]
            elif site.switcher_home:
                targets[lg] = site.urls.home(lg)
        out += self._switcher(src, lang, targets, rng)
        out += ["</header>", "<main>", '<p class="breadcrumb">',
                self._a(src, site.urls.home(lang), lex.ui_text("home"), rng), " &gt; ",
                self._a(src, site.list_url(lang, doc.section), lex.nouns[site.sections[doc.section].concept].capitalize(), rng),
                "</p>", f"<h1>{_text(title)}</h1>", f'<p class="date">{doc.date}</p>']
        related = [site.docs[r] for r in doc.related]
        for i, para in enumerate(doc.body):
            out.append(f"<p>{_text(render_paragraph(para, text_lex, doc.entities))}</p>")
            if i == 0 and related:  # an inline content link after the first paragraph
                rel = related[0]
                target_lang = lang if lang in rel.urls else site.main
                out.append(f"<p>{_text(lex.ui_text('read_more'))}: "
                           f"{self._a(src, rel.urls[target_lang], self._doc_title(rel, target_lang), rng)}</p>")
        if related[1:]:
            out.append(f"<h2>{_text(lex.ui_text('related'))}</h2>")
            out.append('<ul class="related">')
            for rel in related[1:]:
                target_lang = lang if lang in rel.urls else site.main
                out.append(f"<li>{self._a(src, rel.urls[target_lang], self._doc_title(rel, target_lang), rng)}</li>")
            out.append("</ul>")
        out += self._footer(src, lang, rng, doc.external)
        return "\n".join(out)

    def _calendar(self, ref: PageRef, rng: random.Random) -> str:
        site = self.site
        step = ref.key
        year, month = divmod(2024 * 12 + step, 12)
        src = ref.url
        out = ["<!DOCTYPE html>", "<html>", "<head>", '<meta charset="utf-8">',
               f"<title>{year}-{month + 1:02d}</title>", "</head>", "<body>",
               self._a(src, site.seed_url, "\u2302", rng), f"<h1>{year}-{month + 1:02d}</h1>", "<table>"]
        days = [str(d) for d in range(1, 29 + (month % 3))]
        for week in range(0, len(days), 7):
            out.append("<tr>" + "".join(f"<td>{d}</td>" for d in days[week:week + 7]) + "</tr>")
        out += ["</table>", '<p class="months">', self._a(src, site.calendar_url(step - 1), "\u00ab", rng, ' rel="prev"'),
                self._a(src, site.calendar_url(step + 1), "\u00bb", rng, ' rel="next"'), "</p>", "</body>", "</html>"]
        return "\n".join(out)

    def _session(self, ref: PageRef, rng: random.Random) -> str:
        return self._home(PageRef(HOME, self.site.main, ref.url), rng, session_step=ref.key)
