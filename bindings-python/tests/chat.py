"""The application around the seed's Python snippet: a chat database over
the standard sqlite3 module (`db.exec`), a `model` and `history`; and the
snippet itself, copied as written from shared/seed/fences.md."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import tinystore


class ChatDb:
    """`db.exec(sql, *params)`: one statement in its own transaction. Each
    call's count of changed rows is kept in `changes`, and the fence text
    it tried to write (its second parameter) in `fences`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.changes: list[int] = []
        self.fences: list[str] = []

    async def exec(self, sql: str, *params: object) -> int:
        with sqlite3.connect(self.path, timeout=10) as conn:
            changed = conn.execute(sql, params).rowcount
        self.changes.append(changed)
        self.fences.append(str(params[1]))
        return changed

    def row(self, chat_id: int) -> tuple[str, str]:
        with sqlite3.connect(self.path) as conn:
            found = conn.execute(
                "select summary, summary_fence from chats where id = ?", (chat_id,)
            ).fetchone()
        return (str(found[0]), str(found[1]))


def make_chat_db(path: Path, chat_id: int) -> ChatDb:
    """A chats table with the seed's migration applied, and one chat."""
    with sqlite3.connect(path) as conn:
        conn.execute("create table chats (id integer primary key, summary text not null default '')")
        conn.execute("alter table chats add column summary_fence text not null default ''")
        conn.execute("insert into chats (id) values (?)", (chat_id,))
    return ChatDb(path)


class Model:
    """`model.summarize(history)`: calls `pause` (the worker's long garbage
    collection, if any) and returns a summary naming the worker."""

    def __init__(self, worker: str, pause: Callable[[], Awaitable[None]] | None = None) -> None:
        self.worker = worker
        self.pause = pause

    async def summarize(self, history: list[str]) -> str:
        if self.pause is not None:
            await self.pause()
        return f"summary of {len(history)} messages by {self.worker}"


async def history(chat_id: int) -> list[str]:
    await asyncio.sleep(0)
    return [f"message {i} of chat {chat_id}" for i in range(3)]


async def summarize_chat(
    summaries: tinystore.Locks,
    chat_id: int,
    db: ChatDb,
    model: Model,
    history: Callable[[int], Awaitable[list[str]]] = history,
) -> None:
    """Runs the seed's snippet, with the application's pieces in scope."""
    # seed snippet begin
    async with summaries.hold(chat_id) as lease:
        summary = await model.summarize(await history(chat_id))
        fence = f"{lease.fence:040d}"
        await db.exec(
            "update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?",
            summary, fence, chat_id, fence,
        )
    # seed snippet end


def snippet_source() -> str:
    """The snippet as it stands in this file, dedented."""
    lines = Path(__file__).read_text().splitlines()
    start = lines.index("    # seed snippet begin") + 1
    end = lines.index("    # seed snippet end")
    return "\n".join(line[4:] for line in lines[start:end])
