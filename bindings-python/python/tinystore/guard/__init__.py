"""Guards: the fence compared where the write lands.

A guard keeps, per *resource* (a name you choose, such as ``"chats/42"``,
1 to 1024 bytes of UTF-8), the largest fence that has written to it, in the
table ``tinystore_fences(resource, fence)`` of your own database, and
refuses a write whose fence is smaller. Equal is accepted: one lease may
write many times. Call :func:`check` inside the transaction of the write it
guards; it records the fence there, so the write and the record commit
together, and a refusal (:class:`tinystore.Stale`) leaves you to roll both
back:

>>> conn = sqlite3.connect("app.db")                         # doctest: +SKIP
>>> tinystore.guard.ensure(conn)
>>> with conn:                                 # commits, or rolls back on an exception
...     conn.execute("update chats set summary = ? where id = ?", (summary, 42))
...     tinystore.guard.check(conn, "chats/42", lease.fence)

The handles: a :class:`sqlite3.Connection` or :class:`sqlite3.Cursor`, and
psycopg 3's ``Connection`` or ``Cursor`` (:func:`check`, :func:`ensure`) and
``AsyncConnection`` or ``AsyncCursor`` (:func:`check_async`,
:func:`ensure_async`; ``pip install tinystore[postgres]``), and PyMySQL's
``Connection`` or ``Cursor`` for MySQL and MariaDB (``pip install
tinystore[mysql]``; the register is an InnoDB table, and :func:`ensure`'s
``CREATE TABLE`` commits any open transaction, as DDL does there: call it
outside your transactions). A handle of any
other kind is :class:`tinystore.Invalid` naming its type. The statements and
the decisions come from tinystore's core, the same in every language.

Errors: :class:`tinystore.Stale` (refused: ``resource``, ``fence`` and
``largest``); :class:`tinystore.Invalid` for a bad resource, a fence that is
not an int from 0 to 2**128-1, a handle of an unknown kind, a call outside a
transaction, or a missing ``tinystore_fences`` (raised from the driver's own
error; on PostgreSQL the failed statement has aborted the transaction: roll
it back); :class:`tinystore.Corrupt` for a recorded fence that is not 40
digits. Any other error of the driver is raised as the driver raised it,
unchanged: on PostgreSQL at REPEATABLE READ or SERIALIZABLE, a concurrent
writer of the same resource makes the check fail with
``psycopg.errors.SerializationFailure`` (SQLite in WAL mode: ``sqlite3``'s
``SQLITE_BUSY_SNAPSHOT``): roll back and retry the whole transaction (at
READ COMMITTED the check waits for the other writer's commit instead, then
decides). :func:`is_serialization_failure` tells such an error, whatever
the driver.

:mod:`tinystore.guard.s3` is the same rule on S3 and S3-compatible object
storage: one object per fence under the key, read back by the largest
(``pip install tinystore[s3]``).
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from .. import _native
from .._native import Lease
from .._errors import Invalid
from ._driver import failure_of
from ._steps import end
from ._under import told

if TYPE_CHECKING:
    from typing import TypeAlias

    import psycopg

    Handle: TypeAlias = "sqlite3.Connection | sqlite3.Cursor | psycopg.Connection[Any] | psycopg.Cursor[Any]"
    AsyncHandle: TypeAlias = "psycopg.AsyncConnection[Any] | psycopg.AsyncCursor[Any]"

__all__ = ["check", "check_async", "ensure", "ensure_async", "is_serialization_failure", "migration", "s3"]

_Query = Callable[[str, tuple[str, ...]], Any]


def migration(dialect: str) -> str:
    """The statement that makes ``tinystore_fences`` if it is missing, for
    ``"sqlite"`` or ``"postgres"``: put it in your migrations, or call
    :func:`ensure`."""
    if not isinstance(dialect, str):
        raise Invalid(f"a guard dialect must be a str, not {type(dialect).__name__}")
    return _native.guard_migration(dialect)


def is_serialization_failure(err: BaseException) -> bool:
    """Whether ``err``, an error a guarded transaction raised, is the
    driver's serialization failure: a concurrent transaction came first
    (PostgreSQL's SQLSTATE 40001 or 40P01, as
    ``psycopg.errors.SerializationFailure``; SQLite busy or locked, as
    ``sqlite3.OperationalError``). Roll back and run the whole transaction
    again. tinystore's core tells it from what the error reports, as in
    every language; any other error, tinystore's own included, is not
    one."""
    return failure_of(err).kind == "serialization"


def ensure(conn: Handle) -> None:
    """Makes ``tinystore_fences`` if it is missing. On sqlite3 it runs in
    the transaction open on ``conn``, if any (then it commits with it). On
    psycopg it commits at once when no transaction is open, and otherwise
    commits with the open one."""
    sqlite = _sqlite_connection(conn)
    if sqlite is not None:
        sqlite.execute(_SQLITE_MIGRATION)
        return
    my = _pymysql_connection(conn)
    if my is not None:
        with my.cursor() as cur:
            cur.execute(_MYSQL_MIGRATION)
        return
    pg = _psycopg_sync(conn, "ensure")
    with pg.transaction():
        pg.execute(_POSTGRES_MIGRATION)


def check(conn: Handle, resource: str, fence: int | Lease) -> None:
    """Checks ``fence`` against the largest fence recorded for ``resource``
    and records it, in the transaction open on ``conn``. Returns when
    accepted; raises :class:`tinystore.Stale` when a larger fence is
    recorded. Either way commit or roll back the transaction as your write
    went: a refused write must be rolled back. Given the lease itself
    rather than its fence, a refusal is also told to its store, which
    counts the late writes refused per group (never blocking nor failing
    the check)."""
    with told(fence, resource, conn) as value:
        _check(conn, resource, value)


def _check(conn: Handle, resource: str, fence: int) -> None:
    sqlite = _sqlite_connection(conn)
    if sqlite is not None:
        machine = _native.SqlCheck("sqlite", "?", resource, fence, _sqlite_in_transaction(sqlite))
        _drive(machine, sqlite.execute, lambda sql, params: _first_row(_tuple_cursor(sqlite).execute(sql, params)))
        return
    my = _pymysql_connection(conn)
    if my is not None:
        machine = _native.SqlCheck("mysql", "%s", resource, fence, _pymysql_in_transaction(my))
        _drive(machine, lambda sql, params: _pymysql_run(my, sql, params), lambda sql, params: _pymysql_run(my, sql, params).fetchone())
        return
    pg = _psycopg_sync(conn, "check")
    tuples = _psycopg().rows.tuple_row
    machine = _native.SqlCheck("postgres", "%s", resource, fence, _psycopg_in_transaction(pg))
    _drive(machine, pg.execute, lambda sql, params: pg.cursor(row_factory=tuples).execute(sql, params).fetchone())


async def ensure_async(aconn: AsyncHandle) -> None:
    """:func:`ensure` on a psycopg ``AsyncConnection`` or ``AsyncCursor``."""
    pg = _psycopg_async(aconn, "ensure_async")
    async with pg.transaction():
        await pg.execute(_POSTGRES_MIGRATION)


async def check_async(aconn: AsyncHandle, resource: str, fence: int | Lease) -> None:
    """:func:`check` on a psycopg ``AsyncConnection`` or ``AsyncCursor``."""
    with told(fence, resource, aconn) as value:
        await _check_async(aconn, resource, value)


async def _check_async(aconn: AsyncHandle, resource: str, fence: int) -> None:
    pg = _psycopg_async(aconn, "check_async")
    tuples = _psycopg().rows.tuple_row
    machine = _native.SqlCheck("postgres", "%s", resource, fence, _psycopg_in_transaction(pg))

    step = machine.start()
    failed: BaseException | None = None
    while step is not None:
        if step[0] == "done":
            end(step, failed)
        kind, sql, params = cast("tuple[str, str, tuple[str, ...]]", step)
        try:
            if kind == "execute":
                changed = (await pg.execute(sql, params)).rowcount
            else:
                read = await pg.cursor(row_factory=tuples).execute(sql, params)
                recorded = _recorded(await read.fetchone())
        except Exception as err:  # the driver's: core classifies it
            failed = err
            step = machine.failed(failure_of(err))
            continue
        step = machine.changed(changed) if kind == "execute" else machine.row(recorded)


def _drive(machine: _native.SqlCheck, execute: Callable[[str, tuple[str, ...]], Any], query: _Query) -> None:
    """Runs the check's steps: ``execute`` returns a cursor (its rowcount
    is the rows changed), ``query`` the first row or None. A step of None
    is the accepted end."""
    step = machine.start()
    failed: BaseException | None = None
    while step is not None:
        if step[0] == "done":
            end(step, failed)
        kind, sql, params = cast("tuple[str, str, tuple[str, ...]]", step)
        try:
            if kind == "execute":
                changed = execute(sql, params).rowcount
            else:
                recorded = _recorded(query(sql, params))
        except Exception as err:  # the driver's: core classifies it
            failed = err
            step = machine.failed(failure_of(err))
            continue
        step = machine.changed(changed) if kind == "execute" else machine.row(recorded)


_SQLITE_MIGRATION = _native.guard_migration("sqlite")
_POSTGRES_MIGRATION = _native.guard_migration("postgres")
_MYSQL_MIGRATION = _native.guard_migration("mysql")


def _pymysql_connection(handle: object) -> Any:
    """The PyMySQL connection of a handle (a connection, or a cursor's), or
    None when it is not PyMySQL's."""
    pymysql: Any = sys.modules.get("pymysql")
    if pymysql is None:
        return None
    if isinstance(handle, pymysql.connections.Connection):
        return handle
    if isinstance(handle, pymysql.cursors.Cursor):
        return handle.connection
    return None


def _pymysql_run(conn: Any, sql: str, params: tuple[str, ...]) -> Any:
    """Runs ``sql`` on a cursor that gives tuples, whatever the connection's
    cursor class; the cursor (its rowcount, its rows)."""
    cur = conn.cursor(sys.modules["pymysql"].cursors.Cursor)
    cur.execute(sql, params)
    return cur


def _pymysql_in_transaction(conn: Any) -> bool:
    """Whether the check runs in a transaction: one is open (the server's
    status says so), or the connection is not in autocommit, where the
    server opens one at the first statement (PyMySQL's default)."""
    in_trans = sys.modules["pymysql"].constants.SERVER_STATUS.SERVER_STATUS_IN_TRANS
    return bool(conn.server_status & in_trans) or not conn.get_autocommit()


def _tuple_cursor(conn: sqlite3.Connection) -> sqlite3.Cursor:
    cur = conn.cursor()
    cur.row_factory = None  # tuples, whatever the connection's factory
    return cur


def _first_row(cur: sqlite3.Cursor) -> Any:
    """The first row of ``cur``, which is then closed: an open SELECT would
    keep its read lock on the database for as long as the cursor lives (a
    refusal's traceback keeps it)."""
    try:
        return cur.fetchone()
    finally:
        cur.close()


def _sqlite_connection(handle: object) -> sqlite3.Connection | None:
    if isinstance(handle, sqlite3.Connection):
        return handle
    if isinstance(handle, sqlite3.Cursor):
        return handle.connection
    return None


def _sqlite_in_transaction(conn: sqlite3.Connection) -> bool:
    """Whether the check's INSERT runs in a transaction: one is open, or
    the module opens one before an INSERT (its default, legacy mode with an
    isolation level; Python 3.12's ``autocommit=False`` always has one
    open)."""
    if conn.in_transaction:
        return True
    legacy = getattr(sqlite3, "LEGACY_TRANSACTION_CONTROL", -1)
    return getattr(conn, "autocommit", legacy) == legacy and conn.isolation_level is not None


def _psycopg() -> ModuleType:
    # Imported by whoever made the handle; never imported here.
    return sys.modules["psycopg"]


def _psycopg_sync(handle: object, call: str) -> psycopg.Connection[Any]:
    return cast("psycopg.Connection[Any]", _psycopg_connection(handle, call, asynchronous=False))


def _psycopg_async(handle: object, call: str) -> psycopg.AsyncConnection[Any]:
    return cast("psycopg.AsyncConnection[Any]", _psycopg_connection(handle, call, asynchronous=True))


def _psycopg_connection(handle: object, call: str, asynchronous: bool) -> Any:
    """The psycopg connection of a handle (a connection, or a cursor's) of
    the kind `call` takes; else `Invalid`, saying which call takes it when
    another does."""
    pg = sys.modules.get("psycopg")
    kinds: list[tuple[type, type]] = [] if pg is None else [(pg.Cursor, pg.Connection), (pg.AsyncCursor, pg.AsyncConnection)]
    for is_async, (cursor, connection) in enumerate(kinds):
        if isinstance(handle, (cursor, connection)):
            if bool(is_async) == asynchronous:
                return cast(Any, handle).connection if isinstance(handle, cursor) else handle
            break
    else:
        if _sqlite_connection(handle) is None:
            raise _unknown(handle, call)
    other = call.removesuffix("_async") if asynchronous else f"{call}_async"
    raise Invalid(f"tinystore.guard.{call} does not take a {type(handle).__name__}: use tinystore.guard.{other}")


def _unknown(handle: object, call: str) -> Invalid:
    kind = f"{type(handle).__module__}.{type(handle).__qualname__}"
    return Invalid(
        f"tinystore.guard.{call} does not know a handle of type {kind}: give a sqlite3 Connection or Cursor, "
        "a psycopg 3 Connection or Cursor (AsyncConnection or AsyncCursor to the _async calls), "
        "or a PyMySQL Connection or Cursor"
    )


def _psycopg_in_transaction(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> bool:
    """Whether the check runs in a transaction: one is open, or psycopg
    opens one before it (a connection not in autocommit)."""
    if not conn.autocommit:
        return True
    return bool(conn.info.transaction_status != _psycopg().pq.TransactionStatus.IDLE)


def _recorded(row: Any) -> str | None:
    if row is None:
        return None
    value = row[0]
    return value.decode() if isinstance(value, bytes) else str(value)


from . import s3  # noqa: E402  (imports no boto3: it works on the client you pass)
