"""The matrix's gcs and azure backends: fake-gcs-server at
$TINYSTORE_GCS_URL through google-cloud-storage (bucket ``tinystore``) and
Azurite at $TINYSTORE_AZURE_CONNECTION_STRING through azure-storage-blob
(container ``tinystore``), an object per scenario. A race hands the guard
a client whose first upload lets the other writer in first; the server
gone, a client of a loopback port nothing listens on."""

from __future__ import annotations

import importlib
import os
import socket
from collections.abc import Callable
from typing import Any

import tinystore
from tinystore.guard import azure as guard_azure
from tinystore.guard import gcs as guard_gcs

from . import Backend, Failed, Outcome, Step, expect, fence


class Racing:
    """A client whose first ``method`` call runs ``between`` first."""

    def __init__(self, inner: Any, method: str, between: Callable[[], None]) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "_method", method)
        object.__setattr__(self, "_between", [between])

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if name != self._method or not self._between:
            return value

        def first(*args: Any, **kwargs: Any) -> Any:
            self._between.pop()()
            return value(*args, **kwargs)

        return first

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Versioned(Backend):
    """What the two stores share: the steps; each store's client below."""

    UPLOAD = ""

    def client(self, name: str, gone: bool = False) -> Any:
        raise NotImplementedError

    def upload(self, blob: Any, body: str, f: int) -> None:
        raise NotImplementedError

    def fence_of(self, name: str) -> str | None:
        raise NotImplementedError

    def exists(self, name: str) -> bool:
        raise NotImplementedError

    def write(self, fence: int, body: str | None, resource: str | None = None, blob: Any = None) -> Outcome:
        try:
            target = blob if blob is not None else self.client(self.resource if resource is None else resource)
            self.upload(target, body or f"v{fence}", fence)
        except Exception as err:
            return err
        return None

    def recorded(self) -> int | None:
        text = self.fence_of(self.resource)
        return None if text is None else fence(text)

    def nothing_written(self) -> Callable[[], None]:
        before = self.fence_of(self.resource) if self.exists(self.resource) else None

        def check() -> None:
            after = self.fence_of(self.resource) if self.exists(self.resource) else None
            expect(after == before, f"a refused write changed the object: {before} -> {after}")

        return check

    def stale_resource(self) -> str:
        return f"tinystore/{self.resource}"

    def step_bad_resource(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        for bad in ["", "x" * 1025, "a\u0000b"]:
            try:
                target = self.client(bad)
            except ValueError:
                continue  # the client refuses the name itself (azure-storage-blob: an empty one)
            unchanged = self.nothing_written()
            outcome = self.write(f, None, blob=target)
            expect(isinstance(outcome, tinystore.Invalid), f"resource {bad[:20]!r}: {outcome!r}")
            unchanged()

    def step_race(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])

        def between() -> None:
            for write in args["between"]:
                g = fence(write["fence"])
                self.judge(step["expect_between"], self.write(g, write.get("body")), g)

        paused = Racing(self.client(self.resource), self.UPLOAD, between)
        self.judge(step["expect"], self.write(f, args.get("body"), blob=paused), f)

    def step_server_gone(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        self.judge(step["expect"], self.write(f, None, blob=self.client(self.resource, gone=True)), f)


class Gcs(Versioned):
    name = "gcs"
    UPLOAD = "upload_from_string"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        self.url = os.environ.get("TINYSTORE_GCS_URL", "")
        if not self.url:
            raise Failed("TINYSTORE_GCS_URL is unset: run under tests/guards/with-gcs.sh")
        self.storage: Any = importlib.import_module("google.cloud.storage")
        self.credentials: Any = importlib.import_module("google.auth.credentials")
        self.exceptions: Any = importlib.import_module("requests.exceptions")

    def client(self, name: str, gone: bool = False) -> Any:
        url = f"http://127.0.0.1:{closed_port()}" if gone else self.url
        client = self.storage.Client(project="test", credentials=self.credentials.AnonymousCredentials(),
                                     client_options={"api_endpoint": url})
        blob = client.bucket("tinystore").blob(name)
        if gone:  # no retries: a server that is gone is told at once
            get_blob = blob.bucket.get_blob
            blob.bucket.get_blob = lambda *a, **k: get_blob(*a, retry=None, timeout=3, **k)
        return blob

    def upload(self, blob: Any, body: str, f: int) -> None:
        guard_gcs.upload(blob, body, f)

    def fence_of(self, name: str) -> str | None:
        found = self.client(name).bucket.get_blob(name)
        return None if found is None else (found.metadata or {}).get(guard_gcs.METADATA_KEY)

    def exists(self, name: str) -> bool:
        return bool(self.client(name).exists())

    def corrupt(self) -> None:
        blob = self.client(self.resource)
        blob.metadata = {guard_gcs.METADATA_KEY: "not-a-fence"}
        blob.upload_from_string("by hand")

    def driver_error(self, kind: str, err: BaseException) -> bool:
        return kind == "unavailable" and isinstance(err, self.exceptions.ConnectionError)


class Azure(Versioned):
    name = "azure"
    UPLOAD = "upload_blob"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        self.connection = os.environ.get("TINYSTORE_AZURE_CONNECTION_STRING", "")
        if not self.connection:
            raise Failed("TINYSTORE_AZURE_CONNECTION_STRING is unset: run under tests/guards/with-azurite.sh")
        self.blob_module: Any = importlib.import_module("azure.storage.blob")
        self.exceptions: Any = importlib.import_module("azure.core.exceptions")

    def client(self, name: str, gone: bool = False) -> Any:
        connection = self.connection
        if gone:
            connection = ";".join(
                f"BlobEndpoint=http://127.0.0.1:{closed_port()}/devstoreaccount1" if p.startswith("BlobEndpoint=") else p
                for p in connection.split(";")
            )
        service = self.blob_module.BlobServiceClient.from_connection_string(connection, retry_total=0)
        return service.get_blob_client("tinystore", name)

    def upload(self, blob: Any, body: str, f: int) -> None:
        guard_azure.upload_blob(blob, body, f)

    def fence_of(self, name: str) -> str | None:
        try:
            props = self.client(name).get_blob_properties()
        except self.exceptions.ResourceNotFoundError:
            return None
        return next((v for k, v in (props.metadata or {}).items() if k.lower() == guard_azure.METADATA_KEY), None)

    def exists(self, name: str) -> bool:
        return bool(self.client(name).exists())

    def corrupt(self) -> None:
        self.client(self.resource).upload_blob(b"by hand", overwrite=True,
                                               metadata={guard_azure.METADATA_KEY: "not-a-fence"})

    def driver_error(self, kind: str, err: BaseException) -> bool:
        return kind == "unavailable" and isinstance(err, self.exceptions.ServiceRequestError)
