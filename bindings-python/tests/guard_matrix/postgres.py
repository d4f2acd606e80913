"""The matrix's postgres backend: the server at $TINYSTORE_PG_URL through
psycopg 3, a schema of its own per scenario (search_path), the register made
by guard.ensure."""

from __future__ import annotations

import os
import uuid
from contextlib import closing
from typing import Any

from tinystore import guard

from . import Failed, Outcome, Step, expect, fence
from .sql import Sql


class Postgres(Sql):
    name = "postgres"
    placeholder = "%s"
    READER = "tinystore_guard_reader"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        import psycopg

        self.psycopg = psycopg
        url = os.environ.get("TINYSTORE_PG_URL")
        if not url:
            raise Failed("TINYSTORE_PG_URL is unset: run under tests/guards/with-postgres.sh")
        self.url = url
        self.schema = f"matrix_py_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"create schema {self.schema}")
        with closing(self.admin()) as conn:
            conn.execute("create table notes (fence text)")
            guard.ensure(conn)

    def connect(self, **kwargs: Any) -> Any:
        return self.psycopg.connect(self.url, options=f"-c search_path={self.schema}", **kwargs)

    def admin(self) -> Any:
        return self.connect(autocommit=True)

    def autocommit(self) -> Any:
        return self.admin()

    def transaction(self, conn: Any) -> Any:
        return conn.transaction()

    def close(self) -> None:
        with self.psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"drop schema if exists {self.schema} cascade")

    def driver_error(self, kind: str, err: BaseException) -> bool:
        errors = self.psycopg.errors
        wanted = {
            "serialization": errors.SerializationFailure,
            "permission": errors.InsufficientPrivilege,
            "unavailable": self.psycopg.OperationalError,
        }[kind]
        return isinstance(err, wanted)

    def is_driver(self, err: BaseException | None) -> bool:
        return isinstance(err, self.psycopg.Error)

    def step_serialization(self, args: dict[str, Any], step: Step) -> None:
        a = self.connect()
        try:
            a.isolation_level = self.psycopg.IsolationLevel.REPEATABLE_READ
            a.execute("select * from tinystore_fences").fetchall()  # A's snapshot
            self.judge("accepted", self.write(fence(args["between"]), None), fence(args["between"]))
            f = fence(args["fence"])
            try:
                guard.check(a, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
            a.rollback()
        finally:
            a.close()
        self.judge(step["expect"], outcome, f)

    def step_permission(self, args: dict[str, Any], step: Step) -> None:
        with closing(self.admin()) as conn:
            try:
                conn.execute(f"create role {self.READER}")
            except (self.psycopg.errors.DuplicateObject, self.psycopg.errors.UniqueViolation):
                pass  # made by an earlier run, or by another language's runner
            conn.execute(f"grant usage on schema {self.schema} to {self.READER}")
            conn.execute(f"grant select on tinystore_fences to {self.READER}")
        f = fence(args["fence"])
        conn = self.connect()
        try:
            with conn.transaction():
                conn.execute(f"set local role {self.READER}")
                guard.check(conn, self.resource, f)
            outcome: Outcome = None
        except Exception as err:
            outcome = err
        finally:
            conn.close()
        self.judge(step["expect"], outcome, f)

    def step_server_gone(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        conn = self.connect()
        try:
            conn.execute("select 1")  # BEGIN
            with closing(self.admin()) as admin:
                # Waits (up to 10 s) until the backend is gone.
                ended = admin.execute("select pg_terminate_backend(%s, 10000)", (conn.info.backend_pid,)).fetchone()[0]
            expect(bool(ended), "pg_terminate_backend did not end the connection")
            try:
                guard.check(conn, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
        finally:
            conn.close()
        self.judge(step["expect"], outcome, f)
        expect(self.recorded() is None, "the check recorded its fence on a connection that was gone")
