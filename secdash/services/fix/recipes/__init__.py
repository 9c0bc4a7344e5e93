"""The offline engine's fix recipes: one deterministic, reviewable rewrite per scanner rule.

Each recipe gets the whole file text (read with `newline=""`, so line endings survive) and the finding, and returns
the new text, or None when it cannot be sure the rewrite is safe (then Fix Mode says "no offline recipe" instead of
guessing). Recipes change the flagged line and the few lines that must change with it (an import, the call that
receives a query's parameters, a handler's new script), nothing else, so the diff stays small enough to review.

One module per family of rules (credentials, javascript with js_eval, handlers, commands, python_data, over the
shared helpers in lines and python_source); this one holds the table of recipes and the diff a recipe proposes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from secdash.services.code_scan import Finding
from secdash.services.diff.patch import unified_diff
from secdash.services.fix.recipes.commands import (
    fix_import_subprocess_reviewed,
    fix_partial_path,
    fix_shell_true,
    fix_subprocess_reviewed,
)
from secdash.services.fix.recipes.credentials import fix_secret
from secdash.services.fix.recipes.handlers import fix_inline_handler, move_handler_to_script
from secdash.services.fix.recipes.javascript import (
    fix_document_write,
    fix_eval,
    fix_inner_html,
    fix_new_function,
    fix_sql_concatenation,
)
from secdash.services.fix.recipes.python_data import fix_hardcoded_tmp, fix_pickle

Fix = Callable[[str, Finding], "str | None"]


@dataclass(frozen=True)
class Recipe:
    """A rule's fix: what it does and what could go wrong, shown to the reviewer next to the diff."""

    rule_prefix: str
    explanation: str
    risk: str
    fix: Fix

    def __call__(self, text: str, finding: Finding) -> str | None:
        return self.fix(text, finding)


RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "secret:",
        "Reads the credential from an environment variable instead of the source file.",
        "The program needs that variable set where it runs; the old value is still in version history, so rotate the credential.",
        fix_secret,
    ),
    Recipe(
        "js:eval",
        "Writes the arithmetic the string held as code (or parses JSON data as JSON), so nothing runs a string.",
        "Only for a literal string of plain arithmetic or JSON; anything else needs a model.",
        fix_eval,
    ),
    Recipe(
        "js:new-function",
        "Parses the data with JSON.parse instead of compiling it into a function.",
        'Only the `new Function("return " + data)()` form is rewritten; non-JSON input now throws.',
        fix_new_function,
    ),
    Recipe(
        "js:innerHTML",
        "Writes the value as text (textContent), so markup in it is never interpreted.",
        "Tags written into the string are dropped and any intended formatting is lost.",
        fix_inner_html,
    ),
    Recipe(
        "js:document.write",
        "Appends the value as a text node after the running script instead of writing HTML.",
        "Only works while the page is parsed (document.currentScript); markup in the string is dropped.",
        fix_document_write,
    ),
    Recipe(
        "js:sql-concatenation",
        "Sends the values as query parameters (?) instead of splicing them into the SQL.",
        "Assumes a driver with ? placeholders (sqlite3, mysql); PostgreSQL drivers need $1, $2.",
        fix_sql_concatenation,
    ),
    Recipe(
        "html:inline-event-handler",
        "Moves the inline handler into the page's own script file (the first local "
        "script it loads after the element) as an event listener; a page without one gets a script block at the "
        "end of the body.",
        "A script block at the end of the body is still inline: a Content-Security-Policy with script-src 'self' "
        "blocks it unless it names its hash. The moved handler runs after that script file loads.",
        fix_inline_handler,
    ),
    Recipe(
        "bandit:B602",
        "Runs the command as an argument list without a shell, so input cannot add commands.",
        "Shell features (globs, variables, ~) no longer expand; a value with spaces is now one argument.",
        fix_shell_true,
    ),
    Recipe(
        "bandit:B301",
        "Stores and reads the data as JSON instead of pickle, which can run code when loaded.",
        "Only JSON types survive (no sets, bytes or objects); entries pickled earlier no longer load.",
        fix_pickle,
    ),
    Recipe(
        "bandit:B403",
        "Replaces the pickle module with json throughout the file.",
        "Only JSON types survive (no sets, bytes or objects); entries pickled earlier no longer load.",
        fix_pickle,
    ),
    Recipe(
        "bandit:B108",
        "Uses the system's temp directory (tempfile.gettempdir()) instead of a fixed, shared /tmp path.",
        "The path now follows TMPDIR; files still land in a shared temp directory, so for secrets prefer "
        "tempfile.mkstemp or tempfile.TemporaryDirectory (private, unpredictable names).",
        fix_hardcoded_tmp,
    ),
    Recipe(
        "bandit:B607",
        "Starts the program by its absolute path, found with shutil.which on this server when the "
        "fix was made, instead of searching PATH each time it runs.",
        "The absolute path may differ on other machines (the program may live elsewhere or be missing there).",
        fix_partial_path,
    ),
    Recipe(
        "bandit:B603",
        "Changes no behaviour: it only adds bandit's own `# nosec B603` marker to the line, recording "
        "that this call was reviewed (an argument list, no shell) so bandit stops reporting it.",
        "Bandit no longer reports later changes to this line; re-review it if the command starts taking input from users.",
        fix_subprocess_reviewed,
    ),
    Recipe(
        "bandit:B404",
        "Changes no behaviour: it only adds bandit's own `# nosec B404` marker to the import line, "
        "recording that using subprocess was reviewed so bandit stops reporting it (each call is still checked "
        "on its own line).",
        "Bandit no longer reports later changes to this line; re-review the file's commands if they start taking "
        "input from users.",
        fix_import_subprocess_reviewed,
    ),
)


def recipe_for(rule: str) -> Recipe | None:
    """The recipe for a scanner rule (a Recipe is callable: `recipe(text, finding)`), or None when there is none.

    Rules without one need a person or a model.
    """
    for recipe in RECIPES:
        if rule == recipe.rule_prefix or (recipe.rule_prefix.endswith(":") and rule.startswith(recipe.rule_prefix)):
            return recipe
    return None


def propose(file_text: str, finding: Finding, *, path: str | None = None) -> str | None:
    """The offline fix for a finding as a unified diff against `path` (default: the finding's file), or None."""
    recipe = recipe_for(finding.rule)
    if recipe is None:
        return None
    new_text = recipe(file_text, finding)
    if new_text is None or new_text == file_text:
        return None
    return unified_diff(path or finding.file, file_text, new_text)


def propose_files(file_text: str, finding: Finding, *, path: str, read: Callable[[str], str | None]) -> str | None:
    """The offline fix as a unified diff that may also change a file the page loads (an inline handler moved into
    the page's script file); otherwise the same as `propose`."""
    if finding.rule == "html:inline-event-handler":
        moved = move_handler_to_script(file_text, finding, path, read)
        if moved is not None:
            return "".join(unified_diff(name, before, after) for name, (before, after) in moved.items())
    return propose(file_text, finding, path=path)
