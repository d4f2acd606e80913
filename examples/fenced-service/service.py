"""The fenced-service example: a small HTTP service on the Python standard
library (wsgiref) whose one handler saves a chat's summary through the SQL
guard on SQLite, so that a worker whose lease ran out while it paused is
answered 409 instead of overwriting a later holder's summary.

    POST /chats/<id>/summary      body: the summary text (UTF-8)
    Tinystore-Fence: <fence>      the caller's lease's fence, a decimal

Answers: 200 ``saved``; 409 Conflict with ``Tinystore-Fence-Largest`` when
a larger fence has written chats/<id> (tinystore.http.WSGIMiddleware turns
the guard's tinystore.Stale into it); 400 for a malformed or missing fence
header; 404 for another path, 405 for another method.

    python service.py --db chat.db [--host 127.0.0.1] [--port 0]

prints ``LISTENING http://HOST:PORT`` once it serves, then serves until
SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import re
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import tinystore
import tinystore.http

PATH = re.compile(r"/chats/([0-9]{1,18})/summary")
SCHEMA = "create table if not exists summaries (chat integer primary key, summary text not null)"


def prepare(db: str) -> None:
    """The service's table and the guard's register, made if missing."""
    conn = sqlite3.connect(db, timeout=10.0)
    try:
        with conn:
            conn.execute(SCHEMA)
            tinystore.guard.ensure(conn)
    finally:
        conn.close()


def save(db: str, chat: int, summary: str, fence: int) -> None:
    """The summary and the guard's check in one transaction: a refusal
    (tinystore.Stale) rolls the summary back with it."""
    conn = sqlite3.connect(db, timeout=10.0)
    try:
        with conn:  # commits, or rolls back on an exception
            conn.execute(
                "insert into summaries (chat, summary) values (?, ?) "
                "on conflict (chat) do update set summary = excluded.summary",
                (chat, summary),
            )
            tinystore.guard.check(conn, f"chats/{chat}", fence)
    finally:
        conn.close()


StartResponse = Callable[..., Any]


def text(start_response: StartResponse, status: str, body: str) -> list[bytes]:
    data = (body + "\n").encode("utf-8")
    start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(data)))])
    return [data]


def app(db: str) -> Callable[[dict[str, Any], StartResponse], Iterable[bytes]]:
    """The WSGI application, behind tinystore's middleware (which reads the
    fence header and answers a Stale raised here with 409)."""

    def handle(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        match = PATH.fullmatch(environ.get("PATH_INFO", ""))
        if match is None:
            return text(start_response, "404 Not Found", "no such resource: POST /chats/<id>/summary")
        if environ["REQUEST_METHOD"] != "POST":
            return text(start_response, "405 Method Not Allowed", "use POST")
        fence: int | None = environ[tinystore.http.ENVIRON_KEY]
        if fence is None:
            return text(start_response, "400 Bad Request", f"the request has no {tinystore.http.FENCE_HEADER} header")
        size = int(environ.get("CONTENT_LENGTH") or 0)
        try:
            summary = environ["wsgi.input"].read(size).decode("utf-8")
        except UnicodeDecodeError:
            return text(start_response, "400 Bad Request", "the summary is not UTF-8 text")
        save(db, int(match.group(1)), summary, fence)
        return text(start_response, "200 OK", "saved")

    return tinystore.http.WSGIMiddleware(handle)


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        print(f"{self.address_string()} {format % args}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, help="the SQLite file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    args = parser.parse_args()
    prepare(args.db)
    server = make_server(args.host, args.port, app(args.db), Server, Quiet)
    stop = lambda *_: threading.Thread(target=server.shutdown).start()  # noqa: E731
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"LISTENING http://{args.host}:{server.server_address[1]}", flush=True)
    server.serve_forever()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
