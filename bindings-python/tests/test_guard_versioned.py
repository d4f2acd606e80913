"""tinystore.guard.gcs on fake-gcs-server ($TINYSTORE_GCS_URL, through
google-cloud-storage) and tinystore.guard.azure on Azurite
($TINYSTORE_AZURE_CONNECTION_STRING, through azure-storage-blob); make
test-python starts both with tests/guards/with-gcs.sh and with-azurite.sh.
Each case runs on both: the rule (equal and larger uploaded, smaller stale
with nothing written), an object written without the guard taken over, a
hand-edited fence, the guard's own metadata key refused, a writer between
the guard's read and its upload, and the server gone.

Without a store's variable its cases skip, unless TINYSTORE_REQUIRE_GCS=1
or TINYSTORE_REQUIRE_AZURE=1, where they fail."""

from __future__ import annotations

import importlib
import os
import socket
import uuid
from typing import Any, Iterator

import pytest

import tinystore
from guard_matrix.versioned import Racing
from tinystore.guard import azure as azure_guard
from tinystore.guard import gcs as gcs_guard


def _required(var: str, require: str) -> str | None:
    value = os.environ.get(var)
    if not value and os.environ.get(require) == "1":
        raise RuntimeError(f"{require}=1 but {var} is unset: run under tests/guards/with-gcs.sh and with-azurite.sh")
    return value


GCS_URL = _required("TINYSTORE_GCS_URL", "TINYSTORE_REQUIRE_GCS")
AZURE = _required("TINYSTORE_AZURE_CONNECTION_STRING", "TINYSTORE_REQUIRE_AZURE")


class Store:
    """One store's object, as the tests use it: a guarded upload, a plain
    one with metadata, and a read of the body and the fence."""

    name: str
    key: str
    blob: Any

    def guarded(self, data: str, fence: int, metadata: dict[str, str] | None = None) -> None:
        raise NotImplementedError

    def plain(self, data: str, metadata: dict[str, str]) -> None:
        raise NotImplementedError

    def read(self) -> tuple[str, str | None] | None:
        raise NotImplementedError

    def racing(self, between: int) -> Store:
        raise NotImplementedError

    def gone(self) -> Store:
        raise NotImplementedError


class Gcs(Store):
    name, key = "gcs", gcs_guard.METADATA_KEY

    def __init__(self, blob: Any) -> None:
        self.blob = blob

    @staticmethod
    def at(url: str, name: str) -> Gcs:
        storage: Any = importlib.import_module("google.cloud.storage")
        credentials: Any = importlib.import_module("google.auth.credentials")
        client = storage.Client(project="test", credentials=credentials.AnonymousCredentials(),
                                client_options={"api_endpoint": url})
        return Gcs(client.bucket("tinystore").blob(name))

    def guarded(self, data: str, fence: int, metadata: dict[str, str] | None = None) -> None:
        gcs_guard.upload(self.blob, data, fence, metadata=metadata)

    def plain(self, data: str, metadata: dict[str, str]) -> None:
        self.blob.metadata = metadata
        self.blob.upload_from_string(data)

    def read(self) -> tuple[str, str | None] | None:
        found = self.blob.bucket.get_blob(self.blob.name)
        if found is None:
            return None
        return found.download_as_bytes().decode(), (found.metadata or {}).get(self.key)

    def racing(self, between: int) -> Store:
        other = Gcs.at(str(GCS_URL), self.blob.name)
        return Gcs(Racing(self.blob, "upload_from_string", lambda: other.guarded("between", between)))

    def gone(self) -> Store:
        g = Gcs.at(f"http://127.0.0.1:{_closed_port()}", "gone")
        g.blob.bucket.get_blob = _no_retry(g.blob.bucket.get_blob)
        return g


class Azure(Store):
    name, key = "azure", azure_guard.METADATA_KEY

    def __init__(self, blob: Any) -> None:
        self.blob = blob

    @staticmethod
    def at(connection: str, name: str) -> Azure:
        from azure.storage.blob import BlobServiceClient

        service = BlobServiceClient.from_connection_string(connection, retry_total=0)
        return Azure(service.get_blob_client("tinystore", name))

    def guarded(self, data: str, fence: int, metadata: dict[str, str] | None = None) -> None:
        azure_guard.upload_blob(self.blob, data, fence, metadata=metadata)

    def plain(self, data: str, metadata: dict[str, str]) -> None:
        self.blob.upload_blob(data, overwrite=True, metadata=metadata)

    def read(self) -> tuple[str, str | None] | None:
        from azure.core.exceptions import ResourceNotFoundError

        try:
            got = self.blob.download_blob()
        except ResourceNotFoundError:
            return None
        return got.readall().decode(), (got.properties.metadata or {}).get(self.key)

    def racing(self, between: int) -> Store:
        other = Azure.at(str(AZURE), self.blob.blob_name)
        return Azure(Racing(self.blob, "upload_blob", lambda: other.guarded("between", between)))

    def gone(self) -> Store:
        port = _closed_port()
        connection = ";".join(
            f"BlobEndpoint=http://127.0.0.1:{port}/devstoreaccount1" if part.startswith("BlobEndpoint=") else part
            for part in str(AZURE).split(";")
        )
        return Azure.at(connection, "gone")


def _no_retry(call: Any) -> Any:
    """``call`` without the client's retries: a server that is gone is told at once."""
    return lambda *a, **k: call(*a, retry=None, timeout=3, **k)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stores() -> Iterator[Any]:
    yield pytest.param("gcs", marks=pytest.mark.skipif(not GCS_URL, reason="TINYSTORE_GCS_URL is unset"))
    yield pytest.param("azure", marks=pytest.mark.skipif(not AZURE, reason="TINYSTORE_AZURE_CONNECTION_STRING is unset"))


@pytest.fixture(params=list(_stores()))
def store(request: pytest.FixtureRequest) -> Store:
    """A fresh object name on one store."""
    name = f"py-{uuid.uuid4().hex[:10]}"
    if request.param == "gcs":
        pytest.importorskip("google.cloud.storage")
        return Gcs.at(str(GCS_URL), name)
    pytest.importorskip("azure.storage.blob")
    return Azure.at(str(AZURE), name)


def fence_text(n: int) -> str:
    return str(n).rjust(40, "0")


def test_equal_and_larger_are_uploaded_and_smaller_is_stale_writing_nothing(store: Store) -> None:
    store.guarded("by 7", 7)
    store.guarded("by 7 again", 7)
    store.guarded("by 9", 9, metadata={"owner": "nine"})
    with pytest.raises(tinystore.Stale) as refused:
        store.guarded("late", 8)
    assert (refused.value.fence, refused.value.largest) == (8, 9)
    assert refused.value.resource.endswith("/" + (store.blob.name if store.name == "gcs" else store.blob.blob_name))
    assert store.read() == ("by 9", fence_text(9))


def test_an_object_written_without_the_guard_is_taken_over(store: Store) -> None:
    store.plain("plain", {})
    store.guarded("guarded", 3)
    assert store.read() == ("guarded", fence_text(3))
    with pytest.raises(tinystore.Stale):
        store.guarded("late", 2)


def test_a_hand_edited_fence_is_corrupt_and_nothing_is_written(store: Store) -> None:
    store.plain("edited", {store.key: "seven"})
    with pytest.raises(tinystore.Corrupt, match="seven"):
        store.guarded("v", 7)
    assert store.read() == ("edited", "seven")


def test_the_guards_own_metadata_key_is_invalid_before_any_call(store: Store) -> None:
    for key in ("tinystore-fence", "Tinystore_Fence"):
        with pytest.raises(tinystore.Invalid, match=key):
            store.guarded("v", 1, metadata={key: "1"})
    assert store.read() is None


@pytest.mark.parametrize("first", [None, 5])
def test_a_writer_between_the_read_and_the_upload_is_seen_on_the_second_read(store: Store, first: int | None) -> None:
    if first is not None:
        store.guarded("first", first)
    with pytest.raises(tinystore.Stale) as refused:
        store.racing(9).guarded("late", 7)
    assert refused.value.largest == 9
    assert store.read() == ("between", fence_text(9))
    store.racing(10).guarded("after", 11)
    assert store.read() == ("after", fence_text(11))


def test_the_server_gone_raises_the_clients_own_error(store: Store) -> None:
    with pytest.raises(Exception) as raised:
        store.gone().guarded("v", 1)
    assert not isinstance(raised.value, tinystore.Error), raised.value


@pytest.mark.skipif(not AZURE, reason="TINYSTORE_AZURE_CONNECTION_STRING is unset")
def test_azure_a_caller_that_may_only_read_gets_the_clients_403_and_nothing_written() -> None:
    pytest.importorskip("azure.storage.blob")
    from azure.core.exceptions import HttpResponseError
    from azure.storage.blob import BlobClient

    name = f"py-{uuid.uuid4().hex[:10]}"
    mine = Azure.at(str(AZURE), name)
    mine.guarded("first", 5)
    url = os.environ["TINYSTORE_AZURE_URL"]
    reader = BlobClient.from_blob_url(f"{url}/tinystore/{name}?{os.environ['TINYSTORE_AZURE_READ_SAS']}",
                                      retry_total=0)
    with pytest.raises(HttpResponseError) as refused:
        azure_guard.upload_blob(reader, "late", 7)
    assert refused.value.status_code == 403, refused.value
    assert not tinystore.guard.is_serialization_failure(refused.value)
    assert mine.read() == ("first", fence_text(5))

