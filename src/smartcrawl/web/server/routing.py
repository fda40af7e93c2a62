"""Which web serves which host, and the stored response of a URL."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from smartcrawl.web.store import SiteInfo, StoredPage, WebStore

_PATH_SAFE = "/-._~!$&'()*+,;=:@"


class SiteTable:
    """Host -> (store, site) over several web directories; each host may live in one web only.

    Stores are opened lazily by the thread that first reads them (the server's event-loop thread).
    """

    def __init__(self, web_dirs: Iterable[str | Path]) -> None:
        self.stores: list[WebStore] = []
        self.sites: dict[str, tuple[WebStore, SiteInfo]] = {}
        for web_dir in web_dirs:
            store = WebStore(web_dir)
            if not (store.root / "manifest.json").is_file() or not (store.root / "pages.sqlite").is_file():
                raise FileNotFoundError(f"{web_dir} is not a web directory (manifest.json + pages.sqlite)")
            self.stores.append(store)
            for site in store.sites():
                host = site.host.lower()
                if host in self.sites:
                    raise ValueError(f"host {host} is served by two webs: {self.sites[host][0].root} and {web_dir}")
                self.sites[host] = (store, site)

    def site(self, host: str) -> SiteInfo | None:
        """The site of ``host`` (lower-case, no port), or ``None``."""
        entry = self.sites.get(host)
        return entry[1] if entry else None

    def lookup(self, host: str, url: str) -> StoredPage | None:
        """The stored response for ``url`` on ``host``; retries with canonical percent-encoding of the path."""
        entry = self.sites.get(host)
        if entry is None:
            return None
        store = entry[0]
        page = store.get(url)
        if page is None:
            parts = urlsplit(url)
            canonical = quote(unquote(parts.path), safe=_PATH_SAFE)
            if canonical != parts.path:
                page = store.get(urlunsplit(parts._replace(path=canonical)))
        return page

    def close(self) -> None:
        """Close every store's database connection."""
        for store in self.stores:
            store.close()
