"""tinystore.guard.gcs when the answer to its upload is lost and
google-cloud-storage makes it again (its default retry of an upload whose
generation condition is set), on fake-gcs-server ($TINYSTORE_GCS_URL)
through a proxy that forwards the first upload, waits for the server's
answer, lets another writer in if the test says so, then closes the
connection without a byte of that answer. The client sees the connection
closed, and retries.

The retry's condition fails, for the first attempt changed the object. The
guard reads again: its own fence, it uploads once more (accepted); a
larger fence, it says ``Unavailable`` (the first attempt may have been
written, as it was) and tells the lease's store nothing. A refusal whose
answer came is ``Stale``, and told; so is a larger fence found after an
attempt the proxy answered 429 itself, which wrote nothing.

Without $TINYSTORE_GCS_URL these tests skip, unless TINYSTORE_REQUIRE_GCS=1,
where they fail."""

from __future__ import annotations

import importlib
import os
import uuid
from collections.abc import Callable
from typing import Any

import pytest

import tinystore
from conftest import Superseded
from guard_matrix.versioned import Racing
from losing_proxy import LosingProxy
from refused import counts
from tinystore.guard import gcs as guard

URL = os.environ.get("TINYSTORE_GCS_URL")
if not URL:
    if os.environ.get("TINYSTORE_REQUIRE_GCS") == "1":
        raise RuntimeError("TINYSTORE_REQUIRE_GCS=1 but TINYSTORE_GCS_URL is unset: run under tests/guards/with-gcs.sh")
    pytest.skip("TINYSTORE_GCS_URL is unset (run under tests/guards/with-gcs.sh)", allow_module_level=True)
pytest.importorskip("google.cloud.storage")


def blob(name: str, via: str | None = None) -> Any:
    """The object ``name`` in the bucket tinystore, through the proxy at
    ``via`` if given."""
    storage: Any = importlib.import_module("google.cloud.storage")
    credentials: Any = importlib.import_module("google.auth.credentials")
    client = storage.Client(project="test", credentials=credentials.AnonymousCredentials(),
                            client_options={"api_endpoint": via or URL})
    return client.bucket("tinystore").blob(name)


def losing_proxy(between: Callable[[], None] = lambda: None, answer: bytes | None = None) -> LosingProxy:
    """A proxy in front of fake-gcs-server that loses its answer to the
    first upload (``POST /upload/``), or, given ``answer``, keeps that
    upload from the server and answers it so."""
    return LosingProxy(str(URL), lambda data: data.startswith(b"POST /upload/"), between, (answer,))


THROTTLED = b'{"error": {"code": 429, "message": "rate limited by the test"}}'
TOO_MANY_REQUESTS = (
    b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nConnection: close\r\n"
    + f"Content-Length: {len(THROTTLED)}\r\n\r\n".encode() + THROTTLED
)


def body(name: str) -> tuple[str, str | None] | None:
    found = blob(name).bucket.get_blob(name)
    if found is None:
        return None
    return found.download_as_bytes().decode(), (found.metadata or {}).get(guard.METADATA_KEY)


def test_a_lost_answer_retried_is_accepted_or_in_doubt_never_stale(store: tinystore.Store, superseded: Superseded) -> None:
    older, newer = superseded.older, superseded.newer
    run = uuid.uuid4().hex[:8]

    # Accepted, its answer lost: the retry's condition fails on the object
    # the first attempt wrote, the guard reads its own fence and uploads
    # again.
    alone = f"alone-{run}"
    proxy = losing_proxy()
    guard.upload(blob(alone, proxy.url), "by older", older)
    proxy.close()
    assert proxy.played == 1
    assert body(alone) == ("by older", f"{older.fence:040d}")

    # Accepted, its answer lost, overtaken before the retry: the older
    # upload landed (read there), so it may not be called stale.
    overtaken = f"overtaken-{run}"
    seen: list[Any] = []

    def newer_writes() -> None:
        seen.append(body(overtaken))
        guard.upload(blob(overtaken), "by newer", newer.fence)

    proxy = losing_proxy(newer_writes)
    with pytest.raises(tinystore.Unavailable, match="may have been written") as doubt:
        guard.upload(blob(overtaken, proxy.url), "by older", older)
    proxy.close()
    assert not isinstance(doubt.value, tinystore.Stale)
    assert seen == [("by older", f"{older.fence:040d}")], "the older upload landed before the newer"
    assert body(overtaken) == ("by newer", f"{newer.fence:040d}")
    assert counts(store) == []

    # A refusal whose answer came (a writer between the guard's read and
    # its upload, the upload's 412 answered) is stale, and told: the one
    # refusal the store counts, so that the case above was not told.
    raced = f"raced-{run}"
    racing = Racing(blob(raced), "upload_from_string", lambda: guard.upload(blob(raced), "by newer", newer.fence))
    with pytest.raises(tinystore.Stale) as refused:
        guard.upload(racing, "by older", older)
    assert refused.value.largest == newer.fence
    assert body(raced) == ("by newer", f"{newer.fence:040d}")
    assert counts(store) == [("chats", "lock", 1)]


def test_a_retried_429_was_answered_so_a_larger_fence_after_it_is_stale(store: tinystore.Store, superseded: Superseded) -> None:
    """A 429 is the server's answer: that attempt wrote nothing. The proxy
    keeps the first upload from the server, lets the newer holder write,
    and answers 429; the client makes the upload again, whose condition
    fails on the newer object, and the guard reads the larger fence:
    stale, and told, not in doubt (core's rule: only no answer, a 5xx or
    a 408 leave an attempt's outcome unknown)."""
    older, newer = superseded.older, superseded.newer
    name = f"throttled-{uuid.uuid4().hex[:8]}"
    seen: list[Any] = []

    def newer_writes() -> None:
        seen.append(body(name))
        guard.upload(blob(name), "by newer", newer.fence)

    proxy = losing_proxy(newer_writes, TOO_MANY_REQUESTS)
    with pytest.raises(tinystore.Stale) as refused:
        guard.upload(blob(name, proxy.url), "by older", older)
    proxy.close()
    assert proxy.played == 1, "the proxy answered no upload 429"
    assert seen == [None], "the throttled upload reached the server"
    assert refused.value.largest == newer.fence
    assert body(name) == ("by newer", f"{newer.fence:040d}")
    assert counts(store) == [("chats", "lock", 1)]


def test_a_429_then_a_lost_answer_then_a_newer_writer_is_in_doubt(store: tinystore.Store, superseded: Superseded) -> None:
    """Each attempt made again is told, not only the first: the proxy
    answers the first upload 429 (it wrote nothing), forwards the second
    and loses its answer after fake-gcs-server wrote it, and lets the newer
    holder write; the third attempt's condition fails and the guard reads
    the larger fence. The second attempt was written: in doubt
    (``Unavailable``), never stale, and the store is told nothing."""
    older, newer = superseded.older, superseded.newer
    name = f"throttled-then-lost-{uuid.uuid4().hex[:8]}"
    seen: list[Any] = []

    def newer_writes() -> None:
        seen.append(body(name))
        guard.upload(blob(name), "by newer", newer.fence)

    proxy = LosingProxy(str(URL), lambda data: data.startswith(b"POST /upload/"), newer_writes,
                        (TOO_MANY_REQUESTS, None))
    with pytest.raises(tinystore.Unavailable, match="may have been written") as doubt:
        guard.upload(blob(name, proxy.url), "by older", older)
    proxy.close()
    assert proxy.played == 2
    assert not isinstance(doubt.value, tinystore.Stale)
    assert seen == [("by older", f"{older.fence:040d}")], "the second attempt landed before the newer"
    assert body(name) == ("by newer", f"{newer.fence:040d}")
    assert counts(store) == []
