"""What tinystore.guard.dynamodb, .gcs and .azure cost per write in Python,
each against the same write unguarded, on the emulators the Makefile
starts: a plain ``put_item`` against ``guard.dynamodb.put_item`` (one
TransactWriteItems) on moto ($TINYSTORE_S3_URL), a plain
``upload_from_string`` against ``guard.gcs.upload`` (a metadata read, then
an upload on the generation) on fake-gcs-server ($TINYSTORE_GCS_URL), and a
plain ``upload_blob`` against ``guard.azure.upload_blob`` (a properties
read, then an upload on the ETag) on Azurite
($TINYSTORE_AZURE_CONNECTION_STRING). Plain and guarded run in turn, sample
by sample. Prints the median µs per write of each and the ratios. Run by
`make bench-guards-cloud-python`."""

from __future__ import annotations

import importlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from tinystore.guard import azure as guard_azure
from tinystore.guard import dynamodb as guard_dynamodb
from tinystore.guard import gcs as guard_gcs

SAMPLES = 9
WRITES = 100


def pair(plain: Callable[[int], None], guarded: Callable[[int], None]) -> tuple[float, float]:
    """The median µs per write of ``plain`` and ``guarded``, in turn; the
    first round warms the clients up, unmeasured."""
    n = 0
    samples: tuple[list[float], list[float]] = ([], [])
    for round_ in range(SAMPLES + 1):
        for i, write in enumerate((plain, guarded)):
            start = time.perf_counter()
            for _ in range(WRITES):
                n += 1
                write(n)
            if round_ > 0:
                samples[i].append((time.perf_counter() - start) * 1e6 / WRITES)
    return statistics.median(samples[0]), statistics.median(samples[1])


def dynamodb(url: str) -> tuple[float, float]:
    boto3: Any = importlib.import_module("boto3")
    client = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                          aws_secret_access_key="test")
    client.create_table(TableName="bench-chats", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    guard_dynamodb.ensure(client)

    def item(key: str, n: int) -> dict[str, Any]:
        return {"id": {"S": key}, "summary": {"S": f"summary {n}"}}

    return pair(
        lambda n: client.put_item(TableName="bench-chats", Item=item("plain", n)),
        lambda n: guard_dynamodb.put_item(client, "bench/guarded", n, TableName="bench-chats",
                                          Item=item("guarded", n)),
    )


def gcs(url: str) -> tuple[float, float]:
    storage: Any = importlib.import_module("google.cloud.storage")
    credentials: Any = importlib.import_module("google.auth.credentials")
    client = storage.Client(project="bench", credentials=credentials.AnonymousCredentials(),
                            client_options={"api_endpoint": url})
    bucket = client.bucket("tinystore")
    plain, guarded = bucket.blob("bench-plain"), bucket.blob("bench-guarded")
    return pair(
        lambda n: plain.upload_from_string(f"summary {n}"),
        lambda n: guard_gcs.upload(guarded, f"summary {n}", n),
    )


def azure(connection: str) -> tuple[float, float]:
    blob_module: Any = importlib.import_module("azure.storage.blob")
    service = blob_module.BlobServiceClient.from_connection_string(connection)
    plain = service.get_blob_client("tinystore", "bench-plain")
    guarded = service.get_blob_client("tinystore", "bench-guarded")
    return pair(
        lambda n: plain.upload_blob(f"summary {n}", overwrite=True),
        lambda n: guard_azure.upload_blob(guarded, f"summary {n}", n),
    )


def main() -> int:
    env = {k: os.environ.get(k, "") for k in ("TINYSTORE_S3_URL", "TINYSTORE_GCS_URL",
                                              "TINYSTORE_AZURE_CONNECTION_STRING")}
    missing = [k for k, v in env.items() if not v]
    if missing:
        print(f"{', '.join(missing)} unset: run with make bench-guards-cloud-python", file=sys.stderr)
        return 2
    rows = [
        ("DynamoDB (moto), boto3", "`put_item`", dynamodb(env["TINYSTORE_S3_URL"])),
        ("GCS (fake-gcs-server), google-cloud-storage", "`upload_from_string`", gcs(env["TINYSTORE_GCS_URL"])),
        ("Azure Blob (Azurite), azure-storage-blob", "`upload_blob`",
         azure(env["TINYSTORE_AZURE_CONNECTION_STRING"])),
    ]
    print(f"median of {SAMPLES} samples of {WRITES} writes, plain and guarded in turn")
    print("| store, client | the plain write | µs plain | µs guarded | guarded over plain |")
    print("| --- | --- | ---: | ---: | ---: |")
    for store, write, (p, g) in rows:
        print(f"| {store} | {write} | {p:.0f} | {g:.0f} | {g / p:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
