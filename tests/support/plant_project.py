"""Put a project with given files in a server's database, as the user's current project (browser tests of the
preview's isolation need a page whose script tries to escape; no engine writes one on purpose).

    python -m tests.support.plant_project <email> <name>  < files.json      (run with the server's environment)
"""

from __future__ import annotations

import asyncio
import json
import sys

from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import User
from secdash.models.builder import CodeProject, ProjectFile, ProjectStatus
from secdash.services.builder import project_dir


async def plant(email: str, name: str, files: dict[str, str]) -> int:
    async with session_scope() as session:
        user = (await session.exec(select(User).where(User.email == email))).one()
        for row in await session.exec(select(CodeProject).where(CodeProject.current_of == user.id)):
            row.current_of = None
            session.add(row)
        await session.flush()
        project = CodeProject(
            owner_user_id=user.id,
            current_of=user.id,
            name=name,
            description="planted by a test",
            prompt=name,
            status=ProjectStatus.complete,
        )
        session.add(project)
        await session.flush()
        for path, content in files.items():
            session.add(
                ProjectFile(project_id=project.id, filename=path, language=project_dir.language_of(path), content=content)
            )
        await session.commit()
        return project.id


if __name__ == "__main__":
    print(asyncio.run(plant(sys.argv[1], sys.argv[2], json.loads(sys.stdin.read()))))
