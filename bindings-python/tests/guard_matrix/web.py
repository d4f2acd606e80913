"""The matrix's http backend: wsgiref's server on a loopback port in a
thread, its WSGI handler behind tinystore.http.WSGIMiddleware guarding a
SQLite file; httpx as the client, attaching the fence with
tinystore.http.FenceAuth."""

from __future__ import annotations

import threading
import urllib.parse
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import tinystore
import tinystore.http as th
from tinystore import guard

from . import Failed, Step, expect, fence
from .sqlite import Sqlite


class Http(Sqlite):
    name = "http"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        import httpx

        self.httpx = httpx
        self.server = make_server("127.0.0.1", 0, th.WSGIMiddleware(self.app), handler_class=Quiet)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def app(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        """The service: a write of the request's fence to the resource in
        the path, in one transaction with the handler's own row; Stale goes
        to the middleware (409), any other tinystore error is answered with
        the helper's status, or 500, and ``code: message``."""
        resource = urllib.parse.unquote(environ["PATH_INFO"].removeprefix("/write/"))
        fence = environ[th.ENVIRON_KEY]
        status, text = "200 OK", "saved"
        if fence is None:
            status, text = "428 Precondition Required", f"{th.FENCE_HEADER} is required"
        else:
            conn = self.connect(timeout=10.0)
            try:
                with conn:
                    conn.execute("insert into notes values (?)", (str(fence),))
                    guard.check(conn, resource, fence)
            except tinystore.Stale:
                raise
            except tinystore.Error as err:
                code = th.status_of(err) or 500
                status, text = f"{code} {'Bad Request' if code == 400 else 'Error'}", f"{err.code}: {err}"
            finally:
                conn.close()
        body = text.encode()
        start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))])
        return [body]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
        super().close()

    def post(self, **kwargs: Any) -> Any:
        return self.httpx.post(f"{self.base}/write/{urllib.parse.quote(self.resource, safe='')}", content=b"", **kwargs)

    def step_write(self, args: dict[str, Any], step: Step) -> None:
        want = step["expect"]
        if "fence_header" in args:
            answer = self.post(headers={th.FENCE_HEADER: args["fence_header"]})
            expect(want == "bad_request", f"the runner does not know {want!r} for a raw header")
            expect(answer.status_code == 400, f"expected 400, got {answer.status_code} {answer.text!r}")
            expect(th.FENCE_HEADER in answer.text, f"the 400 does not name the header: {answer.text!r}")
            return
        f = fence(args["fence"])
        before = self.notes()
        answer = self.post(auth=th.FenceAuth(f))
        got = f"{answer.status_code} {answer.text.strip()!r}"
        kept = self.notes() - before
        expect(kept == (1 if answer.status_code == 200 else 0), f"the handler's own write: {kept} rows kept ({got})")
        if want == "accepted":
            expect(answer.status_code == 200, f"expected 200, got {got}")
        elif isinstance(want, dict) and "stale" in want:
            largest = answer.headers.get(th.LARGEST_HEADER)
            expect(answer.status_code == th.CONFLICT, f"expected 409, got {got}")
            expect(largest == want["stale"]["largest"], f"{th.LARGEST_HEADER} is {largest!r}, expected {want['stale']['largest']}")
            expect(self.resource in answer.text, f"the 409 does not name the resource: {got}")
        elif want == "corrupt":
            expect(answer.status_code == 500 and answer.text.startswith("corrupt: "), f"expected 500 corrupt, got {got}")
            expect(self.resource in answer.text, f"the corrupt answer does not name the resource: {got}")
        else:
            raise Failed(f"the runner does not know {want!r} over HTTP")


class Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass
