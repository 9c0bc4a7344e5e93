"""The "fix" job's step "propose": the site's agent (the configured model, or the offline engine's recipe) answers
a structured fix, which the server validates (a diff must parse, stay in the code root, touch only the finding's
file, stay small and apply exactly; headers must be security headers with sane values). A refused answer is sent
back once with the reason; a second refusal fails the fix with that reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from secdash.ai.agents import AGENTS
from secdash.ai.base import LLMError
from secdash.ai.tasks.fix_proposal import CodeFixProposal, FixProposalTask, SiteFixProposal
from secdash.core.config import get_settings
from secdash.jobs import JobContext
from secdash.models import UserPublic
from secdash.models.fixes import Fix, FixKind, FixStatus
from secdash.models.jobs import JobLevel
from secdash.services.agents import ai_calls
from secdash.services.diff import patch
from secdash.services.errors import DomainError, Invalid
from secdash.services.fix import patches, recipes, scope, site_fixes
from secdash.services.fix.job_kind import FixFailed, update
from secdash.services.fix.problems import ProblemFacts
from secdash.services.scanning import code_roots


def _current_headers(facts: ProblemFacts) -> dict[str, str]:
    if facts.root is None:
        return {}
    try:
        return site_fixes.parse_headers_file((code_roots.source_of(facts.root) / facts.file).read_text())
    except (OSError, Invalid):
        return {}


def _reader(source: Path):  # noqa: ANN202
    """Reads a file of the code root (None when it cannot be read or is outside it)."""

    def read(relative: str) -> str | None:
        try:
            path = (source / relative).resolve()
            if not path.is_relative_to(source.resolve()):
                return None
            return path.read_bytes().decode()
        except (OSError, UnicodeDecodeError):
            return None

    return read


def _offline(facts: ProblemFacts, file_text: str) -> dict[str, Any]:
    """The offline engine's answer ({} when it has no recipe for this problem)."""
    if facts.kind == FixKind.code:
        recipe = recipes.recipe_for(facts.rule)
        diff = (
            recipes.propose_files(file_text, facts.finding(), path=facts.file, read=_reader(code_roots.source_of(facts.root)))
            if recipe and facts.root
            else None
        )
        return {"diff": diff, "explanation": recipe.explanation, "risk": recipe.risk} if recipe and diff else {}
    header = site_fixes.recipe_for(facts.rule)
    return {"headers": header.headers, "explanation": header.explanation, "risk": header.risk} if header else {}


def _check(facts: ProblemFacts, answer: CodeFixProposal | SiteFixProposal) -> tuple[str, dict[str, Any]]:
    """(diff, change) of a valid answer; Invalid / PatchRefused with the reason otherwise."""
    if isinstance(answer, CodeFixProposal):
        assert facts.root is not None
        source = code_roots.source_of(facts.root)
        patches.validate_patch(answer.diff, source, allowed_files=scope.allowed_files(source, facts.file))
        return answer.diff, {}
    headers = site_fixes.validate_headers(answer.headers)
    if facts.root is None:  # a site SecDash does not serve: the change is the whole fix
        return "", {"headers": headers}
    current = _current_headers(facts)
    after = site_fixes.render_headers_file(site_fixes.merged(current, headers))
    before = (code_roots.source_of(facts.root) / facts.file).read_text() if current else ""
    if after == before:
        raise Invalid("the site already sends these headers; the change would do nothing")
    return patch.unified_diff(facts.file, before, after), {"headers": headers}


async def propose(ctx: JobContext, fix: Fix, facts: ProblemFacts, owner: UserPublic | None) -> None:
    file_text = ""
    if facts.kind == FixKind.code:
        assert facts.root is not None
        try:
            file_text = (code_roots.source_of(facts.root) / facts.file).read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise FixFailed(f"{facts.file} cannot be read: {type(exc).__name__}") from None
    settings = get_settings()
    calls = (
        ai_calls.for_user(settings=settings, user=owner, feature="fix_proposal", agent=facts.agent_id)
        if owner
        else ai_calls.for_system(settings=settings, feature="fix_proposal", agent=facts.agent_id)
    )
    offline = _offline(facts, file_text)
    if calls.name == "offline" and not offline:
        raise FixFailed(
            f"The offline engine has no recipe for {facts.rule}; configure a model (SECDASH_LLM_BASE_URL) "
            "to have an agent write this fix, or fix it by hand"
        )
    agent = AGENTS.get(facts.agent_id, AGENTS["general"])
    await ctx.log(
        f"{agent.name} is writing a fix for {facts.rule} "
        f"{'in ' + facts.file if facts.kind == FixKind.code else 'on ' + facts.site_name} "
        f"({calls.name}, {calls.model})"
    )
    await ctx.progress(force=True, phase="propose", percent=20)
    schema: type[CodeFixProposal | SiteFixProposal] = CodeFixProposal if facts.kind == FixKind.code else SiteFixProposal
    task = FixProposalTask(
        kind_of_fix=facts.kind.value,
        site=facts.site_name,
        finding=facts.facts_for_agent(),
        offline_answer=offline,
        path=facts.file,
        file_text=file_text,
        current_headers=_current_headers(facts),
        agent_id=facts.agent_id,
    )

    async def refused(attempt: int, reason: str) -> None:
        await ctx.log(f"Proposal refused by validation (attempt {attempt}): {reason}", JobLevel.warning)
        await ctx.progress(force=True, phase="propose", percent=60)

    try:
        answer, (diff, change) = await ai_calls.structured_checked(
            calls,
            task,
            schema,
            lambda answer: _check(facts, answer),
            refusals=(patches.PatchRefused, Invalid),
            on_refused=refused,
        )
    except LLMError as exc:
        raise FixFailed(f"The AI agent could not write a fix: {exc.message}") from None
    except DomainError as exc:  # the user's AI budget
        raise FixFailed(exc.message) from None
    except ai_calls.AnswerRefused as exc:
        raise FixFailed(f"The agent's fix was refused twice: {exc.reason}") from None
    await update(
        fix.id or 0,
        status=FixStatus.proposed,
        diff=diff,
        change=change,
        explanation=answer.explanation[:2000],
        risk=answer.risk[:2000],
        provider=calls.name,
        model=calls.model,
        error=None,
    )
    await ctx.log(f"Fix proposed: {answer.explanation[:300]}", JobLevel.success)
