"""``poolkit users``: the accounts people log in to ``poolkit serve`` with (the verbs are
:mod:`poolkit.app.users`).

    poolkit users CONFIG add NAME [--role assessor|lead] --password-stdin
    poolkit users CONFIG list [--format table|json]
    poolkit users CONFIG remove NAME
    poolkit users CONFIG invite NAME [--role ...] [--public-url URL] [--expires HOURS]

A password is read from stdin only (one line; at a terminal, asked without echo), never
from the command line, where the shell's history and the process list would keep it.
"""

from __future__ import annotations

import argparse
import sys

from poolkit.app.users import DEFAULT_EXPIRES_HOURS, DEFAULT_PUBLIC_URL, ROLES, UsersReport

SUMMARY = "the accounts of poolkit serve: add, list, remove, invite (a one-time link)"
ADD = "  poolkit users configs/sample.yaml add alice --password-stdin < alice.txt\n"
INVITE = "  poolkit users configs/sample.yaml invite bob --public-url https://judge.lab\n"
LIST = "  poolkit users configs/sample.yaml list --format json\n"
REMOVE = "  poolkit users configs/sample.yaml remove bob\n"


def _action(actions: argparse._SubParsersAction, name: str, handler: object, example: str,
            help: str, description: str) -> argparse.ArgumentParser:
    """One action's parser, ending with its example, calling ``handler``."""
    p = actions.add_parser(name, help=help, description=description,
                           epilog=f"example:\n{example}")
    p.set_defaults(handler=handler)
    return p  # type: ignore[no-any-return]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("users", help=SUMMARY, description=__doc__.split("\n\n")[0],
                       epilog=f"examples:\n{ADD}{INVITE}{LIST}")
    p.add_argument("config", metavar="CONFIG", help="collection config (YAML)")
    p.set_defaults(conceal_extra=True)  # a stray word may be a password: never echoed
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = _action(actions, "add", run_add, ADD,
                  "add an account with a password read from stdin",
                  "Add an account NAME (the name its grades are recorded under) with a "
                  "password read from stdin: one line, at least 8 characters.")
    add.add_argument("name", metavar="NAME", help="the account's name (as --assessor)")
    add.add_argument("--role", choices=ROLES, default="assessor",
                     help="assessor (default) or lead (also sees the team's status page)")
    add.add_argument("--password-stdin", nargs="?", const=True, default=False, metavar="",
                     required=True, help="read the password from stdin (the only way)")
    listing = _action(actions, "list", run_list, LIST, "list the accounts (never a password)",
                      "List every account: role, when it was made, whether it has a "
                      "password, and its pending invite's expiry.")
    listing.add_argument("--format", choices=UsersReport.formats, default="table")
    _action(actions, "remove", run_remove, REMOVE,
            "remove an account (its grades stay; its sessions end)",
            "Remove NAME's account and invites; its sessions end at their next request. "
            "Its grades stay in the store, under its name.").add_argument("name", metavar="NAME")
    invite = _action(actions, "invite", run_invite, INVITE,
                     "print a one-time link that sets NAME's password",
                     "Print a one-time link that lets NAME set a password (making the "
                     "account, without a password, if it has none). A new invite voids "
                     "NAME's older ones. Only the token's sha256 is stored.")
    invite.add_argument("name", metavar="NAME")
    invite.add_argument("--role", choices=ROLES, default=None,
                        help="a new account's role (default assessor; an existing account "
                             "keeps its own)")
    invite.add_argument("--public-url", default=DEFAULT_PUBLIC_URL, metavar="URL",
                        help=f"where people reach poolkit serve (default {DEFAULT_PUBLIC_URL})")
    invite.add_argument("--expires", type=float, default=DEFAULT_EXPIRES_HOURS,
                        metavar="HOURS", help=f"hours the link is valid (default "
                                              f"{DEFAULT_EXPIRES_HOURS:g})")


def run_add(args: argparse.Namespace) -> int:
    from poolkit.app.users import add_user, read_password
    from poolkit.collection import Collection
    from poolkit.errors import tell

    password = read_password(args.password_stdin, sys.stdin, args.name)
    with Collection.open(args.config, write=True) as collection:
        account = add_user(collection, args.name, args.role, password)
    tell(f"added {account.role} {account.name!r}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from poolkit.app.users import list_users
    from poolkit.collection import Collection

    with Collection.open(args.config) as collection:
        sys.stdout.write(list_users(collection).render(args.format))
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from poolkit.app.users import remove_user
    from poolkit.collection import Collection
    from poolkit.errors import tell

    with Collection.open(args.config, write=True) as collection:
        remove_user(collection, args.name)
    tell(f"removed {args.name!r} (their grades stay)")
    return 0


def run_invite(args: argparse.Namespace) -> int:
    from poolkit.app.users import invite_user
    from poolkit.collection import Collection

    with Collection.open(args.config, write=True) as collection:
        link = invite_user(collection, args.name, args.role, args.public_url, args.expires)
    sys.stdout.write(link + "\n")
    return 0
