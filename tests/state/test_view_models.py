"""The pure view-model functions of the state layer (records -> display fields), called without a Reflex state:
the job-log cursor, the Code Builder's file choice and build toast, the artifacts' generation toast, view mode and
compare summary, and Fix Mode's panel fields."""

from __future__ import annotations

from datetime import UTC, datetime

from secdash.models.artifacts import ArtifactStatus
from secdash.models.artifacts_public import ArtifactDiffPublic, ArtifactPublic
from secdash.models.builder import ProjectStatus
from secdash.models.builder_public import CodeProjectPublic, ProjectFilePublic
from secdash.models.fixes import FixStatus
from secdash.models.fixes_public import FixableProblemPublic, FixPublic
from secdash.models.jobs import JobLevel
from secdash.models.jobs_public import JobLogPublic
from secdash.state.code_artifacts_view import STOPPED, compare_summary, generation_outcome_toast, mode_after_read
from secdash.state.code_builder_view import build_outcome_toast, selected_after_read
from secdash.state.fix_mode_view import fix_panel, newer_fix_of
from secdash.state.job_log_view import LogLine, fresh_lines, job_log_step

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _line(seq: int) -> JobLogPublic:
    return JobLogPublic(seq=seq, level=JobLevel.info, message=f"line {seq}", created_at=NOW)


def _toast_text(spec) -> str:
    return repr(spec)


# --- the job-log cursor ---------------------------------------------------------------------------------------


def test_a_job_log_read_appends_only_the_lines_past_the_cursor_and_keeps_the_newest():
    shown = [LogLine.of(_line(1)), LogLine.of(_line(2))]
    job, after, lines = job_log_step(7, 2, shown, 7, [_line(2), _line(3), _line(4)], kept=3)
    assert (job, after) == (7, 4)
    assert [line.seq for line in lines or []] == [2, 3, 4]
    assert lines is not None and lines[-1].time == "03:04:05" and lines[-1].level == "info"


def test_a_read_with_nothing_new_leaves_the_list_alone():
    assert job_log_step(7, 4, [LogLine.of(_line(4))], 7, [_line(3), _line(4)], kept=10) == (7, 4, None)


def test_another_job_is_shown_from_its_start():
    shown = [LogLine.of(_line(9))]
    assert job_log_step(7, 9, shown, 8, [], kept=10) == (8, 0, [])
    job, after, lines = job_log_step(7, 9, shown, 8, [_line(1)], kept=10)
    assert (job, after, [line.seq for line in lines or []]) == (8, 1, [1])


def test_fresh_lines_takes_any_position_and_view():
    after, lines = fresh_lines(["a"], 1, [(1, "a"), (2, "b")], kept=5, view=lambda row: row[1], position=lambda row: row[0])
    assert (after, lines) == (2, ["a", "b"])


# --- Code Builder ---------------------------------------------------------------------------------------------


def _file(name: str, complete: bool = True) -> ProjectFilePublic:
    return ProjectFilePublic.model_construct(filename=name, complete=complete)


def _project(status: ProjectStatus, files: int = 2, error: str | None = None) -> CodeProjectPublic:
    return CodeProjectPublic.model_construct(
        name="Crumbs", status=status, files=[_file(f"f{i}") for i in range(files)], error=error
    )


def test_the_viewer_keeps_a_chosen_file_and_otherwise_prefers_the_file_being_written_then_index_html():
    files = [_file("app.js"), _file("index.html"), _file("style.css", complete=False)]
    assert selected_after_read("app.js", files, building=True, pinned=True) == "app.js"
    assert selected_after_read("app.js", files, building=True, pinned=False) == "style.css"
    assert selected_after_read("app.js", files, building=False, pinned=False) == "app.js"
    assert selected_after_read("gone.txt", files, building=True, pinned=True) == "style.css"
    assert selected_after_read("gone.txt", files, building=False, pinned=False) == "index.html"
    assert selected_after_read("", [_file("b.css"), _file("a.js")], building=False, pinned=False) == "b.css"
    assert selected_after_read("x", [], building=False, pinned=False) == ""


def test_a_build_is_toasted_only_when_its_status_moves_to_complete_or_failed():
    assert build_outcome_toast("", _project(ProjectStatus.complete)) is None  # the page's first read
    assert build_outcome_toast("complete", _project(ProjectStatus.complete)) is None
    assert build_outcome_toast("planning", _project(ProjectStatus.building)) is None
    assert "Build Complete" in _toast_text(build_outcome_toast("testing", _project(ProjectStatus.complete, files=3)))
    assert "3 files" in _toast_text(build_outcome_toast("testing", _project(ProjectStatus.complete, files=3)))
    failed = _toast_text(build_outcome_toast("building", _project(ProjectStatus.failed, error="no model")))
    assert "Build Failed" in failed and "no model" in failed


# --- HTML artifacts -------------------------------------------------------------------------------------------


def _artifact(status: ArtifactStatus, error: str | None = None) -> ArtifactPublic:
    return ArtifactPublic.model_construct(status=status, error=error)


def test_a_generation_seen_running_that_fails_or_is_stopped_is_toasted_once():
    assert generation_outcome_toast("", _artifact(ArtifactStatus.failed, "boom")) is None
    assert generation_outcome_toast("generating", _artifact(ArtifactStatus.ready)) is None
    assert "Generation Stopped" in _toast_text(generation_outcome_toast("generating", _artifact(ArtifactStatus.failed, STOPPED)))
    assert "boom" in _toast_text(generation_outcome_toast("generating", _artifact(ArtifactStatus.failed, "boom")))


def test_the_view_a_read_leaves_open():
    assert mode_after_read("preview", new_version_shown=False, generating=True, loaded_version=1) == "edit"
    assert mode_after_read("compare", new_version_shown=True, generating=False, loaded_version=2) == "preview"
    assert mode_after_read("edit", new_version_shown=True, generating=False, loaded_version=2) == "preview"
    assert mode_after_read("edit", new_version_shown=False, generating=False, loaded_version=2) == "edit"  # a hand edit
    assert mode_after_read("edit", new_version_shown=False, generating=False, loaded_version=0) == "preview"
    assert mode_after_read("compare", new_version_shown=False, generating=False, loaded_version=2) == "compare"


def test_the_compare_summary():
    diff = ArtifactDiffPublic.model_construct(from_version=1, to_version=3, added=4, removed=2, truncated=True)
    assert compare_summary(diff, []) == "v1 and v3 have the same HTML"
    assert compare_summary(diff, ["row"]) == "v1 → v3: +4 −2 lines (cut)"


# --- Fix Mode -------------------------------------------------------------------------------------------------


def _fix(**fields) -> FixPublic:
    base = {
        "id": 5,
        "problem_id": 2,
        "kind": "code",
        "status": FixStatus.not_verified,
        "site": "Shop",
        "file": "app.py",
        "rule": "eval",
        "diff": "-a\n+b\n",
        "change": {"headers": {"X-Frame-Options": "DENY"}},
        "explanation": "",
        "risk": "",
        "verification": {"fixed": True, "stillSeen": [], "newFindings": ["sqli"], "broken": "not a list"},
        "error": None,
        "provider": "",
        "model": "",
        "job_id": None,
        "served": True,
        "created_at": NOW,
        "updated_at": NOW,
        "applied_at": None,
        "verified_at": None,
    }
    return FixPublic.model_validate({**base, **fields})


def test_the_fix_panel_fields():
    panel = fix_panel(_fix(), {"percent": 140, "phase": "x" * 60}, admin=False)
    assert panel.fix.id == 5 and panel.fix.can_revert and panel.fix.checked and panel.fix.fixed
    assert [(h.name, h.value) for h in panel.headers] == [("X-Frame-Options", "DENY")]
    assert (panel.still_seen, panel.new_findings, panel.broken) == ([], ["sqli"], [])
    assert (panel.progress_percent, len(panel.progress_phase)) == (100, 40)
    assert fix_panel(_fix(), {"percent": "half"}, admin=False).progress_percent == 0


def test_a_newer_fix_of_the_shown_problem_is_followed():
    shown = FixableProblemPublic.model_construct(fix_id=9)
    assert newer_fix_of(shown, None, 5)
    assert newer_fix_of(shown, _fix(id=5), 5)
    assert not newer_fix_of(shown, _fix(id=9), 9)
    assert not newer_fix_of(FixableProblemPublic.model_construct(fix_id=None), None, 0)
