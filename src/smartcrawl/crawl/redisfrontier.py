"""The frontier, seen-set and shared budgets of a distributed crawl, in Redis (``crawl.backend=redis``).

:class:`SharedFrontier` is what :class:`~smartcrawl.crawl.frontier.Frontier` + :class:`~smartcrawl.crawl.frontier.SeenSet`
+ :class:`~smartcrawl.crawl.budgets.SiteBudgets` are for one process, shared by any number of crawler
processes (*workers*) on any number of machines. Each step is one Lua script
(:mod:`~smartcrawl.crawl.redislua`), so it is atomic: two workers never claim the same entry and a
URL is queued once however many workers find it.

Order: the same as the SQLite frontier (highest priority first, then first queued first; a URL
found again with a higher priority while it waits is queued again at the back of its new level),
skipping hosts that have ``concurrent_per_host`` requests in flight (in all workers together) and
sites whose budget is spent or may be spent by the requests in flight. Budgets count the fetches
of all workers; a site's time budget is the wall time since its first request in the shared crawl.

Life of an entry: ``q`` (queued) -> :meth:`SharedFrontier.claim` -> ``f:<worker>`` (in flight,
leased to the worker) -> :meth:`SharedFrontier.complete` (outlinks queued in the same step) ->
``u:<worker>`` (finished, its outcome not yet in the worker's local files) ->
:meth:`SharedFrontier.confirm` -> done (only its fingerprint stays, in the seen-set). A worker's lease (``P:alive:<worker>``) lasts
``lease_s`` and is renewed by each claim, completion and heartbeat. When it lapses (the worker was
killed), :meth:`SharedFrontier.reclaim` puts its in-flight entries back in the queue at their old
place; its unconfirmed ones are decided by :mod:`~smartcrawl.crawl.redisjob` (confirmed when the
worker's files hold the outcome, queued again when not).
"""

from __future__ import annotations

import json
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from smartcrawl.crawl import redislua
from smartcrawl.crawl.frontier import FrontierEntry, NewUrl, url_hostname
from smartcrawl.crawl.urlnorm import fingerprint

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
# The layout of the queue's sorted sets (redislua): 2 = members carry the lane number before the id.
QUEUE_FORMAT = "2"


class JobIdentityMismatch(ValueError):
    """A worker joined a shared crawl with another pair, strategy or scope."""


@dataclass(frozen=True)
class FrontierStatus:
    """Counts of the shared frontier (all workers together)."""

    hosts_waiting: int
    queued: int
    parked: int
    in_flight: int
    unconfirmed: int

    @property
    def over(self) -> bool:
        """Nothing left to do anywhere: no claimable entry, nothing in flight or unconfirmed."""
        return self.hosts_waiting == 0 and self.in_flight == 0 and self.unconfirmed == 0


def _limit(value: float | int | None) -> str:
    return "" if value is None else repr(value)


def _item_args(items: Sequence[NewUrl]) -> list[Any]:
    """Script arguments of URLs to queue: (fingerprint, priority, lane number, host, site, json) per URL."""
    args: list[Any] = []
    for item in items:
        try:
            fp = fingerprint(item.url)
        except ValueError:
            continue
        data = {"url": item.url, "site": item.site, "score": item.score, "depth": item.depth, "parent": item.parent,
                "hop": item.hop, "redirects": item.redirects}
        args.extend([fp, int(item.priority), int(item.seq), url_hostname(item.url), item.site,
                     json.dumps(data, ensure_ascii=False, separators=(",", ":"))])
    return args


class SharedFrontier:
    """One worker's handle on the shared frontier of a job (module docstring).

    ``prefix`` names the job's keys (every worker of a crawl uses the same); ``worker`` names this
    process; budgets and ``max_per_host`` are the crawl's settings (the same in every worker).
    """

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        worker: str,
        lease_s: float = 30.0,
        max_per_host: int = 2,
        max_pages_per_site: int | None = None,
        max_seconds_per_site: float | None = None,
        max_pages: int | None = None,
    ) -> None:
        if not prefix or not worker:
            raise ValueError("a shared frontier needs a key prefix and a worker name")
        self.client = client
        self.prefix = prefix
        self.worker = str(worker)
        self.lease_ms = max(1, int(lease_s * 1000))
        self.max_per_host = max(1, int(max_per_host))
        self.limits = [_limit(max_pages_per_site), _limit(max_seconds_per_site), _limit(max_pages)]
        self.last_hosts_waiting = 0
        self._to_confirm: list[int] = []
        self._scripts = {name: client.register_script(getattr(redislua, name)) for name in (
            "ADMIT", "CLAIM", "COMPLETE", "CONFIRM", "REQUEUE", "REOPEN", "RECLAIM", "STILL_OPEN", "RESTORE_PARKED",
            "STATUS")}

    @classmethod
    def connect(cls, url: str, prefix: str, worker: str, **kwargs: Any) -> SharedFrontier:
        """Connect to the Redis server at ``url`` (``redis://host:port/db``) and check that it answers."""
        client = redis.Redis.from_url(url, socket_connect_timeout=10, socket_timeout=60)
        try:
            client.ping()
        except redis.RedisError as exc:
            raise ConnectionError(f"no Redis server at {url}: {exc}") from exc
        return cls(client, prefix, worker, **kwargs)

    def key(self, name: str) -> str:
        """The full Redis key of ``name`` (below the job's prefix)."""
        return f"{self.prefix}:{name}"

    def _run(self, name: str, *args: Any) -> Any:
        return self._scripts[name](args=[self.prefix, *args])

    # -- the queue ---------------------------------------------------------------------------
    def admit(self, items: Sequence[NewUrl]) -> int:
        """Queue URLs not seen before (or found again with a higher priority while waiting); how many."""
        args = _item_args(items)
        return int(self._run("ADMIT", len(args) // 6, *args)) if args else 0

    def _take_confirms(self) -> list[int]:
        ids, self._to_confirm = self._to_confirm, []
        return [len(ids), *ids]

    def claim(self) -> FrontierEntry | None:
        """Take the best entry that may go now (module docstring), in flight at this worker; ``None`` if none.

        When none may go, :attr:`last_hosts_waiting` tells how many hosts still have a waiting entry.
        """
        got = self._run("CLAIM", self.worker, self.lease_ms, self.max_per_host, *self.limits, *self._take_confirms())
        if int(got[0]) < 0:
            self.last_hosts_waiting = int(got[1])
            return None
        entry_id, raw, priority, retries = got
        data = json.loads(raw)
        return FrontierEntry(id=int(entry_id), url=data["url"], site=data["site"], host=url_hostname(data["url"]),
                             priority=int(priority), score=data.get("score"), depth=int(data["depth"]),
                             parent=data.get("parent"), hop=str(data["hop"]), redirects=int(data.get("redirects", 0)),
                             retries=int(retries))

    def complete(self, entry_id: int, fetched: bool, new_urls: Sequence[NewUrl] = ()) -> int | None:
        """Finish an in-flight entry and queue its outlinks in one step; how many were queued.

        ``None`` when the entry is no longer in flight at this worker (its lease lapsed and another
        worker took it back): the caller must then drop the outcome.
        """
        args = _item_args(new_urls)
        n = int(self._run("COMPLETE", self.worker, self.lease_ms, entry_id, int(bool(fetched)), *self._take_confirms(),
                          len(args) // 6, *args))
        return None if n < 0 else n

    def confirm(self, entry_ids: Sequence[int], worker: str | None = None) -> int:
        """The outcomes of these finished entries are in the worker's files: mark them done."""
        if not entry_ids:
            return 0
        return int(self._run("CONFIRM", worker or self.worker, *entry_ids))

    def confirm_later(self, entry_id: int) -> None:
        """Confirm an entry of this worker with its next claim or completion (one round trip less per page).

        Safe because an unconfirmed entry is decided from the worker's files if it dies; call
        :meth:`flush_confirms` before counting (:meth:`status`) or leaving.
        """
        self._to_confirm.append(int(entry_id))
        if len(self._to_confirm) >= 256:
            self.flush_confirms()

    def flush_confirms(self) -> None:
        """Send the confirmations :meth:`confirm_later` keeps."""
        ids, self._to_confirm = self._to_confirm, []
        self.confirm(ids)

    def requeue(self, entry_id: int, priority: int, retries: int) -> bool:
        """Put an in-flight entry of this worker back in the queue (a retry) at its old place in its new level."""
        return bool(self._run("REQUEUE", self.worker, entry_id, int(priority), int(retries)))

    def reopen(self, entry_ids: Sequence[int], worker: str | None = None) -> int:
        """Queue again unconfirmed entries whose outcome the worker's files lack; how many."""
        if not entry_ids:
            return 0
        return int(self._run("REOPEN", worker or self.worker, *entry_ids))

    def reclaim(self, worker: str | None = None, include_unconfirmed: bool = False,
                only_if_dead: bool = False) -> tuple[int, int] | None:
        """Queue again a worker's in-flight (and unconfirmed) entries; ``None`` when ``only_if_dead`` and it lives.

        Returns ``(in_flight, unconfirmed)`` counts. With ``only_if_dead`` the worker is also
        removed from the registry.
        """
        nf, nu = self._run("RECLAIM", worker or self.worker, int(include_unconfirmed), int(only_if_dead))
        return None if int(nf) < 0 else (int(nf), int(nu))

    def still_open(self, urls: Sequence[str]) -> list[bool]:
        """For each URL: never seen, or still waiting in the queue (as :meth:`CrawlJob.still_open`)."""
        out: list[bool] = [False] * len(urls)
        idx: list[int] = []
        fps: list[bytes] = []
        for i, url in enumerate(urls):
            try:
                fps.append(fingerprint(url))
                idx.append(i)
            except ValueError:
                pass
        if fps:
            for i, flag in zip(idx, self._run("STILL_OPEN", *fps)):
                out[i] = bool(int(flag))
        return out

    def restore_parked(self) -> int:
        """Bring back the entries of sites parked for a spent budget (a run may have a larger one); how many."""
        return int(self._run("RESTORE_PARKED"))

    def hosts_waiting(self) -> int:
        """How many hosts have a waiting entry (cheap: one ``ZCARD``)."""
        return int(self.client.zcard(self.key("heads")))

    def status(self) -> FrontierStatus:
        """The shared counts (:class:`FrontierStatus`); sends this worker's pending confirmations first."""
        self.flush_confirms()
        return FrontierStatus(*(int(x) for x in self._run("STATUS")))

    def unconfirmed(self, worker: str | None = None) -> list[int]:
        """Ids of a worker's finished but unconfirmed entries."""
        return sorted(int(x) for x in self.client.smembers(self.key(f"wu:{worker or self.worker}")))

    def in_flight(self, worker: str | None = None) -> list[int]:
        """Ids of a worker's in-flight entries."""
        return sorted(int(x) for x in self.client.smembers(self.key(f"wf:{worker or self.worker}")))

    # -- workers -----------------------------------------------------------------------------
    def register(self, worker_dir: str) -> None:
        """Announce this worker (host name and worker dir, for adoption by a live worker) and take its lease."""
        info = {"hostname": socket.gethostname(), "dir": worker_dir}
        self.client.hset(self.key("workers"), self.worker, json.dumps(info))
        self.heartbeat()

    def unregister(self) -> None:
        """Leave the crawl: drop the lease and the registry entry (call after :meth:`reclaim` of one's own entries)."""
        self.flush_confirms()
        self.client.delete(self.key(f"alive:{self.worker}"))
        if not self.client.scard(self.key(f"wu:{self.worker}")) and not self.client.scard(self.key(f"wf:{self.worker}")):
            self.client.hdel(self.key("workers"), self.worker)

    def heartbeat(self) -> None:
        """Renew this worker's lease (and send its pending confirmations)."""
        self.flush_confirms()
        self.client.set(self.key(f"alive:{self.worker}"), "1", px=self.lease_ms)

    def workers(self) -> dict[str, dict[str, Any]]:
        """Registered workers: name -> ``{"hostname", "dir"}``."""
        raw = self.client.hgetall(self.key("workers"))
        return {k.decode(): json.loads(v) for k, v in raw.items()}

    def dead_workers(self) -> dict[str, dict[str, Any]]:
        """Registered workers other than this one whose lease lapsed."""
        return {w: info for w, info in self.workers().items()
                if w != self.worker and not self.client.exists(self.key(f"alive:{w}"))}

    def check_identity(self, identity: dict[str, Any]) -> None:
        """Record what the crawl crawls (first worker) or check that this worker crawls the same.

        ``identity`` holds ``pair``, ``strategy``, ``scope`` (must match) and ``seeds`` (kept from
        the first worker, so that a worker may join without seeds).
        """
        fixed = {k: identity[k] for k in ("pair", "strategy", "scope") if k in identity}
        key = self.key("identity")
        if not self.client.hexists(key, "fixed"):
            self.client.hsetnx(key, "queue_format", QUEUE_FORMAT)
        found = self.client.hget(key, "queue_format")
        if (found.decode() if found else "1") != QUEUE_FORMAT:
            raise JobIdentityMismatch(f"the shared crawl {self.prefix!r} was started by an older smartcrawl (queue "
                                      f"format {(found or b'1').decode()}, this one writes {QUEUE_FORMAT}); finish it "
                                      "with that version, or start afresh with another crawl.redis_prefix")
        self.client.hsetnx(key, "fixed", json.dumps(fixed, sort_keys=True))
        if identity.get("seeds"):
            self.client.hsetnx(key, "seeds", json.dumps(list(identity["seeds"])))
        old = json.loads(self.client.hget(key, "fixed") or b"{}")
        for name, value in fixed.items():
            if name in old and old[name] != json.loads(json.dumps(value)):
                raise JobIdentityMismatch(f"the shared crawl {self.prefix!r} crawls {name}={old[name]!r}, not {value!r};"
                                          " use another crawl.redis_prefix")

    def seeds(self) -> list[str]:
        """The seeds the first worker of the crawl recorded (empty when none joined yet)."""
        raw = self.client.hget(self.key("identity"), "seeds")
        return list(json.loads(raw)) if raw else []

    def close(self) -> None:
        """Close the connection."""
        self.client.close()
