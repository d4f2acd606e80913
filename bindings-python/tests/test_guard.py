"""tinystore.guard on real databases: every guard case of
vectors/behaviour.json on a SQLite file, on PostgreSQL through psycopg's
sync connection and through its async one; a refusal rolling back the
caller's own write; calls outside a transaction; handles, resources and
fences of the wrong kind; and two writers of one resource on PostgreSQL at
READ COMMITTED (the second waits for the first's commit, then the rule
decides) and at SERIALIZABLE (the second fails with SerializationFailure;
retrying the whole transaction then decides by the rule).

PostgreSQL is the server at $TINYSTORE_PG_URL (make test-python starts one
with tests/guards/with-postgres.sh); without it these tests skip, unless
TINYSTORE_REQUIRE_PG=1, when they fail."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import psycopg.errors
import psycopg.rows
import pytest

import tinystore
from tinystore import guard

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Case:
    """One case of the vectors' "guard" section."""

    id: str
    table: bool
    recorded: str | None
    resource: str
    fence: int
    expect: str
    recorded_after: str | None
    largest: int | None
    message_has: str | None


def load_cases() -> list[Case]:
    with open(REPO / "vectors" / "behaviour.json", encoding="utf-8") as f:
        raw = json.load(f)["guard"]["cases"]
    assert len(raw) >= 10, "the guard vectors have lost cases"
    cases = []
    for v in raw:
        resource = v.get("resource", "chats/42")
        if isinstance(resource, dict):
            resource = resource["repeat"] * resource["times"]
        cases.append(
            Case(
                id=v["id"],
                table=v.get("table", True),
                recorded=v.get("recorded"),
                resource=resource,
                fence=tinystore.parse_fence(v["fence"]),
                expect=v["expect"],
                recorded_after=v.get("recorded_after"),
                largest=tinystore.parse_fence(v["largest"]) if "largest" in v else None,
                message_has=v.get("message_has"),
            )
        )
    return cases


CASES = load_cases()


def judge(case: Case, outcome: tinystore.Error | None, notes: int, register: str | None) -> None:
    """The case's expectations on the check's outcome (None: it returned),
    the rows of notes after, and the register's row for the resource."""
    if case.expect == "accepted":
        assert outcome is None, f"{case.id}: refused: {outcome!r}"
        assert notes == 1, f"{case.id}: the accepted write's own row is missing"
        assert register == case.recorded_after, case.id
        return
    assert outcome is not None, f"{case.id}: accepted, expected {case.expect}"
    assert outcome.code == case.expect, f"{case.id}: {outcome!r}"
    assert type(outcome).code == case.expect
    if case.message_has is not None:
        assert case.message_has in str(outcome), f"{case.id}: {outcome}"
    if case.largest is not None:
        assert isinstance(outcome, tinystore.Stale)
        assert (outcome.resource, outcome.fence, outcome.largest) == (case.resource, case.fence, case.largest)
    assert notes == 0, f"{case.id}: a refused write left its own row"
    if case.table:
        assert register == case.recorded, f"{case.id}: a refused write changed the register"


# --- SQLite ---------------------------------------------------------------


def write_case(conn: Any, case: Case, insert: str) -> tinystore.Error | None:
    """In one transaction on a sqlite3 or psycopg connection: the notes row
    (`insert`) and the case's check; committed when the check returns,
    rolled back when it raises, whose error this returns."""
    conn.execute(insert, (case.resource, str(case.fence)))
    try:
        guard.check(conn, case.resource, case.fence)
    except tinystore.Error as err:
        conn.rollback()
        return err
    conn.commit()
    return None


def sqlite_register(conn: sqlite3.Connection, resource: str) -> str | None:
    row = conn.execute("select fence from tinystore_fences where resource = ?", (resource,)).fetchone()
    return None if row is None else str(row[0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_guard_vector_on_sqlite(case: Case, tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "app.db")  # the module's default: it begins before an INSERT
    conn.execute("create table notes (resource text, fence text)")
    if case.table:
        guard.ensure(conn)
        guard.ensure(conn)  # safe to run again
    if case.recorded is not None:
        conn.execute("insert into tinystore_fences values ('chats/42', ?)", (case.recorded,))
    conn.commit()
    outcome = write_case(conn, case, "insert into notes values (?, ?)")
    notes = conn.execute("select count(*) from notes").fetchone()[0]
    judge(case, outcome, notes, sqlite_register(conn, case.resource) if case.table else None)


def test_sqlite_refusal_rolls_back_the_callers_write(tmp_path: Path) -> None:
    """The seed's scene on the guard: B (fence 8) saves; A (fence 7) saves
    late, in one transaction with its update, and is refused: its update
    is rolled back with the check."""
    conn = sqlite3.connect(tmp_path / "app.db")
    conn.execute("create table chats (id integer primary key, summary text)")
    conn.execute("insert into chats values (42, '')")
    guard.ensure(conn)
    conn.commit()

    def save(summary: str, fence: int) -> None:
        with conn:  # commits, or rolls back on the exception
            conn.execute("update chats set summary = ? where id = 42", (summary,))
            guard.check(conn, "chats/42", fence)

    save("by B", 8)
    save("by B again", 8)  # one lease writes twice
    with pytest.raises(tinystore.Stale) as refused:
        save("by A", 7)
    assert (refused.value.resource, refused.value.fence, refused.value.largest) == ("chats/42", 7, 8)
    assert isinstance(refused.value, tinystore.Error) and refused.value.code == "stale"
    assert "chats/42" in str(refused.value)
    assert conn.execute("select summary from chats").fetchone()[0] == "by B again"
    assert sqlite_register(conn, "chats/42") == f"{8:040d}"


def test_sqlite_outside_a_transaction_is_invalid(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "app.db", isolation_level=None)  # autocommit
    guard.ensure(conn)
    with pytest.raises(tinystore.Invalid, match="transaction"):
        guard.check(conn, "chats/42", 7)
    assert sqlite_register(conn, "chats/42") is None
    conn.execute("begin immediate")  # an explicit transaction is fine
    guard.check(conn, "chats/42", 7)
    conn.execute("commit")
    assert sqlite_register(conn, "chats/42") == f"{7:040d}"


def test_sqlite_cursor_and_row_factory(tmp_path: Path) -> None:
    """A cursor is a handle too; the connection's row factory does not
    change what the guard reads back."""
    conn = sqlite3.connect(tmp_path / "app.db")
    conn.row_factory = lambda cur, row: {"what": row}
    through_a_cursor(conn, conn.cursor())


def through_a_cursor(conn: Any, cur: Any) -> None:
    """On a sqlite3 or psycopg cursor of `conn`: ensure, fence 9 accepted
    and committed, then 7 refused, naming 9."""
    guard.ensure(cur)
    guard.check(cur, "chats/42", 9)
    conn.commit()
    with pytest.raises(tinystore.Stale) as refused:
        guard.check(cur, "chats/42", 7)
    conn.rollback()
    assert refused.value.largest == 9


def test_sqlite_missing_table_says_how_to_make_it(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "app.db")
    with pytest.raises(tinystore.Invalid, match="tinystore_fences") as caught:
        guard.check(conn, "chats/42", 7)
    assert "ensure" in str(caught.value)
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)


def test_sqlite_busy_is_the_drivers_own_error_and_a_serialization_failure(tmp_path: Path) -> None:
    """Another connection holds the write lock: the check fails with
    sqlite3's own OperationalError (SQLITE_BUSY), raised unchanged, which
    is_serialization_failure tells."""
    holder = sqlite3.connect(tmp_path / "app.db", isolation_level=None)
    guard.ensure(holder)
    holder.execute("begin immediate")
    conn = sqlite3.connect(tmp_path / "app.db", timeout=0)
    with pytest.raises(sqlite3.OperationalError) as caught:
        with conn:
            guard.check(conn, "chats/42", 7)
    assert not isinstance(caught.value, tinystore.Error)
    assert caught.value.sqlite_errorname == "SQLITE_BUSY"
    assert guard.is_serialization_failure(caught.value)
    holder.execute("rollback")


def test_sqlite_snapshot_too_old_is_a_serialization_failure(tmp_path: Path) -> None:
    """WAL mode: a transaction that read before another committed cannot
    write (SQLITE_BUSY_SNAPSHOT); its retry is decided by the rule."""
    path = tmp_path / "app.db"
    setup = sqlite3.connect(path, isolation_level=None)
    setup.execute("pragma journal_mode=wal")
    guard.ensure(setup)
    a = sqlite3.connect(path, isolation_level=None)
    a.execute("begin")
    a.execute("select * from tinystore_fences").fetchall()
    with setup:
        setup.execute("begin")
        guard.check(setup, "chats/42", 9)
    with pytest.raises(sqlite3.OperationalError) as caught:
        guard.check(a, "chats/42", 7)
    a.execute("rollback")
    assert caught.value.sqlite_errorname == "SQLITE_BUSY_SNAPSHOT"
    assert guard.is_serialization_failure(caught.value)
    a.execute("begin")
    with pytest.raises(tinystore.Stale):
        guard.check(a, "chats/42", 7)
    a.execute("rollback")


def test_a_read_only_database_is_the_drivers_own_error(tmp_path: Path) -> None:
    with closing(sqlite3.connect(tmp_path / "app.db")) as conn:
        guard.ensure(conn)
        conn.commit()
    reader = sqlite3.connect(f"file:{tmp_path / 'app.db'}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly") as caught:
        with reader:
            guard.check(reader, "chats/42", 7)
    assert not guard.is_serialization_failure(caught.value)


def test_is_serialization_failure_is_false_for_other_errors() -> None:
    for err in (
        tinystore.Stale("refused", "chats/42", 7, 9),
        tinystore.Invalid("bad"),
        ValueError("database is locked"),
        sqlite3.OperationalError("no such table: tinystore_fences"),
        psycopg.errors.UniqueViolation("duplicate"),
    ):
        assert not guard.is_serialization_failure(err), repr(err)
    assert guard.is_serialization_failure(psycopg.errors.SerializationFailure("could not serialize"))
    assert guard.is_serialization_failure(psycopg.errors.DeadlockDetected("deadlock"))


# --- Arguments and handles ------------------------------------------------


@pytest.mark.parametrize("fence", [-1, 1 << 128, "7", 7.0, True, None], ids=repr)
def test_a_fence_that_is_not_a_fence_is_invalid(fence: Any, tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "app.db")
    guard.ensure(conn)
    with pytest.raises(tinystore.Invalid, match="fence"):
        guard.check(conn, "chats/42", fence)
    conn.rollback()
    assert sqlite_register(conn, "chats/42") is None


@pytest.mark.parametrize(
    ("resource", "says"),
    [(b"chats/42", "must be a str, not bytes"), (42, "must be a str, not int"), ("a\0b", "NUL"), ("\ud800", "surrogate")],
    ids=repr,
)
def test_a_bad_resource_is_invalid(resource: Any, says: str, tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "app.db")
    guard.ensure(conn)
    with pytest.raises(tinystore.Invalid, match=says):
        guard.check(conn, resource, 7)


@pytest.mark.parametrize("handle", [object(), "app.db", None], ids=repr)
def test_a_handle_of_an_unknown_kind_is_invalid_naming_its_type(handle: Any) -> None:
    kind = f"{type(handle).__module__}.{type(handle).__qualname__}"
    with pytest.raises(tinystore.Invalid, match=kind):
        guard.check(handle, "chats/42", 7)
    with pytest.raises(tinystore.Invalid, match=kind):
        guard.ensure(handle)
    with pytest.raises(tinystore.Invalid, match=kind):
        asyncio.run(guard.check_async(handle, "chats/42", 7))


def test_a_sync_handle_to_the_async_call_says_which_to_use(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "app.db")
    with pytest.raises(tinystore.Invalid, match=r"use tinystore\.guard\.check$"):
        asyncio.run(guard.check_async(conn, "chats/42", 7))  # type: ignore[arg-type]


def test_migration_per_dialect() -> None:
    assert guard.migration("sqlite").startswith("CREATE TABLE IF NOT EXISTS tinystore_fences")
    assert 'COLLATE "C"' in guard.migration("postgres")
    assert "VARBINARY(1024)" in guard.migration("mysql")
    with pytest.raises(tinystore.Invalid, match="oracle"):
        guard.migration("oracle")
    with pytest.raises(tinystore.Invalid, match="not int"):
        guard.migration(1)  # type: ignore[arg-type]


def test_stale_is_an_error_with_its_fences_and_pickles() -> None:
    err = tinystore.Stale("refused", "chats/42", 7, 1 << 100)
    assert isinstance(err, tinystore.Error) and err.code == tinystore.Stale.code == "stale"
    back = pickle.loads(pickle.dumps(err))
    assert (str(back), back.resource, back.fence, back.largest) == ("refused", "chats/42", 7, 1 << 100)


# --- PostgreSQL -----------------------------------------------------------


@dataclass
class Postgres:
    """A schema of its own on the test server; `url` reaches it."""

    url: str
    schema: str

    def connect(self, **kwargs: Any) -> psycopg.Connection[Any]:
        return psycopg.connect(self.url, options=f"-c search_path={self.schema}", **kwargs)

    async def connect_async(self, **kwargs: Any) -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(self.url, options=f"-c search_path={self.schema}", **kwargs)

    def register(self, resource: str) -> str | None:
        with self.connect() as conn:
            row = conn.execute("select fence from tinystore_fences where resource = %s", (resource,)).fetchone()
        return None if row is None else str(row[0])

    def notes(self) -> int:
        with self.connect() as conn:
            row = conn.execute("select count(*) from notes").fetchone()
        assert row is not None
        return int(row[0])

    def prepare(self, case: Case) -> None:
        """An empty schema with notes, the register (unless the case has
        none) and the case's recorded row."""
        with self.connect(autocommit=True) as conn:
            conn.execute(f"drop schema if exists {self.schema} cascade")
            conn.execute(f"create schema {self.schema}")
            conn.execute("create table notes (resource text, fence text)")
            if case.table:
                guard.ensure(conn)
                guard.ensure(conn)
            if case.recorded is not None:
                conn.execute("insert into tinystore_fences values ('chats/42', %s)", (case.recorded,))


@pytest.fixture
def pg() -> Iterator[Postgres]:
    url = os.environ.get("TINYSTORE_PG_URL")
    if not url:
        if os.environ.get("TINYSTORE_REQUIRE_PG") == "1":
            pytest.fail("TINYSTORE_PG_URL is unset, and TINYSTORE_REQUIRE_PG=1 forbids skipping PostgreSQL")
        pytest.skip("no PostgreSQL: run under tests/guards/with-postgres.sh")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"create schema {schema}")
    try:
        yield Postgres(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"drop schema if exists {schema} cascade")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_guard_vector_on_postgres(case: Case, pg: Postgres) -> None:
    pg.prepare(case)
    with pg.connect() as conn:  # not autocommit: psycopg begins before the first statement
        outcome = write_case(conn, case, "insert into notes values (%s, %s)")
    judge(case, outcome, pg.notes(), pg.register(case.resource) if case.table else None)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_guard_vector_on_postgres_async(case: Case, pg: Postgres) -> None:
    pg.prepare(case)

    async def run() -> tinystore.Error | None:
        async with await pg.connect_async(autocommit=True) as aconn:
            try:
                async with aconn.transaction():  # rolls back on the exception
                    await aconn.execute("insert into notes values (%s, %s)", (case.resource, str(case.fence)))
                    await guard.check_async(aconn, case.resource, case.fence)
            except tinystore.Error as err:
                return err
        return None

    outcome = asyncio.run(run())
    judge(case, outcome, pg.notes(), pg.register(case.resource) if case.table else None)


def test_postgres_outside_a_transaction_is_invalid(pg: Postgres) -> None:
    with pg.connect(autocommit=True) as conn:
        guard.ensure(conn)
        with pytest.raises(tinystore.Invalid, match="transaction"):
            guard.check(conn, "chats/42", 7)
        with conn.transaction():
            guard.check(conn, "chats/42", 7)
    assert pg.register("chats/42") == f"{7:040d}"

    async def run() -> None:
        async with await pg.connect_async(autocommit=True) as aconn:
            with pytest.raises(tinystore.Invalid, match="transaction"):
                await guard.check_async(aconn, "chats/43", 7)

    asyncio.run(run())
    assert pg.register("chats/43") is None


def test_postgres_cursors_row_factories_and_wrong_calls(pg: Postgres) -> None:
    with pg.connect(row_factory=psycopg.rows.dict_row) as conn:
        with conn.cursor() as cur:
            through_a_cursor(conn, cur)

    async def run() -> None:
        async with await pg.connect_async(row_factory=psycopg.rows.dict_row) as aconn:
            async with aconn.cursor() as acur:
                await guard.ensure_async(acur)
                with pytest.raises(tinystore.Stale):
                    await guard.check_async(acur, "chats/42", 8)
                await aconn.rollback()
                await guard.check_async(acur, "chats/42", 10)
                await aconn.commit()
            with pytest.raises(tinystore.Invalid, match=r"use tinystore\.guard\.check_async$"):
                guard.check(aconn, "chats/42", 11)  # type: ignore[arg-type]

    asyncio.run(run())
    assert pg.register("chats/42") == f"{10:040d}"


def test_postgres_missing_table_aborts_the_transaction(pg: Postgres) -> None:
    with pg.connect() as conn:
        with pytest.raises(tinystore.Invalid, match="tinystore_fences") as caught:
            guard.check(conn, "chats/42", 7)
        assert isinstance(caught.value.__cause__, psycopg.errors.UndefinedTable)
        with pytest.raises(psycopg.errors.InFailedSqlTransaction):
            conn.execute("select 1")
        conn.rollback()
        guard.ensure(conn)
        guard.check(conn, "chats/42", 7)
        conn.commit()
    assert pg.register("chats/42") == f"{7:040d}"


def test_postgres_refusal_rolls_back_the_callers_write(pg: Postgres) -> None:
    with pg.connect() as conn:
        conn.execute("create table chats (id int primary key, summary text)")
        conn.execute("insert into chats values (42, '')")
        guard.ensure(conn)
        conn.commit()

        def save(summary: str, fence: int) -> None:
            with conn.transaction():
                conn.execute("update chats set summary = %s where id = 42", (summary,))
                guard.check(conn, "chats/42", fence)

        save("by B", 8)
        with pytest.raises(tinystore.Stale) as refused:
            save("by A", 7)
        conn.commit()
        row = conn.execute("select summary from chats").fetchone()
    assert row is not None and row[0] == "by B"
    assert (refused.value.fence, refused.value.largest) == (7, 8)


def wait_until_blocked(pg: Postgres, pid: int) -> None:
    """Returns once backend `pid` waits for a lock (order, not time: the
    deadline only keeps a broken test from hanging)."""
    deadline = time.monotonic() + 30
    with pg.connect(autocommit=True) as admin:
        while time.monotonic() < deadline:
            row = admin.execute("select count(*) from pg_locks where pid = %s and not granted", (pid,)).fetchone()
            if row is not None and row[0] > 0:
                return
            time.sleep(0.005)
    raise AssertionError(f"backend {pid} never waited for the first writer's lock")


def second_writer_after_first(
    pg: Postgres, isolation: psycopg.IsolationLevel, first: int, second: int
) -> BaseException | None:
    """Two writers of chats/42 (register at 5): the first checks `first`
    and has not committed when the second checks `second` and blocks; the
    first commits, and this returns how the second's check ended."""
    with pg.connect(autocommit=True) as setup:
        guard.ensure(setup)
        setup.execute("insert into tinystore_fences values ('chats/42', %s)", (f"{5:040d}",))
    one, two = pg.connect(), pg.connect()
    one.isolation_level = two.isolation_level = isolation
    two.execute("select 1")  # the second's transaction (and snapshot) begins first
    guard.check(one, "chats/42", first)
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            guard.check(two, "chats/42", second)
        except BaseException as err:  # noqa: BLE001 - handed to the test
            outcome.append(err)
            two.rollback()
        else:
            outcome.append(None)
            two.commit()

    thread = threading.Thread(target=write)
    thread.start()
    wait_until_blocked(pg, two.info.backend_pid)
    assert not outcome, "the second writer's check returned before the first committed"
    one.commit()
    thread.join()
    one.close()
    two.close()
    return outcome[0]


def test_read_committed_the_second_writer_waits_then_the_rule_decides(pg: Postgres) -> None:
    rc = psycopg.IsolationLevel.READ_COMMITTED
    late = second_writer_after_first(pg, rc, first=8, second=7)
    assert isinstance(late, tinystore.Stale) and (late.fence, late.largest) == (7, 8)
    assert pg.register("chats/42") == f"{8:040d}"
    with pg.connect(autocommit=True) as conn:
        conn.execute("drop table tinystore_fences")
    assert second_writer_after_first(pg, rc, first=8, second=9) is None
    assert pg.register("chats/42") == f"{9:040d}"


def test_serializable_the_second_writer_fails_and_its_retry_decides(pg: Postgres) -> None:
    serializable = psycopg.IsolationLevel.SERIALIZABLE
    for second, want in ((9, None), (7, 8)):
        with pg.connect(autocommit=True) as conn:
            conn.execute("drop table if exists tinystore_fences")
        failed = second_writer_after_first(pg, serializable, first=8, second=second)
        assert isinstance(failed, psycopg.errors.SerializationFailure), repr(failed)
        assert guard.is_serialization_failure(failed)
        assert pg.register("chats/42") == f"{8:040d}"

        # The caller's retry: the whole transaction again.
        def attempt(conn: psycopg.Connection[Any]) -> None:
            guard.check(conn, "chats/42", second)

        outcome = retry_serializable(pg, attempt)
        if want is None:
            assert outcome is None
            assert pg.register("chats/42") == f"{second:040d}"
        else:
            assert isinstance(outcome, tinystore.Stale) and outcome.largest == want
            assert pg.register("chats/42") == f"{8:040d}"


def retry_serializable(pg: Postgres, body: Callable[[psycopg.Connection[Any]], None]) -> tinystore.Error | None:
    """Runs `body` in a SERIALIZABLE transaction, again from the start after
    a serialization failure; returns the tinystore error that ended it."""
    with pg.connect() as conn:
        conn.isolation_level = psycopg.IsolationLevel.SERIALIZABLE
        for _ in range(5):
            try:
                with conn.transaction():
                    body(conn)
                return None
            except psycopg.errors.SerializationFailure:
                continue
            except tinystore.Error as err:
                return err
    raise AssertionError("five serialization failures in a row")
