"""Fences carried over HTTP: a request carries its fence in the header
``Tinystore-Fence`` (a decimal); a service reads it, hands it to its
handler, and answers a write the guard refused (:class:`tinystore.Stale`)
with ``409 Conflict`` and the largest recorded fence in
``Tinystore-Fence-Largest``; a malformed header gets ``400`` with the
parser's message.

Client side, with any HTTP client:

>>> requests.post(url, data=summary, headers=tinystore.http.headers(lease.fence))   # doctest: +SKIP
>>> requests.post(url, data=summary, auth=tinystore.http.FenceAuth(lease.fence))   # requests or httpx
>>> urllib.request.Request(url, data, headers=tinystore.http.headers(lease.fence))

Given the ``Lease`` itself, ``FenceAuth(lease)`` (on ``requests``) reads
each answer with :func:`answered`: a ``409`` carrying
``Tinystore-Fence-Largest`` is a write a guard in the service refused, and
it is told to the lease's store, which counts it, and traced (an
OpenTelemetry ``tinystore.guard.check`` span on the backend ``http``). With
``httpx`` or another client, call :func:`answered` on the response.

Service side, WSGI (:class:`WSGIMiddleware`; the fence in
``environ["tinystore.fence"]``) or ASGI (:class:`ASGIMiddleware`; the fence
in ``scope["tinystore.fence"]``), an ``int`` or ``None`` when the request
had no header.

The check itself stays a guard inside the handler's own transaction
(:func:`tinystore.guard.check`, or :func:`tinystore.guard.s3.put`): the
middleware only reads the header and maps the refusal. A check made before
the handler runs (a middleware comparing the fence with the largest one
seen) is not enough: the request can pause between that check and its
write, a later holder can write meanwhile, and the late write then lands
unchecked. The header's parsing and the statuses come from tinystore's
core, the same in every language.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from . import _native
from ._errors import Error, Stale
from ._native import Lease
from .guard._under import told

__all__ = [
    "BAD_REQUEST",
    "CONFLICT",
    "ENVIRON_KEY",
    "FENCE_HEADER",
    "LARGEST_HEADER",
    "ASGIMiddleware",
    "FenceAuth",
    "WSGIMiddleware",
    "answered",
    "header_value",
    "headers",
    "parse_header",
    "status_of",
]

FENCE_HEADER: str = _native.HTTP_FENCE_HEADER
"""The request header that carries a fence: ``Tinystore-Fence``."""
LARGEST_HEADER: str = _native.HTTP_LARGEST_HEADER
"""The header of a 409 answer carrying the largest recorded fence."""
CONFLICT: int = _native.HTTP_CONFLICT
"""The status of a request whose write the guard refused (``stale``)."""
BAD_REQUEST: int = _native.HTTP_BAD_REQUEST
"""The status of a request whose fence header is malformed."""
ENVIRON_KEY = "tinystore.fence"
"""Where the middlewares put the request's fence: ``environ[ENVIRON_KEY]``
(WSGI), ``scope[ENVIRON_KEY]`` (ASGI)."""

_REASONS = {CONFLICT: "Conflict", BAD_REQUEST: "Bad Request"}


def header_value(fence: int) -> str:
    """The ``Tinystore-Fence`` value of ``fence`` (an int from 0 to
    2**128-1, else :class:`tinystore.Invalid`): its decimal."""
    return _native.http_fence_header_value(fence)


def headers(fence: int) -> dict[str, str]:
    """The request headers that carry ``fence``, for ``requests``, ``httpx``
    or ``urllib.request``: ``{"Tinystore-Fence": "<decimal>"}``."""
    return {FENCE_HEADER: header_value(fence)}


def parse_header(value: str | None) -> int | None:
    """Reads a ``Tinystore-Fence`` value: ``None`` when missing (``None``),
    the fence when it is a decimal of ASCII digits up to 2**128-1, else
    :class:`tinystore.Invalid` naming the header and what is wrong (a sign,
    spaces, hex, 2**128; a header sent twice, joined by commas)."""
    return _native.http_parse_fence_header(value)


def status_of(err: BaseException) -> int | None:
    """The status a service answers for a tinystore error: 409 for
    ``stale``, 400 for ``invalid``, ``None`` for any other (yours to
    choose, usually 500)."""
    return _native.http_status_of(err.code) if isinstance(err, Error) else None


_R = TypeVar("_R")


class FenceAuth:
    """Attaches a fence to every request: ``auth=FenceAuth(lease.fence)``
    for ``requests`` (an ``AuthBase``-style callable) and ``httpx`` (which
    takes any callable that takes and returns its request). Given the
    ``Lease`` itself, each answer ``requests`` gets is read by
    :func:`answered` (told to the lease's store when refused, and traced);
    the response is returned as it came."""

    def __init__(self, fence: int | Lease) -> None:
        self.under = fence
        self.value = header_value(fence.fence if isinstance(fence, Lease) else fence)

    def __call__(self, request: _R) -> _R:
        request.headers[FENCE_HEADER] = self.value  # type: ignore[attr-defined]
        register = getattr(request, "register_hook", None)
        if isinstance(self.under, Lease) and callable(register):
            register("response", self._answered)
        return request

    def _answered(self, response: Any, *args: object, **kwargs: object) -> Any:
        answered(response, self.under)
        return response


def answered(response: Any, fence: int | Lease) -> Stale | None:
    """Reads the answer to a request that carried ``fence`` (an int, or the
    ``Lease`` itself), as a guard's check seen from the client: returns the
    :class:`tinystore.Stale` of a ``409`` carrying
    ``Tinystore-Fence-Largest`` (a guard in the service refused the
    request's write; its resource is the URL's host and path), else
    ``None``: accepted, or failed (another 4xx or 5xx; a ``409`` without
    that header or with one that is not a fence). The reading is the core's,
    the same in every language. Given the lease, a refusal is also told to
    its store. With a tracer provider set, the answer is a
    ``tinystore.guard.check`` span on the backend ``http``: accepted, stale
    (counted in ``tinystore.guard.refused``) or error (the failure, an
    ``io`` error saying what the answer was). Works on ``requests``' and
    ``httpx``'s responses (``status_code``, ``headers``, ``url``); never
    raises for the answer itself."""
    url = urlsplit(str(getattr(response, "url", "")))
    resource = url.netloc + url.path
    try:
        with told(fence, resource, "http") as given:
            _read_answer(response, resource, given)
    except Stale as refused:
        return refused
    except Error:
        return None
    return None


def _read_answer(response: Any, resource: str, fence: int) -> None:
    """The core's reading of the answer to a request that carried ``fence``
    (an int), its write to ``resource``: returns when accepted; raises
    :class:`tinystore.Stale` for a ``409`` carrying one fence in
    ``Tinystore-Fence-Largest``, else the ``io`` error saying what the
    answer was (another 4xx or 5xx; a ``409`` without that header, or with
    one that is not a fence)."""
    largest = response.headers.get(LARGEST_HEADER)
    _native.http_read_answer(response.status_code, largest, resource, fence)


# WSGI ------------------------------------------------------------------------

_StartResponse = Callable[..., Any]
_WSGIApp = Callable[[dict[str, Any], _StartResponse], Iterable[bytes]]


def _answer(status: int, message: str, largest: int | None) -> tuple[str, list[tuple[str, str]], bytes]:
    body = (message + "\n").encode("utf-8")
    hdrs = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))]
    if largest is not None:
        hdrs.append((LARGEST_HEADER, header_value(largest)))
    return f"{status} {_REASONS[status]}", hdrs, body


class WSGIMiddleware:
    """Wraps a WSGI application: reads ``Tinystore-Fence`` into
    ``environ["tinystore.fence"]`` (an int, or None when missing), answers
    ``400`` with the parser's message when it is malformed (the application
    is not called), and answers ``409`` with ``Tinystore-Fence-Largest``
    when the application raises :class:`tinystore.Stale` while it is called
    (do the guarded write before returning the body, as a handler does)."""

    def __init__(self, app: _WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: _StartResponse) -> Iterable[bytes]:
        try:
            environ[ENVIRON_KEY] = parse_header(environ.get("HTTP_TINYSTORE_FENCE"))
        except Error as err:
            status, hdrs, body = _answer(BAD_REQUEST, str(err), None)
            start_response(status, hdrs)
            return [body]
        try:
            return self.app(environ, start_response)
        except Stale as err:
            status, hdrs, body = _answer(CONFLICT, str(err), err.largest)
            # exc_info lets a start_response the application made already be replaced.
            start_response(status, hdrs, sys.exc_info())
            return [body]


# ASGI ------------------------------------------------------------------------

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
_ASGIApp = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


class ASGIMiddleware:
    """Wraps an ASGI application: on each ``http`` request, reads
    ``Tinystore-Fence`` into ``scope["tinystore.fence"]`` (an int, or None
    when missing), answers ``400`` with the parser's message when it is
    malformed (the application is not called), and answers ``409`` with
    ``Tinystore-Fence-Largest`` when the application raises
    :class:`tinystore.Stale` before it started its response (after that the
    exception passes on). A framework that turns exceptions into 500s itself
    (Starlette's, say) needs its own handler for ``Stale``:
    :func:`status_of` gives the status."""

    def __init__(self, app: _ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        sent = [v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == b"tinystore-fence"]
        try:
            fence = parse_header(", ".join(sent) if sent else None)
        except Error as err:
            await _asgi_answer(send, BAD_REQUEST, str(err), None)
            return
        scope = dict(scope)
        scope[ENVIRON_KEY] = fence
        started = False

        async def tracking_send(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            if message.get("type") == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Stale as err:
            if started:
                raise
            await _asgi_answer(send, CONFLICT, str(err), err.largest)


async def _asgi_answer(send: _Send, status: int, message: str, largest: int | None) -> None:
    _, hdrs, body = _answer(status, message, largest)
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in hdrs]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
