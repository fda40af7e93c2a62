"""websim: a deterministic (seeded) generator of multilingual web sites, the default crawl test bed.

Each site has the pair's two languages plus some others, a heavy-tailed size, a way of marking
languages in URLs drawn from a mix calibrated on real URL pairs, page text that CLD2 identifies,
translations with corresponding content, a link graph with menus, language switchers, pagination,
external links and optional crawler traps, and a ground truth (URL -> language, translation groups).

Modules: :mod:`.text` (lexicons, text plans), :mod:`.conventions` (URL marking), :mod:`.classify`
(URL-pair convention classifier), :mod:`.graph` (site plans), :mod:`.render` (HTML),
:mod:`.generate` (web building), :mod:`.calibration`, :mod:`.cld2check`, :mod:`.export`, :mod:`.cli`.
"""

from smartcrawl.web.websim.classify import classify_pair
from smartcrawl.web.websim.config import WebsimConfig, load_default_mix
from smartcrawl.web.websim.conventions import CONVENTIONS
from smartcrawl.web.websim.export import export_for_prepare
from smartcrawl.web.websim.generate import build_websim, plan_web, write_web
from smartcrawl.web.websim.text import supported_languages

__all__ = [
    "CONVENTIONS",
    "WebsimConfig",
    "build_websim",
    "classify_pair",
    "export_for_prepare",
    "load_default_mix",
    "plan_web",
    "supported_languages",
    "write_web",
]
