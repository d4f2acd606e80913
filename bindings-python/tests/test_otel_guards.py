"""The guards on S3 and DynamoDB (moto, $TINYSTORE_S3_URL), Google Cloud
Storage (fake-gcs-server, $TINYSTORE_GCS_URL) and Azure Blob (Azurite,
$TINYSTORE_AZURE_CONNECTION_STRING) and Redis (redis-server,
$TINYSTORE_REDIS_URL) given the lease itself: a late write
refused is told to the lease's store, whose status counts it per group
(embedded and served), and each check is a ``tinystore.guard.check`` span,
accepted or stale, with the fence, the resource and the backend, read back
from the SDK's in-memory exporter, the refusal counted on its backend.

A store whose server's variable is unset skips, unless its
TINYSTORE_REQUIRE_* is 1, when it fails (the guards' own tests say so)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import tinystore
from refused import counts, until_counts
from test_otel import EXPORTER, READER, _providers, attrs
from tinystore.testing import TestStore


def _required(var: str, require: str) -> str | None:
    value = os.environ.get(var)
    if not value and os.environ.get(require) == "1":
        raise RuntimeError(f"{require}=1 but {var} is unset: run under tests/guards/with-*.sh")
    return value


S3_URL = _required("TINYSTORE_S3_URL", "TINYSTORE_REQUIRE_S3")
GCS_URL = _required("TINYSTORE_GCS_URL", "TINYSTORE_REQUIRE_GCS")
AZURE = _required("TINYSTORE_AZURE_CONNECTION_STRING", "TINYSTORE_REQUIRE_AZURE")
REDIS_URL = _required("TINYSTORE_REDIS_URL", "TINYSTORE_REQUIRE_REDIS")


@pytest.fixture(params=["open", "served"])
def kit(request: pytest.FixtureRequest) -> Iterator[TestStore]:
    _providers()
    with TestStore.open() if request.param == "open" else TestStore.served() as made:
        yield made


def refused_on(backend: str) -> int:
    data = READER.get_metrics_data()
    total = 0
    for resource in data.resource_metrics if data is not None else []:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == "tinystore.guard.refused":
                    for point in metric.data.data_points:
                        if dict(point.attributes or {}) == {"tinystore.backend": backend}:
                            total += int(getattr(point, "value"))
    return total


def told_and_traced(kit: TestStore, backend: str, resource: str, write: Callable[[tinystore.Lease], object]) -> None:
    """Writes under a later lease (accepted), then under the lease it
    overtook (stale), each given the lease itself, and checks what the
    store, the spans and the counter on ``backend`` saw."""
    group = f"otel-{backend}"
    locks = kit.store.locks(group)
    old = locks.acquire_sync("k")
    old.release_sync()
    new = locks.acquire_sync("k")
    write(new)
    before = refused_on(backend)
    with pytest.raises(tinystore.Stale) as refused:
        write(old)
    assert refused.value.resource == resource
    until_counts(kit.store, [(group, "lock", 1)])
    checks = [
        attrs(s)
        for s in EXPORTER.get_finished_spans()
        if s.name == "tinystore.guard.check" and attrs(s).get("tinystore.resource") == resource
    ]
    assert [(c["tinystore.fence"], c["tinystore.outcome"], c["tinystore.backend"]) for c in checks] == [
        (tinystore.fence_text(new.fence), "accepted", backend),
        (tinystore.fence_text(old.fence), "stale", backend),
    ]
    assert checks[1]["tinystore.largest"] == tinystore.fence_text(new.fence)
    assert refused_on(backend) == before + 1
    new.release_sync()


def _aws(service: str) -> Any:
    boto3: Any = pytest.importorskip("boto3")
    return boto3.client(
        service, endpoint_url=S3_URL, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
    )


@pytest.mark.skipif(not S3_URL, reason="TINYSTORE_S3_URL is unset (run under tests/guards/with-s3.sh)")
def test_the_s3_guard_given_the_lease(kit: TestStore) -> None:
    from tinystore.guard import s3

    client = _aws("s3")
    bucket = f"otel-{uuid.uuid4().hex[:8]}"
    client.create_bucket(Bucket=bucket)
    told_and_traced(kit, "s3", f"{bucket}/chats/42", lambda lease: s3.put(client, bucket, "chats/42", b"{}", lease))


@pytest.mark.skipif(not S3_URL, reason="TINYSTORE_S3_URL is unset (run under tests/guards/with-s3.sh)")
def test_the_dynamodb_guard_given_the_lease(kit: TestStore) -> None:
    from tinystore.guard import dynamodb

    client = _aws("dynamodb")
    chats, register = f"chats-{uuid.uuid4().hex[:8]}", f"fences-{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=chats,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    dynamodb.ensure(client, register)
    resource = f"chats/{uuid.uuid4().hex[:8]}"

    def write(lease: tinystore.Lease) -> None:
        dynamodb.put_item(client, resource, lease, table=register, TableName=chats,
                          Item={"id": {"S": "42"}, "summary": {"S": "the summary"}})

    told_and_traced(kit, "dynamodb", resource, write)


@pytest.mark.skipif(not GCS_URL, reason="TINYSTORE_GCS_URL is unset (run under tests/guards/with-gcs.sh)")
def test_the_gcs_guard_given_the_lease(kit: TestStore) -> None:
    from tinystore.guard import gcs

    storage: Any = pytest.importorskip("google.cloud.storage")
    credentials: Any = pytest.importorskip("google.auth.credentials")
    client = storage.Client(project="test", credentials=credentials.AnonymousCredentials(),
                            client_options={"api_endpoint": GCS_URL})
    name = f"otel/{uuid.uuid4().hex[:8]}"
    blob = client.bucket("tinystore").blob(name)
    told_and_traced(kit, "gcs", f"tinystore/{name}", lambda lease: gcs.upload(blob, "the summary", lease))


@pytest.mark.skipif(not AZURE, reason="TINYSTORE_AZURE_CONNECTION_STRING is unset (run under with-azurite.sh)")
def test_the_azure_guard_given_the_lease(kit: TestStore) -> None:
    from tinystore.guard import azure

    blobs: Any = pytest.importorskip("azure.storage.blob")
    service = blobs.BlobServiceClient.from_connection_string(str(AZURE), retry_total=0)
    name = f"otel/{uuid.uuid4().hex[:8]}"
    blob = service.get_blob_client("tinystore", name)
    told_and_traced(kit, "azure", f"tinystore/{name}", lambda lease: azure.upload_blob(blob, "the summary", lease))


@pytest.mark.skipif(not REDIS_URL, reason="TINYSTORE_REDIS_URL is unset (run under tests/guards/with-redis.sh)")
def test_the_redis_guard_given_the_lease(kit: TestStore) -> None:
    from tinystore.guard import redis as guard_redis

    redis: Any = pytest.importorskip("redis")
    client = redis.Redis.from_url(str(REDIS_URL))
    key = f"otel:{uuid.uuid4().hex[:8]}"
    told_and_traced(kit, "redis", key, lambda lease: guard_redis.set(client, key, "the summary", lease))
    client.close()


def test_http_answers_given_the_lease(kit: TestStore, tmp_path: Any) -> None:
    """A request through ``FenceAuth(lease)`` (requests) whose write a
    real SQLite guard in a WSGI service refuses with 409: told and traced
    on the backend http; with httpx, :func:`tinystore.http.answered` does
    the same on the response."""
    import sqlite3
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    import httpx
    import requests

    import tinystore.http as th

    path = tmp_path / "app.db"
    with sqlite3.connect(path) as made:
        tinystore.guard.ensure(made)

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        db = sqlite3.connect(path)
        try:
            with db:
                tinystore.guard.check(db, "chats/42", environ[th.ENVIRON_KEY])
        finally:
            db.close()
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"saved"]

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = make_server("127.0.0.1", 0, th.WSGIMiddleware(app), WSGIServer, Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host = f"127.0.0.1:{server.server_port}"
    calls = iter(["httpx", "requests"])

    def write(lease: tinystore.Lease) -> None:
        url = f"http://{host}/chats/42"
        if next(calls) == "httpx":  # the later lease: answered() reads the 200
            answer = httpx.post(url, headers=th.headers(lease.fence), timeout=30)
            refused = th.answered(answer, lease)
            if refused is not None:
                raise refused
            assert answer.status_code == 200
        else:  # the late lease: FenceAuth's hook tells and traces the 409
            response = requests.post(url, auth=th.FenceAuth(lease), timeout=30)
            assert response.status_code == th.CONFLICT, response.text
            raise tinystore.Stale("refused", f"{host}/chats/42", lease.fence, 0)

    try:
        told_and_traced(kit, "http", f"{host}/chats/42", write)
    finally:
        server.shutdown()
        server.server_close()
