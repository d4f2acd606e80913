"""Worker A of the seed's scene, as its own process: connects to a served
store, runs the seed's snippet, and pauses inside it (the parent stops this
process with SIGSTOP there) until a line arrives on stdin. Prints what
happened as JSON.

Usage: python seed_worker.py ADDRESS CHAT_DB CHAT_ID TTL"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import tinystore
from chat import ChatDb, Model, summarize_chat


async def main(address: str, db_path: str, chat_id: int, ttl: float) -> None:
    db = ChatDb(Path(db_path))

    async def pause() -> None:
        print("holding", flush=True)
        sys.stdin.readline()  # blocks here, holding the lease, until told

    with tinystore.connect(address) as store:
        summaries = store.locks("summaries", ttl=ttl)
        try:
            await summarize_chat(summaries, chat_id, db, Model("A", pause))
            outcome = "ok"
        except tinystore.Error as err:
            outcome = err.code
    print(json.dumps({"outcome": outcome, "changes": db.changes, "fences": db.fences}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])))
