"""What a session runs: the command line and the environment, decided by the server alone.

The assessor is the logged-in user's name, passed as one argv item (no shell ever sees it);
nothing the browser sends reaches the command. The environment is built from nothing:
``PATH``, ``HOME``, the locale, Textual's web driver, the terminal size, and the libpq
settings a PostgreSQL store connects with. On PostgreSQL the session acts as the user's
own database role: ``PGOPTIONS=-c role=NAME`` (the server's role must be a member of each
assessor's role), so row-level security holds as in a terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from poolkit.app.screen import WEB_DRIVER

#: passed on from the server's environment when set: where things are, the locale
BASICS = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH")
#: libpq's connection settings (the server's credentials for a PostgreSQL store)
LIBPQ = ("PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD",
         "PGPASSFILE", "PGSERVICE", "PGSERVICEFILE", "PGSSLMODE", "PGSSLROOTCERT",
         "PGSSLCERT", "PGSSLKEY", "PGSSLCRL", "PGCONNECT_TIMEOUT", "PGAPPNAME")


@dataclass(frozen=True)
class Launch:
    """How a served store's screens start: ``config`` is the served CONFIG's path."""

    config: Path
    postgres: bool = False
    python: str = sys.executable

    def judge(self, user: str) -> list[str]:
        return [self.python, "-m", "poolkit", "judge", str(self.config), "--assessor", user]

    def status(self) -> list[str]:
        return [self.python, "-m", "poolkit", "status", str(self.config), "--watch"]

    def environment(self, user: str, width: int, height: int,
                    server: Mapping[str, str] | None = None) -> dict[str, str]:
        server = os.environ if server is None else server
        keep = BASICS + (LIBPQ if self.postgres else ())
        env = {k: server[k] for k in keep if k in server}
        env.setdefault("PATH", os.defpath)
        env.update({"TEXTUAL_DRIVER": WEB_DRIVER, "TEXTUAL_FPS": "60",
                    "TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM_PROGRAM": "textual",
                    "COLUMNS": str(width), "ROWS": str(height), "PYTHONUNBUFFERED": "1"})
        if self.postgres:
            env["PGOPTIONS"] = f"-c role={_quoted_option(user)}"
        return env


def _quoted_option(value: str) -> str:
    """``value`` as one word of libpq's ``options`` (spaces and backslashes escaped)."""
    return value.replace("\\", "\\\\").replace(" ", "\\ ")
