"""The matrix's sqlite backend: a SQLite file per scenario, through the
standard library's sqlite3."""

from __future__ import annotations

import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

from tinystore import guard

from . import Outcome, Step, fence
from .sql import Sql


class Sqlite(Sql):
    name = "sqlite"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        self.dir = tempfile.TemporaryDirectory(prefix="tinystore-matrix-")
        self.path = Path(self.dir.name) / "app.db"
        with closing(self.admin()) as conn:
            conn.execute("create table notes (fence text)")
            guard.ensure(conn)

    def connect(self, **kwargs: Any) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=float(kwargs.get("timeout", 5.0)))  # the module's default: it begins before an INSERT

    def admin(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, isolation_level=None)

    def autocommit(self) -> sqlite3.Connection:
        return self.admin()

    def transaction(self, conn: Any) -> Any:
        return conn  # `with conn:` commits, or rolls back on an exception

    def close(self) -> None:
        self.dir.cleanup()

    def driver_error(self, kind: str, err: BaseException) -> bool:
        name = str(getattr(err, "sqlite_errorname", ""))
        prefix = {"serialization": "SQLITE_BUSY", "permission": "SQLITE_READONLY"}.get(kind)
        return isinstance(err, sqlite3.Error) and prefix is not None and name.startswith(prefix)

    def is_driver(self, err: BaseException | None) -> bool:
        return isinstance(err, sqlite3.Error)

    def step_serialization(self, args: dict[str, Any], step: Step) -> None:
        with closing(self.admin()) as conn:
            conn.execute("pragma journal_mode=wal")
        a = self.autocommit()
        try:
            a.execute("begin")
            a.execute("select * from tinystore_fences").fetchall()  # A's snapshot
            self.judge("accepted", self.write(fence(args["between"]), None), fence(args["between"]))
            f = fence(args["fence"])
            try:
                guard.check(a, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
            a.execute("rollback")
        finally:
            a.close()
        self.judge(step["expect"], outcome, f)

    def step_permission(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        try:
            with conn:
                guard.check(conn, self.resource, f)
            outcome: Outcome = None
        except Exception as err:
            outcome = err
        finally:
            conn.close()
        self.judge(step["expect"], outcome, f)
