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
answer came is ``Stale``, and told.

Without $TINYSTORE_GCS_URL these tests skip, unless TINYSTORE_REQUIRE_GCS=1,
where they fail."""

from __future__ import annotations

import importlib
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

import tinystore
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


class LosingProxy:
    """A loopback proxy in front of fake-gcs-server that loses its answer
    to the first upload (``POST /upload/``): it forwards the request, waits
    for the answer's first bytes (the server has written by then), runs
    ``between``, and closes the connection unanswered. Every other request
    and answer goes through as it is."""

    def __init__(self, between: Callable[[], None] = lambda: None) -> None:
        up = urlparse(str(URL))
        self.upstream = (up.hostname or "127.0.0.1", up.port or 80)
        self.target = b"POST /upload/"
        self.between: Callable[[], None] | None = between
        self.lost_one = False
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.failures: list[BaseException] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self.listener.accept()
            except OSError:
                return
            up = socket.create_connection(self.upstream)
            threading.Thread(target=self._serve, args=(down, up), daemon=True).start()

    def _serve(self, down: socket.socket, up: socket.socket) -> None:
        losing = threading.Event()
        done = threading.Event()

        def requests() -> None:
            while not done.is_set():
                try:
                    data = down.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                if data.startswith(self.target):
                    with self.lock:
                        if not self.lost_one:
                            self.lost_one = True
                            losing.set()
                try:
                    up.sendall(data)
                except OSError:
                    break
            done.set()

        threading.Thread(target=requests, daemon=True).start()
        try:
            while True:
                try:
                    data = up.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                if losing.is_set():
                    with self.lock:
                        between, self.between = self.between, None
                    if between is not None:
                        try:
                            between()
                        except BaseException as err:  # raised again by the test
                            self.failures.append(err)
                    break  # the answer is lost with its connection
                down.sendall(data)
        except OSError:
            pass
        finally:
            done.set()
            for s in (down, up):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def close(self) -> None:
        self.listener.close()
        if self.failures:
            raise self.failures[0]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tinystore.Store]:
    with tinystore.open(tmp_path / "store") as s:
        yield s


def body(name: str) -> tuple[str, str | None] | None:
    found = blob(name).bucket.get_blob(name)
    if found is None:
        return None
    return found.download_as_bytes().decode(), (found.metadata or {}).get(guard.METADATA_KEY)


def counts(store: tinystore.Store) -> list[tuple[str, str, int]]:
    return [(r.name, r.kind, r.refused) for r in store.status_sync().late_writes_refused]


class Racing:
    """An object whose first upload lets ``between`` write first."""

    def __init__(self, inner: Any, between: Callable[[], None]) -> None:
        self._inner, self._between = inner, [between]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("_inner", "_between"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._inner, name, value)

    def upload_from_string(self, *args: Any, **kwargs: Any) -> Any:
        if self._between:
            self._between.pop()()
        return self._inner.upload_from_string(*args, **kwargs)


def test_a_lost_answer_retried_is_accepted_or_in_doubt_never_stale(store: tinystore.Store) -> None:
    locks = store.locks("chats")
    older = locks.acquire_sync("42")
    older.release_sync()
    newer = locks.acquire_sync("42")
    run = uuid.uuid4().hex[:8]

    # Accepted, its answer lost: the retry's condition fails on the object
    # the first attempt wrote, the guard reads its own fence and uploads
    # again.
    alone = f"alone-{run}"
    proxy = LosingProxy()
    guard.upload(blob(alone, proxy.url), "by older", older)
    proxy.close()
    assert proxy.lost_one
    assert body(alone) == ("by older", f"{older.fence:040d}")

    # Accepted, its answer lost, overtaken before the retry: the older
    # upload landed (read there), so it may not be called stale.
    overtaken = f"overtaken-{run}"
    seen: list[Any] = []

    def newer_writes() -> None:
        seen.append(body(overtaken))
        guard.upload(blob(overtaken), "by newer", newer.fence)

    proxy = LosingProxy(newer_writes)
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
    racing = Racing(blob(raced), lambda: guard.upload(blob(raced), "by newer", newer.fence))
    with pytest.raises(tinystore.Stale) as refused:
        guard.upload(racing, "by older", older)
    assert refused.value.largest == newer.fence
    assert body(raced) == ("by newer", f"{newer.fence:040d}")
    assert counts(store) == [("chats", "lock", 1)]
