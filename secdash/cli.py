"""`python -m secdash`: migrate, first-run set-up and user administration.

Passwords are read from standard input (a hidden prompt on a terminal), never from argv.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys

from secdash import cli_grade, scan_cli
from secdash.core import data_dir
from secdash.core.config import PROJECT_ROOT, get_settings
from secdash.core.db import dispose_engine, session_scope
from secdash.core.files import make_private_dir, remove_stale_state_files, restrict_process_umask
from secdash.services.alerting import rules as alerting_rules
from secdash.services.errors import DomainError
from secdash.services.identity import users
from secdash.services.probe import cli as probe_cli
from secdash.services.traffic import cli as detect_cli
from secdash.services.traffic import ship_cli


def migrate() -> None:
    """Bring the database schema to the newest revision."""
    from alembic.config import Config

    from alembic import command

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


def _read_password() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("New password: ")
        if getpass.getpass("Repeat password: ") != first:
            raise DomainError("the two passwords differ")
        return first
    return sys.stdin.readline().rstrip("\r\n")


async def _init() -> None:
    settings = get_settings()
    settings.secret_key()  # create the key file once, before several workers race for it
    async with session_scope() as session:
        created = await users.ensure_first_admin(session=session, settings=settings)
    async with session_scope() as session:  # the default notification rules of a new install
        await alerting_rules.ensure_defaults(session)
        await session.commit()
    if created is None:
        password_file = settings.DATA_DIR / "admin-password.txt"
        hint = f" (the first admin's generated password is in {password_file})" if password_file.exists() else ""
        print(f"SecDash: users exist; sign in with an existing account{hint}.")
    elif created.generated_password:
        print(f"SecDash: first admin created: {created.email}")
        print(f"SecDash: generated password (shown once; also in {created.password_file}, mode 0600):")
        print(f"    {created.generated_password}")
    else:
        print(f"SecDash: first admin created: {created.email} (password from SECDASH_ADMIN_PASSWORD)")


async def _users(args: argparse.Namespace) -> None:
    async with session_scope() as session:
        if args.action == "create":
            user = await users.create_user(
                session=session, email=args.email, password=_read_password(), role=args.role, first_name=args.first_name
            )
            print(f"created {user.email} ({user.role})")
        elif args.action == "set-password":
            await users.set_password(session=session, email=args.email, password=_read_password())
            print(f"password changed for {args.email}; its sessions were revoked")
        elif args.action == "deactivate":
            await users.deactivate_user(session=session, email=args.email)
            print(f"deactivated {args.email}")
        else:
            for user in await users.list_users(session=session):
                state = "active" if user.is_active else "inactive"
                print(f"{user.id}\t{user.email}\t{user.role}\t{state}\t{user.first_name}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m secdash", description="SecDash administration")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply database migrations")
    sub.add_parser("init", help="migrate, create the secret key and the first admin if no user exists")
    user_parser = sub.add_parser("users", help="manage user accounts")
    user_sub = user_parser.add_subparsers(dest="action", required=True)
    create = user_sub.add_parser("create", help="create a user; password read from stdin")
    create.add_argument("email")
    create.add_argument("--role", choices=["admin", "limited"], default="limited")
    create.add_argument("--first-name", default="")
    user_sub.add_parser("set-password", help="set a password (read from stdin); revokes sessions").add_argument("email")
    user_sub.add_parser("deactivate", help="deactivate a user and revoke sessions").add_argument("email")
    user_sub.add_parser("list", help="list users")
    cli_grade.add_parser(sub)
    scan_cli.add_parser(sub)
    probe_cli.add_parser(sub)
    detect_cli.add_parser(sub)
    ship_cli.add_parser(sub)
    return parser


async def _run(coro) -> None:
    try:
        await coro
    finally:
        await dispose_engine()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "grade":
        return cli_grade.run(args)
    if args.command == "scan":
        return scan_cli.run(args)
    if args.command == "probe":
        return probe_cli.run(args)
    if args.command == "detect":
        return detect_cli.run(args)
    if args.command == "ship":
        return ship_cli.run(args)
    restrict_process_umask()
    make_private_dir(get_settings().DATA_DIR)
    if args.command == "init":
        remove_stale_state_files(PROJECT_ROOT)
    try:
        if args.command in ("migrate", "init"):
            migrate()
        settings = get_settings()
        data_dir.bind(settings.DATA_DIR, settings.database_url)  # refuses another database's data directory
        if args.command == "init":
            asyncio.run(_run(_init()))
        elif args.command == "users":
            asyncio.run(_run(_users(args)))
    except DomainError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    except data_dir.DataDirMismatch as exc:
        print(f"SecDash will not start: {exc}", file=sys.stderr)
        return 1
    return 0
