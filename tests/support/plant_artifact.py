"""Put an artifact whose version 1 is the given HTML in a server's database, as the user's open artifact (browser
tests of the preview's isolation need a page whose script tries to escape; no engine writes one on purpose). The
version goes in through services/artifacts/artifacts.save_edit, as a hand edit would.

    python -m tests.support.plant_artifact <email> <name>  < page.html      (run with the server's environment)
"""

from __future__ import annotations

import asyncio
import sys

from sqlmodel import select

from secdash.core.db import session_scope
from secdash.models import User, UserPublic
from secdash.models.artifacts import Artifact, ArtifactStatus
from secdash.services.artifacts import artifacts


async def plant(email: str, name: str, page: str) -> int:
    async with session_scope() as session:
        user = (await session.exec(select(User).where(User.email == email))).one()
        artifact = Artifact(owner_user_id=user.id, name=name, prompt=name, status=ArtifactStatus.ready)
        session.add(artifact)
        await session.commit()
        await session.refresh(artifact)
        saved = await artifacts.save_edit(
            session=session, actor=UserPublic.from_user(user), artifact_id=artifact.id, html=page, changes="planted by a test"
        )
        return saved.id


if __name__ == "__main__":
    print(asyncio.run(plant(sys.argv[1], sys.argv[2], sys.stdin.read())))
