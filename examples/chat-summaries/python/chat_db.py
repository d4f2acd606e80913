"""chat.db: the migrations, some chats with messages, and the two ways to
save a summary: the fenced conditional update (docs/fences.md), over the
standard library's sqlite3, and the guard (docs/guards.md), on SQLite or
on PostgreSQL through psycopg (:class:`Db`)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import tinystore
import tinystore.guard

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
# The fenced update of docs/fences.md.
SAVE = "update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?"


def open_db(path: str) -> sqlite3.Connection:
    """Opens chat.db (autocommit, a 10 s busy timeout) and applies each
    migration once, in a ``begin immediate`` transaction of its own."""
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    conn.execute("create table if not exists schema_migrations (name text primary key)")
    for file in sorted(MIGRATIONS.glob("*.sql")):
        name = file.stem
        conn.execute("begin immediate")
        try:
            if conn.execute("select count(*) from schema_migrations where name = ?", (name,)).fetchone()[0] == 0:
                for statement in file.read_text().split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("insert into schema_migrations (name) values (?)", (name,))
            conn.execute("commit")
        except BaseException:
            if conn.in_transaction:
                conn.execute("rollback")
            raise
    return conn


def seed(conn: sqlite3.Connection, n: int) -> None:
    """Makes chats 1..=n, each with a few messages, where missing."""
    for chat in range(1, n + 1):
        added = conn.execute("insert or ignore into chats (id, title) values (?, ?)", (chat, f"chat {chat}")).rowcount
        if added == 1:
            for m in range(1, 4):
                conn.execute("insert into messages (chat_id, body) values (?, ?)", (chat, f"message {m} of chat {chat}"))


def history(conn: sqlite3.Connection, chat: int) -> list[str]:
    """The chat's messages, oldest first."""
    return [body for (body,) in conn.execute("select body from messages where chat_id = ? order by id", (chat,))]


def save(conn: sqlite3.Connection, chat: int, summary: str, fence: str) -> int:
    """The fenced update of docs/fences.md: saves only when ``fence`` (40 digits) is
    larger than the fence kept with the summary. Returns the rows changed."""
    return conn.execute(SAVE, (summary, fence, chat, fence)).rowcount


def kept(conn: sqlite3.Connection, chat: int) -> tuple[str, str]:
    """The summary and fence chat.db keeps for a chat."""
    summary, fence = conn.execute("select summary, summary_fence from chats where id = ?", (chat,)).fetchone()
    return str(summary), str(fence)


def is_postgres(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def errors() -> tuple[type[Exception], ...]:
    """The database errors a command may end with: sqlite3's, and psycopg's
    when it is in use."""
    psycopg = sys.modules.get("psycopg")
    return (sqlite3.Error,) if psycopg is None else (sqlite3.Error, psycopg.Error)


class Db:
    """chat.db on SQLite (a path: :func:`open_db`) or on PostgreSQL (a
    ``postgresql://`` URL: the same migrations, through psycopg), in
    autocommit with explicit transactions, and the guard's register."""

    def __init__(self, db: str) -> None:
        self.postgres = is_postgres(db)
        self.conn: Any
        if self.postgres:
            import psycopg

            self.conn = psycopg.connect(db, autocommit=True)
            self.migrate()
        else:
            self.conn = open_db(db)
        tinystore.guard.ensure(self.conn)

    def execute(self, sql: str, params: tuple[object, ...] = ()) -> Any:
        """Runs `sql`, written with ``?`` placeholders, on either database."""
        return self.conn.execute(sql.replace("?", "%s") if self.postgres else sql, params)

    def begin(self) -> None:
        self.execute("begin" if self.postgres else "begin immediate")

    def migrate(self) -> None:
        """Applies each migration once, as :func:`open_db` does on SQLite."""
        self.execute("create table if not exists schema_migrations (name text primary key)")
        for file in sorted(MIGRATIONS.glob("*.sql")):
            self.begin()
            try:
                self.execute("lock table schema_migrations in exclusive mode")
                if self.execute("select count(*) from schema_migrations where name = ?", (file.stem,)).fetchone()[0] == 0:
                    for statement in file.read_text().split(";"):
                        if statement.strip():
                            self.execute(statement)
                    self.execute("insert into schema_migrations (name) values (?)", (file.stem,))
            except BaseException:
                self.execute("rollback")
                raise
            self.execute("commit")

    def add_chat(self, chat: int, title: str) -> None:
        self.execute("insert into chats (id, title) values (?, ?) on conflict do nothing", (chat, title))

    def save(self, chat: int, summary: str, fence: int) -> int:
        """The fenced update; the rows changed."""
        text = f"{fence:040d}"
        return int(self.execute(SAVE, (summary, text, chat, text)).rowcount)

    def save_guarded(self, chat: int, summary: str, fence: int) -> tinystore.Stale | None:
        """The guarded save: the update and the guard's check of resource
        ``chats/<chat>`` in one transaction. None when saved; the guard's
        refusal (the update rolled back) when a larger fence is recorded."""
        self.begin()
        try:
            self.execute("update chats set summary = ? where id = ?", (summary, chat))
            tinystore.guard.check(self.conn, f"chats/{chat}", fence)
        except tinystore.Stale as refused:
            self.execute("rollback")
            return refused
        except BaseException:
            self.execute("rollback")
            raise
        self.execute("commit")
        return None

    def kept(self, chat: int) -> tuple[str, str]:
        """The summary and the fence kept with it for a chat."""
        summary, fence = self.execute("select summary, summary_fence from chats where id = ?", (chat,)).fetchone()
        return str(summary), str(fence)

    def recorded(self, chat: int) -> str | None:
        """The fence tinystore_fences keeps for ``chats/<chat>``."""
        row = self.execute("select fence from tinystore_fences where resource = ?", (f"chats/{chat}",)).fetchone()
        return None if row is None else str(row[0])
