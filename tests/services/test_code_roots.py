"""Code roots are stored with their site: findings belong to the site whose root holds the file (no guessing
from folder names), and a root's workspace (a patched copy) is what the next scan reads."""

from __future__ import annotations

import shutil

import pytest
from sqlmodel import select

from secdash.jobs import runner
from secdash.models import SecurityEvent, Site
from secdash.models.scans import CodeRoot
from secdash.services.monitoring import sites
from secdash.services.scanning import code_roots, scans
from tests.factories import make_user


@pytest.fixture
def code_dir(tmp_path, settings, monkeypatch):
    root = tmp_path / "code"
    (root / "gem").mkdir(parents=True)
    (root / "gem" / "ui.js").write_text("el.innerHTML = x;\neval(y);\n")
    monkeypatch.setattr(settings, "SCAN_PATHS", str(root))
    monkeypatch.setattr(settings, "DATA_DIR", tmp_path / "data")
    return root


async def _scan(session, admin):
    job = await scans.start_scan(session=session, actor=admin, scan_type="full")
    await runner.wait_for(job.id)
    session.expire_all()
    return await scans.current_job(session=session)


async def _findings(session):
    return (
        await session.exec(
            select(SecurityEvent).where(SecurityEvent.event_type == "vulnerability_detected").order_by(SecurityEvent.id)
        )
    ).all()


async def test_a_folder_named_like_a_site_is_not_that_site_until_its_root_is_stored(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    gem = Site(name="Gem", domain="gem.example", url="https://gem.example/")
    session.add(gem)
    await session.commit()
    gem_id = gem.id
    await _scan(session, admin)
    assert {event.site_id for event in await _findings(session)} == {None}
    assert [root.path for root in (await session.exec(select(CodeRoot))).all()] == [str(code_dir)]

    session.add(CodeRoot(path=str(code_dir / "gem"), site_id=gem_id))
    await session.commit()
    (code_dir / "gem" / "more.js").write_text("document.write(z);\n")
    await _scan(session, admin)
    assert [event.site_id for event in await _findings(session)][-1] == gem_id
    # Findings recorded before the root was linked (a scan before the sites existed) now belong to it too.
    assert {event.site_id for event in await _findings(session)} == {gem_id}


async def test_the_bundled_demo_sources_store_one_root_per_demo_site(session, settings, monkeypatch):
    monkeypatch.setattr(settings, "SCAN_PATHS", "")
    defaults = await sites.init_default_sites(session=session, settings=settings)
    await session.commit()
    await code_roots.ensure_code_roots(session)
    await code_roots.ensure_code_roots(session)  # once
    await session.commit()
    stored = {root.path: root.site_id for root in (await session.exec(select(CodeRoot))).all()}
    by_slug = {site.name.lower(): site.id for site in defaults}
    demo = code_roots.DEMO_SOURCES
    assert stored == {str(demo): None, **{str(demo / slug): by_slug[slug] for slug in code_roots.DEMO_SLUGS}}


async def test_a_scan_reads_the_roots_workspace_and_closes_what_the_patch_removed(session, code_dir):
    admin = await make_user(session, "root@example.com", role="admin")
    await _scan(session, admin)
    before = {event.details["rule"]: event.fingerprint for event in await _findings(session)}
    assert set(before) == {"js:innerHTML", "js:eval"}

    workspace = code_roots.workspace_for(code_dir)
    shutil.copytree(code_dir, workspace)
    (workspace / "gem" / "ui.js").write_text("el.innerHTML = x;\nJSON.parse(y);\n")  # the patched copy
    assert code_roots.source_of(code_dir) == workspace
    job = await _scan(session, admin)
    state = {event.details["rule"]: (event.fingerprint, event.resolved) for event in await _findings(session)}
    assert state == {"js:innerHTML": (before["js:innerHTML"], False), "js:eval": (before["js:eval"], True)}
    assert (code_dir / "gem" / "ui.js").read_text().endswith("eval(y);\n")  # the original is untouched
    fixed = (await session.exec(select(SecurityEvent).where(SecurityEvent.event_type == "vulnerability_fixed"))).one()
    assert fixed.details["scanId"] == job.id
