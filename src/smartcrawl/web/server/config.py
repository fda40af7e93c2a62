"""Settings of the test-bed server: latency, error injection and their per-host overrides."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Policy:
    """How a host misbehaves: a fixed delay plus uniform jitter (ms), and a rate of injected 500/503 errors."""

    latency_ms: float = 0.0
    jitter_ms: float = 0.0
    error_rate: float = 0.0

    def __post_init__(self) -> None:
        if self.latency_ms < 0 or self.jitter_ms < 0:
            raise ValueError("latency and jitter must be >= 0")
        if not 0.0 <= self.error_rate <= 1.0:
            raise ValueError("error_rate must be within [0, 1]")

    def delay_s(self, rng: random.Random) -> float:
        """The delay of one response in seconds (drawn from ``rng`` when there is jitter)."""
        extra = rng.uniform(0.0, self.jitter_ms) if self.jitter_ms else 0.0
        return (self.latency_ms + extra) / 1000.0


@dataclass(frozen=True)
class ServerConfig:
    """Everything the server needs besides the webs.

    ``unknown_host_status`` answers requests for hosts that no web serves (502 Bad Gateway by
    default, as a forward proxy that cannot reach the origin; 404 is the alternative).
    Injected errors draw their status from ``error_statuses`` and never hit ``/robots.txt``.
    """

    host: str = "127.0.0.1"
    port: int = 0
    policy: Policy = Policy()
    host_policies: Mapping[str, Policy] = field(default_factory=dict)
    seed: int = 0
    log_path: Path | None = None
    unknown_host_status: int = 502
    error_statuses: tuple[int, ...] = (500, 503)
    idle_timeout_s: float = 60.0
    max_head_bytes: int = 65536

    def policy_for(self, host: str) -> Policy:
        """The policy of ``host`` (its override, else the default)."""
        return self.host_policies.get(host, self.policy)
