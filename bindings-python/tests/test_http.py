"""tinystore.http over real HTTP on loopback: every fence_header case of
vectors/behaviour.json sent by http.client to a WSGI application behind
WSGIMiddleware (wsgiref's server, in a thread) and to an ASGI application
behind ASGIMiddleware (uvicorn, in a thread); a handler whose SQL guard
refuses the write answered 409 with Tinystore-Fence-Largest, and its write
rolled back; the client helpers (headers() with urllib, FenceAuth with
requests and httpx) attaching the fence a server then reads."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import sqlite3
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import httpx
import pytest
import requests
import uvicorn

import tinystore
import tinystore.http as th

REPO = Path(__file__).resolve().parents[2]
RESOURCE = "chats/1"


def write(db: Path, fence: int | None, text: str) -> None:
    """The handler's write: an update and the guard's check in one
    transaction; Stale rolls both back."""
    if fence is None:
        raise ValueError("no fence")
    conn = sqlite3.connect(db, timeout=10.0)
    try:
        with conn:
            conn.execute("update chats set summary = ? where id = 1", (text,))
            tinystore.guard.check(conn, RESOURCE, fence)
    finally:
        conn.close()


def answer(db: Path, path: str, fence: int | None, body: bytes) -> bytes:
    if path == "/write":
        write(db, fence, body.decode())
        return b"saved"
    return b"none" if fence is None else str(fence).encode()


def wsgi_app(db: Path) -> th.WSGIMiddleware:
    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        size = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(size)
        out = answer(db, environ["PATH_INFO"], environ[th.ENVIRON_KEY], body)
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(out)))])
        return [out]

    return th.WSGIMiddleware(app)


def asgi_app(db: Path) -> th.ASGIMiddleware:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        out = await asyncio.to_thread(answer, db, scope["path"], scope[th.ENVIRON_KEY], body)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": out})

    return th.ASGIMiddleware(app)


class Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Service:
    url: str
    host: str
    port: int
    db: Path


def make_db(tmp_path: Path) -> Path:
    db = tmp_path / "chat.db"
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("create table chats (id integer primary key, summary text)")
        conn.execute("insert into chats values (1, 'first')")
        tinystore.guard.ensure(conn)
    conn.close()
    return db


@pytest.fixture(params=["wsgi", "asgi"])
def service(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Service]:
    db = make_db(tmp_path)
    if request.param == "wsgi":
        server = make_server("127.0.0.1", 0, wsgi_app(db), WSGIServer, Quiet)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        port = server.server_address[1]
        try:
            yield Service(f"http://127.0.0.1:{port}", "127.0.0.1", port, db)
        finally:
            server.shutdown()
            server.server_close()
        return
    config = uvicorn.Config(asgi_app(db), host="127.0.0.1", port=0, log_level="error", lifespan="off")
    userver = uvicorn.Server(config)
    thread = threading.Thread(target=userver.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not userver.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    port = userver.servers[0].sockets[0].getsockname()[1]
    try:
        yield Service(f"http://127.0.0.1:{port}", "127.0.0.1", port, db)
    finally:
        userver.should_exit = True
        thread.join(10)


def send(service: Service, path: str, fence_values: list[str], body: bytes = b"") -> tuple[int, dict[str, str], str]:
    """A POST with each of `fence_values` as a Tinystore-Fence header line,
    as sent (no helper in between)."""
    conn = http.client.HTTPConnection(service.host, service.port, timeout=10)
    try:
        conn.putrequest("POST", path)
        for value in fence_values:
            conn.putheader("Tinystore-Fence", value)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        got = conn.getresponse()
        return got.status, {k.lower(): v for k, v in got.getheaders()}, got.read().decode()
    finally:
        conn.close()


def vector_cases() -> list[dict[str, Any]]:
    with open(REPO / "vectors" / "behaviour.json", encoding="utf-8") as f:
        cases: list[dict[str, Any]] = json.load(f)["fence_header"]["cases"]
    assert len(cases) >= 10, "the fence_header vectors have lost cases"
    return cases


@pytest.mark.parametrize("case", vector_cases(), ids=lambda c: c["id"])
def test_fence_header_vectors(case: dict[str, Any], service: Service) -> None:
    status, _, body = send(service, "/echo", [] if case["value"] is None else [case["value"]])
    if case["expect"] == "none":
        assert (status, body) == (200, "none")
    elif case["expect"] == "fence":
        assert (status, body) == (200, str(tinystore.parse_fence(case["fence"])))
    else:
        assert status == 400, body
        assert case["message_has"] in body
        assert body.startswith("header Tinystore-Fence: "), body


def test_a_header_sent_twice_is_400(service: Service) -> None:
    status, _, body = send(service, "/echo", ["42", "42"])
    assert status == 400 and "Tinystore-Fence" in body, body


def test_a_refused_write_is_409_with_the_largest_fence_and_rolled_back(service: Service) -> None:
    assert send(service, "/write", ["8"], b"by B")[::2] == (200, "saved")
    status, headers, body = send(service, "/write", ["7"], b"by A")
    assert status == 409, body
    assert headers["tinystore-fence-largest"] == "8"
    assert "chats/1" in body
    conn = sqlite3.connect(service.db)
    assert conn.execute("select summary from chats where id = 1").fetchone() == ("by B",)
    conn.close()
    assert send(service, "/write", ["8"], b"by B again")[::2] == (200, "saved")  # equal is accepted


def test_the_client_helpers_attach_the_fence(service: Service) -> None:
    fence = 2**100 + 3
    req = urllib.request.Request(f"{service.url}/echo", b"", headers=th.headers(fence), method="POST")
    with urllib.request.urlopen(req, timeout=10) as got:
        assert got.read().decode() == str(fence)
    got = requests.post(f"{service.url}/echo", data=b"", auth=th.FenceAuth(fence), timeout=10)
    assert (got.status_code, got.text) == (200, str(fence))
    with httpx.Client(auth=th.FenceAuth(fence), timeout=10) as hc:
        answered = hc.post(f"{service.url}/echo", content=b"")
        assert (answered.status_code, answered.text) == (200, str(fence))
    # A 409 read by a client: the largest fence, as an int.
    requests.post(f"{service.url}/write", data=b"B", auth=th.FenceAuth(fence + 1), timeout=10)
    got = requests.post(f"{service.url}/write", data=b"A", headers=th.headers(fence), timeout=10)
    assert got.status_code == th.CONFLICT
    assert th.parse_header(got.headers[th.LARGEST_HEADER]) == fence + 1


def test_helpers_check_their_arguments() -> None:
    assert th.headers(0) == {"Tinystore-Fence": "0"}
    assert th.header_value(2**128 - 1) == "340282366920938463463374607431768211455"
    for bad, message in [(-1, "not from 0 to 2^128-1"), (True, "not bool"), ("7", "not str")]:
        with pytest.raises(tinystore.Invalid, match=re.escape(message)):
            th.headers(bad)  # type: ignore[arg-type]
    assert th.parse_header(None) is None
    with pytest.raises(tinystore.Invalid, match="^header Tinystore-Fence: "):
        th.parse_header(" 5")
    assert th.status_of(tinystore.Stale("m", "r", 1, 2)) == 409
    assert th.status_of(tinystore.Invalid("m")) == 400
    assert th.status_of(tinystore.Timeout("m")) is None
    assert th.status_of(ValueError("m")) is None
    assert (th.FENCE_HEADER, th.LARGEST_HEADER) == ("Tinystore-Fence", "Tinystore-Fence-Largest")


def test_asgi_passes_stale_on_once_the_response_started() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        raise tinystore.Stale("late", "chats/1", 1, 2)

    sent: list[Any] = []

    async def record(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "headers": [(b"tinystore-fence", b"1")], "path": "/"}
    with pytest.raises(tinystore.Stale):
        asyncio.run(th.ASGIMiddleware(app)(scope, receive, record))
    assert [m["type"] for m in sent] == ["http.response.start"]


def test_a_client_reads_an_answer_as_the_core_does() -> None:
    """Answers from a real server that no guard made: a 409 without
    Tinystore-Fence-Largest, or with a value that is not a fence, is no
    refusal (answered() gives None; the reading raises Io saying so); only a
    409 carrying a fence is Stale."""
    largest = {"/bare": None, "/nine": "nine", "/twice": "12, 13", "/stale": "12"}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        path = environ["PATH_INFO"]
        headers = [("Content-Length", "0")]
        if path == "/busy":
            start_response("503 Service Unavailable", headers)
            return [b""]
        if largest[path] is not None:
            headers += [(th.LARGEST_HEADER, value) for value in str(largest[path]).split(", ")]
        start_response("409 Conflict", headers)
        return [b""]

    server = make_server("127.0.0.1", 0, app, WSGIServer, Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        got = requests.post(f"{url}/stale", timeout=10)
        refused = th.answered(got, 5)
        assert isinstance(refused, tinystore.Stale)
        assert (refused.resource, refused.fence, refused.largest) == (f"127.0.0.1:{server.server_address[1]}/stale", 5, 12)
        for path, says in [
            ("/bare", "answered 409 to the write to \"chats/1\" without the header Tinystore-Fence-Largest: not a guard's refusal"),
            ("/nine", "with a header Tinystore-Fence-Largest that is not a fence: fence text \"nine\" is not a decimal"),
            ("/twice", "that is not a fence: fence text \"12, 13\" is not a decimal"),
            ("/busy", "the service answered 503 to the write to \"chats/1\""),
        ]:
            got = requests.post(f"{url}{path}", timeout=10)
            assert th.answered(got, 5) is None, path
            with pytest.raises(tinystore.Io, match=re.escape(says)):
                th._read_answer(got, "chats/1", 5)
    finally:
        server.shutdown()
        server.server_close()
