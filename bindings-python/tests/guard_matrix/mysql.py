"""The matrix's mysql backend: the MariaDB at $TINYSTORE_MYSQL_URL through
PyMySQL, a database of its own per scenario, the register made by
guard.ensure. PyMySQL's connections are given an ``execute`` (a cursor's)
so that the SQL backends' shared steps run on them as on sqlite3's and
psycopg's."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any
from urllib.parse import urlparse

from tinystore import guard

from . import Failed, Outcome, Step, expect, fence
from .sql import Sql


def _connection_class() -> Any:
    import pymysql  # type: ignore[import-untyped]

    class Connection(pymysql.connections.Connection):  # type: ignore[misc]
        """PyMySQL's connection, with sqlite3's and psycopg's ``execute``."""

        def execute(self, sql: str, params: Any = None) -> Any:
            cur = self.cursor()
            cur.execute(sql, params)
            return cur

    return Connection


class Mysql(Sql):
    name = "mysql"
    placeholder = "%s"
    READER = "tinystore_guard_reader"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        import pymysql

        self.pymysql: Any = pymysql
        self.Connection = _connection_class()
        url = os.environ.get("TINYSTORE_MYSQL_URL")
        if not url:
            raise Failed("TINYSTORE_MYSQL_URL is unset: run under tests/guards/with-mariadb.sh")
        self.server = urlparse(url)
        self.database = f"matrix_py_{uuid.uuid4().hex[:12]}"
        with closing(self.connect(database=None, autocommit=True)) as conn:
            conn.execute(f"create database {self.database}")
        with closing(self.admin()) as conn:
            conn.execute("create table notes (fence text) engine=InnoDB")
            guard.ensure(conn)

    def connect(self, **kwargs: Any) -> Any:
        kwargs.setdefault("database", self.database)
        kwargs.setdefault("user", self.server.username)
        return self.Connection(host=self.server.hostname, port=self.server.port, **kwargs)

    def admin(self) -> Any:
        return self.connect(autocommit=True)

    def autocommit(self) -> Any:
        return self.admin()

    @contextmanager
    def transaction(self, conn: Any) -> Iterator[None]:
        conn.begin()
        try:
            yield
        except BaseException:
            conn.rollback()
            raise
        conn.commit()

    def close(self) -> None:
        with closing(self.connect(database=None, autocommit=True)) as conn:
            conn.execute(f"drop database if exists {self.database}")

    def driver_error(self, kind: str, err: BaseException) -> bool:
        number = err.args[0] if isinstance(err, self.pymysql.MySQLError) and err.args else None
        wanted = {"serialization": (1020, 1213, 1205), "permission": (1142,), "unavailable": (1927, 2006, 2013, 0)}[kind]
        return number in wanted

    def is_driver(self, err: BaseException | None) -> bool:
        return isinstance(err, self.pymysql.MySQLError)

    def step_serialization(self, args: dict[str, Any], step: Step) -> None:
        a = self.connect()
        try:
            a.execute("set session innodb_snapshot_isolation = ON")
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
        reader = f"'{self.READER}'@'127.0.0.1'"
        with closing(self.admin()) as conn:
            conn.execute(f"create user if not exists {reader}")
            conn.execute(f"grant select on {self.database}.tinystore_fences to {reader}")
        f = fence(args["fence"])
        conn = self.connect(user=self.READER)
        try:
            with self.transaction(conn):
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
            conn.begin()
            with closing(self.admin()) as admin:
                admin.execute(f"kill {conn.thread_id()}")
            try:
                guard.check(conn, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
        finally:
            try:
                conn.close()
            except self.pymysql.MySQLError:
                pass  # closing a killed connection
        self.judge(step["expect"], outcome, f)
        expect(self.recorded() is None, "the check recorded its fence on a connection that was gone")
