"""tinystore.guard.azure when the answer to its upload is lost and
azure-storage-blob makes it again, on Azurite
($TINYSTORE_AZURE_CONNECTION_STRING) through a proxy that forwards the
first upload of the test's blob, waits for Azurite's answer, lets another
writer in if the test says so, then closes the connection without a byte
of that answer. The client sees the connection closed, and retries.

The retry's condition fails, for the first attempt changed the blob. The
guard reads again: its own fence, it uploads once more (accepted); a
larger fence, it says ``Unavailable`` (the first attempt may have been
written, as it was) and tells the lease's store nothing. A refusal whose
answer came is ``Stale``, and told.

Without $TINYSTORE_AZURE_CONNECTION_STRING these tests skip, unless
TINYSTORE_REQUIRE_AZURE=1, where they fail."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

import pytest

import tinystore
from conftest import Superseded
from guard_matrix.versioned import Racing
from losing_proxy import LosingProxy
from refused import counts
from tinystore.guard import azure as guard

CONNECTION = os.environ.get("TINYSTORE_AZURE_CONNECTION_STRING")
if not CONNECTION:
    if os.environ.get("TINYSTORE_REQUIRE_AZURE") == "1":
        raise RuntimeError("TINYSTORE_REQUIRE_AZURE=1 but TINYSTORE_AZURE_CONNECTION_STRING is unset: "
                           "run under tests/guards/with-azurite.sh")
    pytest.skip("TINYSTORE_AZURE_CONNECTION_STRING is unset (run under tests/guards/with-azurite.sh)",
                allow_module_level=True)
pytest.importorskip("azure.storage.blob")


def endpoint(connection: str) -> str:
    return next(part.split("=", 1)[1] for part in connection.split(";") if part.startswith("BlobEndpoint="))


def blob(name: str, via: str | None = None) -> Any:
    """The blob ``name`` in the container tinystore, through the proxy at
    ``via`` if given; its client retries at once (no backoff)."""
    from azure.storage.blob import BlobServiceClient

    connection = str(CONNECTION)
    if via is not None:
        connection = ";".join(f"BlobEndpoint={via}" if p.startswith("BlobEndpoint=") else p
                              for p in connection.split(";"))
    service = BlobServiceClient.from_connection_string(connection, retry_total=3, initial_backoff=0,
                                                       increment_base=0, random_jitter_range=0)
    return service.get_blob_client("tinystore", name)


SERVER_BUSY = (b"HTTP/1.1 503 Server Busy\r\nx-ms-error-code: ServerBusy\r\nConnection: close\r\n"
               b"Content-Length: 0\r\n\r\n")


def losing_proxy(name: str, between: Callable[[], None] = lambda: None,
                 plan: tuple[bytes | None, ...] = (None,)) -> LosingProxy:
    """A proxy in front of Azurite that loses Azurite's answer to the first
    upload (``PUT``) of blob ``name``, or plays ``plan`` on its uploads."""
    upstream = endpoint(str(CONNECTION))
    target = f"PUT {urlparse(upstream).path}/tinystore/{name} ".encode()
    return LosingProxy(upstream, lambda data: data.startswith(target), between, plan)


def body(name: str) -> tuple[str, str | None] | None:
    from azure.core.exceptions import ResourceNotFoundError

    try:
        got = blob(name).download_blob()
    except ResourceNotFoundError:
        return None
    return got.readall().decode(), (got.properties.metadata or {}).get(guard.METADATA_KEY)


def test_a_lost_answer_retried_is_accepted_or_in_doubt_never_stale(store: tinystore.Store, superseded: Superseded) -> None:
    older, newer = superseded.older, superseded.newer
    run = uuid.uuid4().hex[:8]

    # Accepted, its answer lost: the retry's condition fails on the blob
    # the first attempt wrote, the guard reads its own fence and uploads
    # again.
    alone = f"alone-{run}"
    proxy = losing_proxy(alone)
    guard.upload_blob(blob(alone, proxy.url), "by older", older)
    proxy.close()
    assert proxy.played == 1
    assert body(alone) == ("by older", f"{older.fence:040d}")

    # Accepted, its answer lost, overtaken before the retry: the older
    # upload landed (read there), so it may not be called stale.
    overtaken = f"overtaken-{run}"
    seen: list[Any] = []

    def newer_writes() -> None:
        seen.append(body(overtaken))
        guard.upload_blob(blob(overtaken), "by newer", newer.fence)

    proxy = losing_proxy(overtaken, newer_writes)
    with pytest.raises(tinystore.Unavailable, match="may have been written") as doubt:
        guard.upload_blob(blob(overtaken, proxy.url), "by older", older)
    proxy.close()
    assert not isinstance(doubt.value, tinystore.Stale)
    assert seen == [("by older", f"{older.fence:040d}")], "the older upload landed before the newer"
    assert body(overtaken) == ("by newer", f"{newer.fence:040d}")
    assert counts(store) == []

    # A refusal whose answer came (a writer between the guard's read and
    # its upload, the upload's 412 answered) is stale, and told: the one
    # refusal the store counts, so that the case above was not told.
    raced = f"raced-{run}"
    racing = Racing(blob(raced), "upload_blob", lambda: guard.upload_blob(blob(raced), "by newer", newer.fence))
    with pytest.raises(tinystore.Stale) as refused:
        guard.upload_blob(racing, "by older", older)
    assert refused.value.largest == newer.fence
    assert body(raced) == ("by newer", f"{newer.fence:040d}")
    assert counts(store) == [("chats", "lock", 1)]


def test_every_attempt_made_again_is_told_not_only_the_last(store: tinystore.Store, superseded: Superseded) -> None:
    """The proxy answers the first upload 503 without passing it on, then
    forwards the second and loses its answer after Azurite wrote it, and
    lets the newer holder write; the third attempt's condition fails (412)
    and the guard reads the larger fence. The guard is told both attempts
    made again, not only the last answer (a 412): in doubt
    (``Unavailable``), never stale, and the store is told nothing."""
    older, newer = superseded.older, superseded.newer
    name = f"busy-then-lost-{uuid.uuid4().hex[:8]}"
    seen: list[Any] = []

    def newer_writes() -> None:
        seen.append(body(name))
        guard.upload_blob(blob(name), "by newer", newer.fence)

    proxy = losing_proxy(name, newer_writes, (SERVER_BUSY, None))
    with pytest.raises(tinystore.Unavailable, match="may have been written") as doubt:
        guard.upload_blob(blob(name, proxy.url), "by older", older)
    proxy.close()
    assert proxy.played == 2
    assert not isinstance(doubt.value, tinystore.Stale)
    assert seen == [("by older", f"{older.fence:040d}")], "the second attempt landed before the newer"
    assert body(name) == ("by newer", f"{newer.fence:040d}")
    assert counts(store) == []


def test_the_callers_own_retry_hook_still_runs(superseded: Superseded) -> None:
    """The guard's ``retry_hook`` calls the caller's with each attempt made
    again: here the first upload's answer, lost."""
    name = f"hooked-{uuid.uuid4().hex[:8]}"
    theirs: list[Any] = []
    proxy = losing_proxy(name)
    guard.upload_blob(blob(name, proxy.url), "by older", superseded.older,
                      retry_hook=lambda **attempt: theirs.append(attempt.get("response")))
    proxy.close()
    assert theirs == [None]
    assert body(name) == ("by older", f"{superseded.older.fence:040d}")
