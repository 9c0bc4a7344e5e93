"""Private work is its owner's on the pages too (issue 21, item 9): the Reflex states that show code, prompts or
files (Fix Mode, the Live Code Builder, HTML artifacts) give a limited user and another administrator nothing of an
administrator's private project, fix, artifact or jobs, whichever handler they call with the owner's ids."""

from __future__ import annotations

import json
import shutil

import pytest
import reflex as rx

import secdash.secdash  # noqa: F401  (registers every page and state)
from secdash.services.builder import project_dir
from secdash.state import base
from secdash.state.code_artifacts import CodeArtifactsState
from secdash.state.code_builder import CodeBuilderState
from secdash.state.fix_mode import FixModeState
from tests.factories import make_user, sign_in
from tests.support import private_world
from tests.support.private_world import CODE, MARKERS


@pytest.fixture(autouse=True)
def fresh_state():
    base.clear_verification_cache()
    yield
    base.clear_verification_cache()
    shutil.rmtree(project_dir.projects_dir(), ignore_errors=True)


@pytest.fixture
async def world(session, monkeypatch):
    owner = await make_user(session, "owner@example.com", role="admin")
    work = await private_world.plant(session, owner, monkeypatch)
    await make_user(session, "other-admin@example.com", role="admin")
    await make_user(session, "limited@example.com")
    return work, {
        email: await sign_in(session, email) for email in ("owner@example.com", "other-admin@example.com", "limited@example.com")
    }


def _state(cls, token: str):
    root = rx.State(_reflex_internal_init=True)
    state = root.get_substate(cls.get_full_name().split("."))
    state.auth_token = token
    return state


async def _call(state, name: str, **kwargs):
    return await type(state).event_handlers[name].fn(state, **kwargs)


def _seen(state, answers) -> str:
    """Everything the tab holds and was sent: the state's variables and the handlers' answers."""
    return json.dumps(state.dict(), default=str) + repr(answers)


async def _fix_mode(token: str, work) -> str:
    state = _state(FixModeState, token)
    answers = [await _call(state, "load")]
    answers.append(await _call(state, "select_problem", problem_id=work.problem_id))
    answers.append(await _call(state, "select_fix", fix_id=work.fix_id))
    state._fix_id = work.fix_id  # a tab that remembers the owner's fix (an old tab, a crafted event)
    answers.append(await _call(state, "load"))
    for action in ("apply_fix", "reject_fix", "revert_fix"):
        answers.append(await _call(state, action))
    answers.append(await _call(state, "propose", problem_id=work.problem_id))
    return _seen(state, answers)


async def _artifacts(token: str, work) -> str:
    state = _state(CodeArtifactsState, token)
    answers = [await _call(state, "load"), await _call(state, "open_artifact", artifact_id=work.artifact_id)]
    return _seen(state, answers)


async def _builder(token: str, work) -> str:
    state = _state(CodeBuilderState, token)
    return _seen(state, [await _call(state, "load")])


@pytest.mark.parametrize("email", ["limited@example.com", "other-admin@example.com"])
async def test_no_page_shows_another_users_private_work(world, email):
    work, tokens = world
    for read in (_fix_mode, _artifacts, _builder):
        seen = await read(tokens[email], work)
        leaked = [marker for marker in MARKERS if marker in seen]
        assert not leaked, (read.__name__, leaked)


async def test_the_owners_fix_mode_shows_their_problem_and_fix(world):
    work, tokens = world
    state = _state(FixModeState, tokens["owner@example.com"])
    await _call(state, "load")
    row = next(row for group in state.groups for row in group.problems if row.problem_id == work.problem_id)
    assert CODE in row.snippet
    await _call(state, "select_fix", fix_id=work.fix_id)
    assert state.has_fix and state.fix.id == work.fix_id and CODE in state.fix.diff
