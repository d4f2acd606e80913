"""chat.db: the migrations, some chats with messages, and the fenced
conditional update, over the standard library's sqlite3."""

from __future__ import annotations

import sqlite3
from pathlib import Path

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


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
    return conn.execute(
        "update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?",
        (summary, fence, chat, fence),
    ).rowcount


def kept(conn: sqlite3.Connection, chat: int) -> tuple[str, str]:
    """The summary and fence chat.db keeps for a chat."""
    summary, fence = conn.execute("select summary, summary_fence from chats where id = ?", (chat,)).fetchone()
    return str(summary), str(fence)
