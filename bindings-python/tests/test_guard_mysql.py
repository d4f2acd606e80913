"""tinystore.guard on MySQL and MariaDB through PyMySQL, on the real server
at $TINYSTORE_MYSQL_URL (make test-python starts one with
tests/guards/with-mariadb.sh): every guard case of vectors/behaviour.json,
with and without found rows; a DictCursor connection and a cursor as the
handle; outside a transaction; two writers of one resource (the second
waits for the first's commit, then the rule decides); a snapshot older
than the recorded fence; a reader-only user; a killed connection; and
innodb_snapshot_isolation's error told as a serialization failure.

Without $TINYSTORE_MYSQL_URL these tests skip, unless
TINYSTORE_REQUIRE_MYSQL=1 (as `make test` sets), where they fail."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from test_guard import CASES, Case, judge

import tinystore
from tinystore import guard

pymysql: Any = pytest.importorskip("pymysql")

URL = os.environ.get("TINYSTORE_MYSQL_URL")
if URL is None:
    if os.environ.get("TINYSTORE_REQUIRE_MYSQL") == "1":
        raise RuntimeError("TINYSTORE_MYSQL_URL is not set: run under tests/guards/with-mariadb.sh")
    pytest.skip("TINYSTORE_MYSQL_URL is not set", allow_module_level=True)
SERVER = urlparse(URL)


def connect(database: str | None = None, **kwargs: Any) -> Any:
    kwargs.setdefault("user", SERVER.username)
    return pymysql.connect(host=SERVER.hostname, port=SERVER.port, database=database, **kwargs)


@pytest.fixture
def database() -> Iterator[str]:
    """A database of this test's own, dropped after."""
    name = f"py_{uuid.uuid4().hex[:12]}"
    with connect(autocommit=True) as admin, admin.cursor() as cur:
        cur.execute(f"create database {name}")
    yield name
    with connect(autocommit=True) as admin, admin.cursor() as cur:
        cur.execute(f"drop database {name}")


def register(conn: Any, resource: str) -> str | None:
    with conn.cursor() as cur:
        cur.execute("select fence from tinystore_fences where resource = %s", (resource,))
        row = cur.fetchone()
    return None if row is None else str(row[0])


@pytest.mark.parametrize("found_rows", [False, True], ids=["affected", "found_rows"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_guard_vector_on_mariadb(case: Case, found_rows: bool, database: str) -> None:
    flags = pymysql.constants.CLIENT.FOUND_ROWS if found_rows else 0
    conn = connect(database, client_flag=flags)
    with conn.cursor() as cur:
        cur.execute("create table notes (resource varbinary(2048), fence text) engine=InnoDB")
    if case.table:
        guard.ensure(conn)
        guard.ensure(conn)  # safe to run again
    if case.recorded is not None:
        with conn.cursor() as cur:
            cur.execute("insert into tinystore_fences values ('chats/42', %s)", (case.recorded,))
    conn.commit()
    outcome: tinystore.Error | None = None
    with conn.cursor() as cur:
        cur.execute("insert into notes values (%s, %s)", (case.resource.encode("utf-8", "surrogatepass"), str(case.fence)))
    try:
        guard.check(conn, case.resource, case.fence)
    except tinystore.Error as err:
        conn.rollback()
        outcome = err
    else:
        conn.commit()
    with conn.cursor() as cur:
        cur.execute("select count(*) from notes")
        notes = cur.fetchone()[0]
    judge(case, outcome, notes, register(conn, case.resource) if case.table else None)
    conn.close()


def test_a_cursor_and_a_dict_cursor_connection_are_handles(database: str) -> None:
    conn = connect(database, cursorclass=pymysql.cursors.DictCursor)
    guard.ensure(conn)
    with conn.cursor() as cur:
        guard.check(cur, "chats/42", 9)
    conn.commit()
    with pytest.raises(tinystore.Stale) as refused:
        guard.check(conn, "chats/42", 7)
    conn.rollback()
    assert (refused.value.resource, refused.value.fence, refused.value.largest) == ("chats/42", 7, 9)


def test_outside_a_transaction_is_invalid(database: str) -> None:
    conn = connect(database, autocommit=True)
    guard.ensure(conn)
    with pytest.raises(tinystore.Invalid, match="outside a transaction"):
        guard.check(conn, "chats/42", 7)
    conn.begin()  # an explicit transaction is fine
    guard.check(conn, "chats/42", 7)
    conn.commit()
    assert register(conn, "chats/42") == f"{7:040d}"


def test_the_second_writer_waits_for_the_first_commit_then_the_rule_decides(database: str) -> None:
    first, second = connect(database), connect(database)
    guard.ensure(first)
    guard.check(first, "chats/42", 9)
    outcome: list[BaseException | None] = []

    def late() -> None:
        try:
            guard.check(second, "chats/42", 8)
            outcome.append(None)
        except BaseException as err:
            outcome.append(err)
        second.rollback()

    writer = threading.Thread(target=late)
    writer.start()
    time.sleep(0.2)
    assert not outcome, "the second writer did not wait for the first"
    first.commit()
    writer.join(timeout=30)
    assert isinstance(outcome[0], tinystore.Stale) and outcome[0].largest == 9


@pytest.mark.parametrize("found_rows", [False, True], ids=["affected", "found_rows"])
def test_an_older_snapshot_still_compares_with_the_committed_fence(found_rows: bool, database: str) -> None:
    flags = pymysql.constants.CLIENT.FOUND_ROWS if found_rows else 0
    conn, other = connect(database, client_flag=flags), connect(database)
    guard.ensure(conn)
    with conn.cursor() as cur:  # REPEATABLE READ: this read takes the snapshot
        cur.execute("select count(*) from tinystore_fences")
    guard.check(other, "chats/42", 9)
    other.commit()
    with pytest.raises(tinystore.Stale) as refused:
        guard.check(conn, "chats/42", 7)
    conn.rollback()
    assert refused.value.largest == 9


def test_a_reader_only_user_gets_the_drivers_error(database: str) -> None:
    admin = connect(database, autocommit=True)
    guard.ensure(admin)
    with admin.cursor() as cur:
        cur.execute("create user if not exists 'tinystore_py_reader'@'127.0.0.1'")
        cur.execute(f"grant select on {database}.tinystore_fences to 'tinystore_py_reader'@'127.0.0.1'")
    reader = connect(database, user="tinystore_py_reader")
    with pytest.raises(pymysql.err.OperationalError) as denied:
        guard.check(reader, "chats/42", 7)
    assert denied.value.args[0] == 1142
    assert not guard.is_serialization_failure(denied.value)


def test_a_killed_connection_is_the_drivers_error(database: str) -> None:
    admin = connect(database, autocommit=True)
    guard.ensure(admin)
    doomed = connect(database)
    doomed.begin()
    with admin.cursor() as cur:
        cur.execute(f"kill {doomed.thread_id()}")
    with pytest.raises(pymysql.err.OperationalError):
        guard.check(doomed, "chats/42", 7)


def test_a_row_changed_since_the_snapshot_is_a_serialization_failure(database: str) -> None:
    a, b = connect(database), connect(database)
    guard.ensure(a)
    guard.check(a, "chats/42", 5)
    a.commit()
    with a.cursor() as cur:
        cur.execute("set session innodb_snapshot_isolation = ON")
        cur.execute("select count(*) from tinystore_fences")  # A's snapshot
    guard.check(b, "chats/42", 9)
    b.commit()
    with pytest.raises(pymysql.err.MySQLError) as failed:
        guard.check(a, "chats/42", 7)
    a.rollback()
    assert failed.value.args[0] == 1020
    assert guard.is_serialization_failure(failed.value)
