"""Real multilingual documentation sites from Debian packages, built as test-bed webs.

``python -m smartcrawl.web debian --pair eng-fin --out DIR`` downloads (``apt-get download``) and
unpacks (``dpkg-deb -x``) the packages into a cache, then writes a web directory in the
:mod:`smartcrawl.web.store` format with CLD2-confirmed ground truth. See :mod:`.sites` for the sites
and URL layouts, :mod:`.build` for the ground-truth rules.
"""

from smartcrawl.web.debian.build import BUILD_VERSION, build_web
from smartcrawl.web.debian.sites import SITES, MissingLanguage, prepare_site
from smartcrawl.web.debian.source import LangTree, SharedDir, SiteSource

__all__ = ["BUILD_VERSION", "SITES", "LangTree", "MissingLanguage", "SharedDir", "SiteSource", "build_web", "prepare_site"]
