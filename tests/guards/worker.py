"""The contention test's Python writer (README.md beside this file): takes
turns holding key "1" of "guarded" and writes resource "contention/1"
through tinystore.guard, on a SQLite file (sqlite3), PostgreSQL (psycopg)
or MariaDB (PyMySQL, --db mysql://...), with tinystore's sync API; or, with --db s3://BUCKET/KEY, puts
KEY through tinystore.guard.s3 (boto3, the endpoint $TINYSTORE_S3_URL);
or, with --db redis://HOST:PORT/, runs a script behind tinystore.guard.redis's
check that logs the write and sets the key; or, with --db dynamodb://TABLE,
puts the item and a log item in one transaction through
tinystore.guard.dynamodb (boto3, moto at $TINYSTORE_S3_URL); or, with
--db gcs://BUCKET/OBJECT or azure://CONTAINER/BLOB, uploads the object
through tinystore.guard.gcs (google-cloud-storage, $TINYSTORE_GCS_URL) or
tinystore.guard.azure (azure-storage-blob,
$TINYSTORE_AZURE_CONNECTION_STRING).

    worker.py --store ADDRESS --db DB --name NAME --seconds S --ttl-ms T
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from typing import Any

import tinystore
import tinystore.guard

RESOURCE = "contention/1"


class Sqlite:
    """A SQLite file: each write in a BEGIN IMMEDIATE transaction."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, timeout=10.0, isolation_level=None)

    def write(self, fence: int, name: str) -> None:
        self.conn.execute("begin immediate")
        try:
            self.conn.execute("insert into guard_log (fence, writer) values (?, ?)", (f"{fence:040d}", name))
            tinystore.guard.check(self.conn, RESOURCE, fence)
        except BaseException:
            self.conn.execute("rollback")
            raise
        self.conn.execute("commit")


class Postgres:
    """PostgreSQL: each write in a READ COMMITTED transaction."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn: Any = psycopg.connect(url)

    def write(self, fence: int, name: str) -> None:
        with self.conn.transaction():
            self.conn.execute("insert into guard_log (fence, writer) values (%s, %s)", (f"{fence:040d}", name))
            tinystore.guard.check(self.conn, RESOURCE, fence)


class Mysql:
    """MySQL or MariaDB (PyMySQL; --db mysql://USER@HOST:PORT/DB): each
    write in one transaction at the server's default isolation."""

    def __init__(self, url: str) -> None:
        from urllib.parse import urlparse

        import pymysql

        server = urlparse(url)
        self.conn: Any = pymysql.connect(
            host=server.hostname, port=server.port, user=server.username, database=server.path[1:]
        )

    def write(self, fence: int, name: str) -> None:
        self.conn.begin()
        try:
            with self.conn.cursor() as cur:
                cur.execute("insert into guard_log (fence, writer) values (%s, %s)", (f"{fence:040d}", name))
            tinystore.guard.check(self.conn, RESOURCE, fence)
        except BaseException:
            self.conn.rollback()
            raise
        self.conn.commit()


class S3:
    """An object in S3 (moto's server at $TINYSTORE_S3_URL, path-style):
    each write a guarded put of KEY whose body is the JSON of the fence and
    the writer."""

    def __init__(self, url: str) -> None:
        import os

        import boto3  # type: ignore[import-untyped]
        from botocore.config import Config  # type: ignore[import-untyped]

        self.bucket, self.key = url.removeprefix("s3://").split("/", 1)
        self.client: Any = boto3.client(
            "s3", endpoint_url=os.environ["TINYSTORE_S3_URL"], config=Config(s3={"addressing_style": "path"})
        )

    def write(self, fence: int, name: str) -> None:
        import json

        body = json.dumps({"fence": str(fence), "writer": name})
        tinystore.guard.s3.put(self.client, self.bucket, self.key, body, fence)


class Redis:
    """Redis (the server at --db redis://HOST:PORT/): each write your own
    script behind the check, which logs the write in a list in the key's
    hash slot, then sets the key."""

    SCRIPT = "redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2]) redis.call('SET', KEYS[1], ARGV[1]) return 1"

    def __init__(self, url: str) -> None:
        import redis

        self.client = redis.Redis.from_url(url)

    def write(self, fence: int, name: str) -> None:
        import tinystore.guard.redis

        log = f"{{{RESOURCE}}}:log"
        tinystore.guard.redis.script(self.client, RESOURCE, self.SCRIPT, fence, keys=[log], args=[f"{fence:040d}", name])


class Dynamo:
    """DynamoDB (moto's server at $TINYSTORE_S3_URL; --db dynamodb://TABLE):
    each write one guarded TransactWriteItems of the item "contention/1"
    and a log item "log/<fence>/<NAME>/<n>" (n this writer's count of
    writes), both {id, fence, writer}, with the register's put."""

    def __init__(self, url: str) -> None:
        import os

        import boto3

        self.table = url.removeprefix("dynamodb://")
        if not self.table or "/" in self.table:
            raise SystemExit(f"--db {url!r}: expected dynamodb://TABLE")
        self.client: Any = boto3.client("dynamodb", endpoint_url=os.environ["TINYSTORE_S3_URL"])
        self.writes = 0

    def item(self, id: str, fence: int, name: str) -> dict[str, Any]:
        return {"Put": {"TableName": self.table,
                        "Item": {"id": {"S": id}, "fence": {"S": f"{fence:040d}"}, "writer": {"S": name}}}}

    def write(self, fence: int, name: str) -> None:
        import tinystore.guard.dynamodb

        self.writes += 1
        log = f"log/{fence:040d}/{name}/{self.writes}"
        tinystore.guard.dynamodb.transact_write_items(
            self.client, RESOURCE, fence, TransactItems=[self.item(RESOURCE, fence, name), self.item(log, fence, name)]
        )


def _bucket_and_name(url: str, scheme: str, names: str) -> tuple[str, str]:
    bucket, _, name = url.removeprefix(scheme).partition("/")
    if not bucket or not name:
        raise SystemExit(f"--db {url!r}: expected {scheme}{names}")
    return bucket, name


class Gcs:
    """An object in Google Cloud Storage (fake-gcs-server at
    $TINYSTORE_GCS_URL; --db gcs://BUCKET/OBJECT): each write a guarded
    upload whose body is the JSON of the fence and the writer."""

    def __init__(self, url: str) -> None:
        import os

        from google.auth.credentials import AnonymousCredentials
        from google.cloud import storage

        bucket, name = _bucket_and_name(url, "gcs://", "BUCKET/OBJECT")
        client = storage.Client(project="tinystore-test", credentials=AnonymousCredentials(),
                                client_options={"api_endpoint": os.environ["TINYSTORE_GCS_URL"]})
        self.blob = client.bucket(bucket).blob(name)

    def write(self, fence: int, name: str) -> None:
        import json

        import tinystore.guard.gcs

        body = json.dumps({"fence": str(fence), "writer": name})
        tinystore.guard.gcs.upload(self.blob, body, fence, content_type="application/json")


class Azure:
    """A blob in Azure Blob Storage (Azurite, through
    $TINYSTORE_AZURE_CONNECTION_STRING; --db azure://CONTAINER/BLOB): each
    write a guarded upload whose body is the JSON of the fence and the
    writer."""

    def __init__(self, url: str) -> None:
        import os

        from azure.storage.blob import BlobServiceClient

        container, name = _bucket_and_name(url, "azure://", "CONTAINER/BLOB")
        service = BlobServiceClient.from_connection_string(os.environ["TINYSTORE_AZURE_CONNECTION_STRING"])
        self.blob = service.get_blob_client(container, name)

    def write(self, fence: int, name: str) -> None:
        import json

        import tinystore.guard.azure

        tinystore.guard.azure.upload_blob(self.blob, json.dumps({"fence": str(fence), "writer": name}), fence)


def main() -> int:
    parser = argparse.ArgumentParser()
    for flag in ("--store", "--db", "--name"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--ttl-ms", type=int, required=True)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]

    db: Sqlite | Postgres | Mysql | S3 | Redis | Dynamo | Gcs | Azure
    if args.db.startswith("s3://"):
        db = S3(args.db)
    elif args.db.startswith("dynamodb://"):
        db = Dynamo(args.db)
    elif args.db.startswith("gcs://"):
        db = Gcs(args.db)
    elif args.db.startswith("azure://"):
        db = Azure(args.db)
    elif args.db.startswith("mysql://"):
        db = Mysql(args.db)
    elif args.db.startswith("redis://"):
        db = Redis(args.db)
    elif args.db.startswith(("postgresql://", "postgres://")):
        db = Postgres(args.db)
    else:
        db = Sqlite(args.db)
    store = tinystore.connect(args.store)
    locks = store.locks("guarded", ttl=args.ttl_ms / 1000, renew=False)
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        try:
            lease = locks.acquire_sync("1")
        except tinystore.Error as err:
            print(f"ERROR {err.code} {err}")
            continue
        print(f"HELD {lease.fence}")
        time.sleep(0.03)  # the window in which the driver may stop this process
        try:
            db.write(lease.fence, args.name)
            print(f"ACCEPTED {lease.fence}")
        except tinystore.Stale as err:
            print(f"REFUSED {err.fence} {err.largest}")
        except tinystore.Error as err:
            print(f"ERROR {err.code} {err}")
        except Exception as err:  # the database's own errors: say so and go on
            print(f"ERROR io {type(err).__name__}: {err}".replace("\n", " "))
        try:
            lease.release_sync()
        except tinystore.LeaseLost:
            pass
    print("DONE")
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
