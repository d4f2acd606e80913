"""One worker of the page's scene, through the installed wheel:
``worker.py WORK NAME TTL`` holds key 42 of ``summaries`` in the store that
``tinystore serve WORK/data`` serves (renew off), writes its fence to
WORK/NAME.fence, waits for WORK/NAME.go, saves with the fenced update into
WORK/chat.db and writes the rows changed to WORK/NAME.rows.
``worker.py WORK check`` prints chat 42's summary and fence."""

import os
import sqlite3
import sys
import time

import tinystore


def db(work: str) -> sqlite3.Connection:
    conn = sqlite3.connect(os.path.join(work, "chat.db"), isolation_level=None, timeout=10)
    conn.execute("create table if not exists chats (id integer primary key, summary text, summary_fence text not null default '')")
    conn.execute("insert or ignore into chats (id) values (42)")
    return conn


def write(path: str, text: str) -> None:
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def main() -> None:
    work, name = sys.argv[1], sys.argv[2]
    conn = db(work)
    if name == "check":
        summary, fence = conn.execute("select summary, summary_fence from chats where id = 42").fetchone()
        print(summary, fence)
        return
    ttl = float(sys.argv[3])
    with tinystore.open(os.path.join(work, "data")) as store:
        summaries = store.locks("summaries", ttl=ttl, renew=False)
        lease = summaries.acquire_sync(42)
        fence = f"{lease.fence:040d}"
        write(os.path.join(work, name + ".fence"), fence)
        while not os.path.exists(os.path.join(work, name + ".go")):
            time.sleep(0.05)
        done = conn.execute(
            "update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?",
            (f"summary by {name}", fence, 42, fence),
        )
        write(os.path.join(work, name + ".rows"), str(done.rowcount))
        try:
            lease.release_sync()
        except tinystore.LeaseLost:
            pass  # A's lease ran out while it was stopped


main()
