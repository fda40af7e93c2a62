"""Download Debian packages with ``apt-get download`` and unpack them with ``dpkg-deb -x`` into a cache.

Nothing is installed on the system: each package is unpacked under ``<cache>/root/<package>/`` (a
``.complete`` marker holds the ``.deb`` name) and reused on later runs, so a warm cache needs no apt
at all. The default cache is ``~/.cache/smartcrawl/debian`` (``$XDG_CACHE_HOME`` honoured).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

MARKER = ".complete"


class AptError(RuntimeError):
    """apt or dpkg is missing, or a package cannot be downloaded or unpacked."""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/smartcrawl/debian`` (``~/.cache/smartcrawl/debian`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "smartcrawl" / "debian"


def apt_tools_available() -> bool:
    """Whether ``apt-get``, ``apt-cache`` and ``dpkg-deb`` are on the PATH."""
    return all(shutil.which(tool) for tool in ("apt-get", "apt-cache", "dpkg-deb"))


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise AptError(f"{cmd[0]} not found: the Debian sites need apt-get and dpkg-deb") from exc
    if proc.returncode != 0:
        raise AptError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return proc.stdout


def candidate_versions(packages: list[str]) -> dict[str, str | None]:
    """The version apt would download for each package (``None`` when apt knows no candidate)."""
    out: dict[str, str | None] = {p: None for p in packages}
    if not packages:
        return out
    current: str | None = None
    for line in _run(["apt-cache", "policy", *packages]).splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            current = line[:-1].strip()
        elif current in out and line.strip().startswith("Candidate:"):
            value = line.split(":", 1)[1].strip()
            out[current] = None if value in ("", "(none)") else value
    return out


def package_names(prefix: str) -> list[str]:
    """Names of the packages apt knows that start with ``prefix`` (``apt-cache pkgnames``), sorted."""
    return sorted(set(_run(["apt-cache", "pkgnames", prefix]).split()))


def update_lists_if_needed(probe: str = "apache2-doc") -> None:
    """Run ``apt-get update`` once when apt has no candidate for ``probe`` (empty package lists)."""
    if candidate_versions([probe])[probe] is None:
        log.info("apt has no package lists (no candidate for %s): running apt-get update", probe)
        _run(["apt-get", "update"])


def extracted_root(package: str, cache_dir: Path) -> Path | None:
    """Where ``package`` was unpacked by an earlier run, or ``None``."""
    root = cache_dir / "root" / package
    return root if (root / MARKER).is_file() else None


def fetch_package(package: str, cache_dir: Path) -> Path:
    """Download ``package`` (unless cached) and unpack it; returns the root of its unpacked files."""
    done = extracted_root(package, cache_dir)
    if done is not None:
        return done
    debs = cache_dir / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    found = sorted(debs.glob(f"{package}_*.deb"), key=lambda p: p.stat().st_mtime)
    if not found:
        log.info("apt-get download %s", package)
        _run(["apt-get", "download", package], cwd=debs)
        found = sorted(debs.glob(f"{package}_*.deb"), key=lambda p: p.stat().st_mtime)
        if not found:
            raise AptError(f"apt-get download {package} wrote no .deb into {debs}")
    deb = found[-1]
    root = cache_dir / "root" / package
    tmp = Path(tempfile.mkdtemp(prefix=f".{package}-", dir=cache_dir))
    try:
        _run(["dpkg-deb", "-x", str(deb), str(tmp)])
        (tmp / MARKER).write_text(deb.name + "\n")
        if root.exists():
            shutil.rmtree(root)
        root.parent.mkdir(parents=True, exist_ok=True)
        tmp.rename(root)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    log.info("unpacked %s into %s", deb.name, root)
    return root
