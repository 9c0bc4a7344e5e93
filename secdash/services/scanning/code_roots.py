"""Code roots: the folders the Security Scan reads, stored with the site each belongs to, and their workspaces.

The configured scan paths (SECDASH_SCAN_PATHS, else the bundled demo sources) are stored once each; the
bundled demo sources also store one root per demo site (`sources/<slug>`), linked to that default site, so a
finding belongs to the site whose root holds its file (the deepest root wins), never by matching folder names.

A root's workspace (`DATA_DIR/workspaces/<key>/`) is a patched copy of it: when it exists, the scan reads the
workspace instead of the original, under the original's identity, so a fix can be verified by a re-scan.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from secdash.core.config import PROJECT_ROOT, get_settings
from secdash.core.demo_sites import SLUGS
from secdash.models import Site
from secdash.models.scans import CodeRoot
from secdash.services.builder import project_dir
from secdash.services.once import insert_missing

DEMO_SOURCES = PROJECT_ROOT / "secdash" / "demo_sites" / "sources"
DEMO_SLUGS = SLUGS  # the four demo sites (core/demo_sites.py)


def configured_roots() -> list[Path]:
    """The configured scan paths that exist, as configured (their text is part of each finding's identity)."""
    return [path for path in get_settings().scan_paths if path.exists()]


def workspace_for(root: Path) -> Path:
    """Where a patched copy of `root` lives (it may not exist). A Live Code Builder project is its own workspace:
    a fix writes into its directory (and its files), which the builder keeps in step."""
    if project_dir.is_project_root(root):
        return root
    key = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return get_settings().DATA_DIR / "workspaces" / key


def source_of(root: Path) -> Path:
    """What a scan of `root` reads: its workspace when there is one, else the root itself."""
    workspace = workspace_for(root)
    return workspace if workspace.is_dir() else root


async def ensure_code_roots(session: AsyncSession) -> None:
    """Store the configured roots (and the demo sites' own roots, linked to their sites) once; the caller commits."""
    roots = configured_roots()
    rows = [CodeRoot(path=str(root)) for root in roots]
    demo = DEMO_SOURCES.resolve()
    if demo in {root.resolve() for root in roots}:
        defaults = await session.exec(select(Site).where(col(Site.default_slug).in_(DEMO_SLUGS)))
        sites = {site.default_slug: site.id for site in defaults}
        for slug in DEMO_SLUGS:
            if (demo / slug).is_dir():
                path = str(demo / slug)
                rows.append(CodeRoot(path=path, site_id=sites.get(slug)))
                if sites.get(slug) is not None:  # a root stored before its site existed is linked now
                    await session.exec(  # type: ignore[call-overload]
                        update(CodeRoot)
                        .execution_options(synchronize_session=False)
                        .where(col(CodeRoot.path) == path, col(CodeRoot.site_id).is_(None))
                        .values(site_id=sites[slug])
                    )
    await insert_missing(session, rows, "path")


def _absolute(path: str | Path) -> Path:
    """An absolute, normalised path without touching the disk."""
    return Path(os.path.normpath(os.path.abspath(path)))


async def site_resolver(session: AsyncSession):
    """A function from a file's absolute path to the id of the site whose stored root holds it (or None)."""
    linked = [(_absolute(root.path), root.site_id) for root in await session.exec(select(CodeRoot)) if root.site_id]
    linked.sort(key=lambda item: len(item[0].parts), reverse=True)  # the deepest root first

    def site_of(path: Path) -> int | None:
        path = _absolute(path)
        for root, site_id in linked:
            if path == root or root in path.parents:
                return site_id
        return None

    return site_of
