"""The seed's Python snippet, run as written: two workers summarize one
chat; the first pauses past its TTL, and its late write is refused."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path

import pytest

import tinystore
from chat import Model, make_chat_db, snippet_source, summarize_chat
from conftest import shared_dir

CHAT = 42


def test_snippet_is_the_seeds_as_written() -> None:
    page = (shared_dir() / "seed" / "fences.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert len(blocks) == 1
    assert snippet_source() == blocks[0].rstrip("\n")


def test_one_worker_writes_its_fence(store: tinystore.Store, tmp_path: Path) -> None:
    db = make_chat_db(tmp_path / "chat.db", CHAT)
    asyncio.run(summarize_chat(store.locks("summaries"), CHAT, db, Model("A")))
    summary, fence = db.row(CHAT)
    assert summary == "summary of 3 messages by A"
    assert len(fence) == 40 and tinystore.parse_fence(fence) > 0
    assert db.changes == [1] and db.fences == [fence]


def test_late_holders_write_is_refused(tmp_path: Path) -> None:
    """Worker A pauses (a blocking pause, like a long garbage collection)
    past its lease; B holds the key with a larger fence and writes; A wakes
    and writes too, and the database refuses A's write."""
    db_a = make_chat_db(tmp_path / "chat.db", CHAT)
    db_b = type(db_a)(db_a.path)
    b_wrote = threading.Event()
    a_holds = threading.Event()
    a_error: list[BaseException] = []

    with tinystore.open(tmp_path / "store") as store:
        # No keepalive and a short TTL: in one process, this is how a lease
        # runs out while its holder is paused.
        summaries = store.locks("summaries", ttl=0.1, renew=False)

        async def a_pauses() -> None:
            a_holds.set()
            assert b_wrote.wait(10), "B never wrote"

        def worker_a() -> None:
            try:
                asyncio.run(summarize_chat(summaries, CHAT, db_a, Model("A", a_pauses)))
            except BaseException as err:  # noqa: BLE001 - reported below
                a_error.append(err)

        thread = threading.Thread(target=worker_a)
        thread.start()
        assert a_holds.wait(10)
        # B waits until A's lease has run out, then writes.
        asyncio.run(summarize_chat(summaries, CHAT, db_b, Model("B")))
        b_wrote.set()
        thread.join(10)

    assert not thread.is_alive()
    assert db_b.changes == [1], "B's write went in"
    assert db_a.changes == [0], "A's late write was refused"
    assert len(a_error) == 1 and isinstance(a_error[0], tinystore.LeaseLost)
    fence_a, fence_b = db_a.fences[0], db_b.fences[0]
    assert fence_a < fence_b
    assert db_a.row(CHAT) == ("summary of 3 messages by B", fence_b)
