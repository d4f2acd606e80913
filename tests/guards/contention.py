"""The guard's contention test: writers in several languages take turns
holding one key through one `tinystore serve` and write one resource
through the guard, on SQLite, on PostgreSQL, on MariaDB, on S3 (moto's
server) and on Redis (a script behind the check that logs each write), while
this driver stops some of them with SIGSTOP just after they took the key,
past their TTL, and resumes them. Each writer speaks the protocol of
README.md beside this file.

Checked after, per store: the log's fences rise in commit order (no fence
twice, none lower than one before it); the register holds the largest
logged fence; no refused write left a row; every accepted write left one;
and at least one late write was refused. On S3 a guarded object is one
object per fence under the key, and a write deletes the smaller fences'
objects, so there is no log to read back in order: the log is the accepted
writes in the order their ACCEPTED lines reached this driver (a write is
accepted before its line is sent, and the next holder writes only after
it), and the register is the fence the guarded read gives. Checked also:
every version of every fence object (the bucket has versioning on) holds
the body its key names, every accepted fence has one, and the fences
listed at the end are accepted ones (a refused write removed its own).

On DynamoDB (moto's server) each write is one TransactWriteItems of the
item and a log item (`log/<fence>/<writer>/<n>`) with the register's put:
DynamoDB keeps no order among items, so the log is again the ACCEPTED
order, and the table must hold a log item for every accepted write and for
nothing else (none for a refused one), the item the last accepted write,
and the register (`tinystore_fences`) the largest fence. On Google Cloud
Storage (fake-gcs-server) the run's bucket has versioning on, and the log
is every generation of the object in generation order (the server's own
history of the writes): each generation's fence metadata and body, which
must agree, and must be the accepted writes and only them; the register is
the live generation's fence. Azurite has no blob versioning (its README
lists Blob Versions as unsupported, and an upload answers no version id),
so on Azure Blob the log is the ACCEPTED order, and the blob at the end
must carry the largest accepted fence in its metadata and the last
accepted write's body. Only the Rust and Python writers have these three
modes (LANGUAGES_OF): a run on them uses those of --languages.

Usage: python contention.py [--seconds S] [--languages rust,python,node,go]
       [--dbs sqlite,postgres,mysql,s3,redis,dynamodb,gcs,azure]... [--out DIR]
--dbs may be given more than once: the lists run in turn.
PostgreSQL needs TINYSTORE_PG_URL (run under with-postgres.sh), S3 and
DynamoDB TINYSTORE_S3_URL (with-s3.sh), Redis TINYSTORE_REDIS_URL
(with-redis.sh), MariaDB TINYSTORE_MYSQL_URL (with-mariadb.sh, and PyMySQL),
GCS TINYSTORE_GCS_URL (with-gcs.sh), Azure Blob
TINYSTORE_AZURE_CONNECTION_STRING (with-azurite.sh, and
azure-storage-blob). Needs the Python package tinystore (with psycopg, and
boto3 for S3 and DynamoDB) in the running interpreter, which gives the
register's migration. Prints a JSON report; exits 1 on a
violation, 2 when the run itself failed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import tinystore.guard

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
HERE = Path(__file__).resolve().parent
WORKERS: dict[str, list[str]] = {
    "rust": [str(TARGET / "debug" / "guard-worker")],
    "python": [sys.executable, str(HERE / "worker.py")],
    "node": ["node", str(HERE / "worker.mjs")],
    "go": [str(TARGET / "guard-worker-go")],
}
DBS = ("sqlite", "postgres", "mysql", "s3", "redis", "dynamodb", "gcs", "azure")
# The languages whose writer has a mode for a store, where not all four
# have one; a run on such a store uses those of --languages.
LANGUAGES_OF: dict[str, list[str]] = {
    "dynamodb": ["rust", "python"],
    "gcs": ["rust", "python"],
    "azure": ["rust", "python"],
}
TTL_MS = 300
# How long a stopped writer stays stopped: well past its TTL.
STOP_S = 3 * TTL_MS / 1000
# The chance that a writer is stopped right after it took the key.
STOP_CHANCE = 0.25


class Writer:
    """One worker process and what it said."""

    def __init__(self, name: str, cmd: list[str], log: Path, order: list[tuple[int, str]]) -> None:
        self.name = name
        self.order = order  # every writer's accepted writes, as their lines arrive
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(log, "ab"), text=True)
        self.accepted: list[int] = []
        self.refused: list[tuple[int, int]] = []
        self.errors: list[str] = []
        self.stops = 0
        self.done = False
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            word, *rest = line.split()
            if word == "HELD" and random.random() < STOP_CHANCE:
                self.stop_for(STOP_S)
            elif word == "ACCEPTED":
                self.accepted.append(int(rest[0]))
                self.order.append((int(rest[0]), self.name))
            elif word == "REFUSED":
                self.refused.append((int(rest[0]), int(rest[1])))
            elif word == "ERROR":
                self.errors.append(line.strip())
            elif word == "DONE":
                self.done = True

    def stop_for(self, seconds: float) -> None:
        """SIGSTOP now (inside the writer's 30 ms window after it took the
        key), SIGCONT after `seconds`: its lease runs out meanwhile."""
        self.proc.send_signal(signal.SIGSTOP)
        self.stops += 1
        time.sleep(seconds)
        self.proc.send_signal(signal.SIGCONT)


def prepare_sqlite(path: Path) -> str:
    conn = sqlite3.connect(path)
    conn.execute("create table guard_log (seq integer primary key, fence text not null, writer text not null)")
    tinystore.guard.ensure(conn)
    conn.commit()
    conn.execute("pragma journal_mode=wal")
    conn.close()
    return str(path)


def prepare_postgres(url: str, name: str) -> str:
    """A fresh database on the server at `url`, with the tables; its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"drop database if exists {name}")
        admin.execute(f"create database {name}")
    db = url.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("create table guard_log (seq bigserial primary key, fence text not null, writer text not null)")
        tinystore.guard.ensure(conn)
    return db


def prepare_mysql(url: str, name: str) -> str:
    """A fresh database on the MariaDB at `url`, with the tables; its URL."""
    import pymysql
    from urllib.parse import urlparse

    server = urlparse(url)
    admin = pymysql.connect(host=server.hostname, port=server.port, user=server.username, autocommit=True)
    with admin.cursor() as cur:
        cur.execute(f"drop database if exists {name}")
        cur.execute(f"create database {name}")
    admin.select_db(name)
    with admin.cursor() as cur:
        cur.execute("create table guard_log (seq bigint auto_increment primary key, fence varchar(64) not null, "
                    "writer varchar(64) not null) engine=InnoDB")
    tinystore.guard.ensure(admin)
    admin.close()
    return url.rsplit("/", 1)[0] + "/" + name


def read_back_mysql(db: str) -> tuple[list[tuple[int, str]], str | None, list[str]]:
    import pymysql
    from urllib.parse import urlparse

    server = urlparse(db)
    conn = pymysql.connect(host=server.hostname, port=server.port, user=server.username, database=server.path[1:])
    with conn.cursor() as cur:
        cur.execute("select fence, writer from guard_log order by seq")
        log = [(int(f), w) for f, w in cur.fetchall()]
        cur.execute("select fence from tinystore_fences where resource = 'contention/1'")
        row = cur.fetchone()
    conn.close()
    return log, (row[0] if row else None), []


S3_KEY = "contention/1.json"


def s3_client() -> Any:
    import boto3

    return boto3.client("s3", endpoint_url=os.environ["TINYSTORE_S3_URL"])


def prepare_s3(name: str) -> str:
    """A bucket with versioning on; the s3:// address of the key."""
    s3 = s3_client()
    s3.create_bucket(Bucket=name)
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    return f"s3://{name}/{S3_KEY}"


def read_back_s3(db: str, order: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], str | None, list[str]]:
    """The accepted writes in the order their lines arrived, the fence the
    guarded read gives (40 digits), and what the fence objects' versions
    and the last listing contradict."""
    import tinystore.guard.s3

    bucket = db.removeprefix("s3://").split("/", 1)[0]
    prefix = f"{S3_KEY}/tinystore-fence/"
    s3 = s3_client()
    problems: list[str] = []
    versions: dict[int, list[str]] = {}
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, Prefix=prefix):
        for v in page.get("Versions", []):
            got = s3.get_object(Bucket=bucket, Key=v["Key"], VersionId=v["VersionId"])
            body = json.loads(got["Body"].read())
            named = int(v["Key"].removeprefix(prefix))
            meta = got["Metadata"].get("tinystore-fence")
            if int(body["fence"]) != named or meta != f"{named:040d}":
                problems.append(f"{v['Key']} version {v['VersionId']} holds fence {body['fence']} (metadata {meta})")
            versions.setdefault(named, []).append(str(body["writer"]))
    for fence, writer in order:
        if writer not in versions.get(fence, []):
            problems.append(f"accepted fence {fence} of {writer} has no version of its object")
    accepted = {f for f, _ in order}
    listed = [o["Key"] for p in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix) for o in p.get("Contents", [])]
    for key in listed:
        if int(key.removeprefix(prefix)) not in accepted:
            problems.append(f"{key} is listed, but no writer's write of that fence was accepted")
    found = tinystore.guard.s3.get(s3, bucket, S3_KEY)
    if found is not None and json.loads(found.body)["fence"] != str(found.fence):
        problems.append(f"the guarded read gives fence {found.fence} with the body {found.body!r}")
    return list(order), None if found is None else f"{found.fence:040d}", problems


def dynamo_client() -> Any:
    import boto3

    return boto3.client("dynamodb", endpoint_url=os.environ["TINYSTORE_S3_URL"])


def prepare_dynamodb(name: str) -> str:
    """The run's table (key `id`) and the register table, the register's
    item of the resource removed; the dynamodb:// address of the table."""
    import tinystore.guard.dynamodb

    client = dynamo_client()
    client.create_table(TableName=name, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    client.get_waiter("table_exists").wait(TableName=name)
    tinystore.guard.dynamodb.ensure(client)
    client.delete_item(TableName=tinystore.guard.dynamodb.REGISTER_TABLE, Key={"resource": {"S": "contention/1"}})
    return f"dynamodb://{name}"


def read_back_dynamodb(db: str, order: list[tuple[int, str]],
                       refused: set[int]) -> tuple[list[tuple[int, str]], str | None, list[str]]:
    """The accepted writes in the order their lines arrived, the register's
    fence, and what the table's items contradict: one log item per
    accepted write and none else, the item the last accepted write's."""
    import collections

    import tinystore.guard.dynamodb

    table = db.removeprefix("dynamodb://")
    client = dynamo_client()
    items = [i for page in client.get_paginator("scan").paginate(TableName=table, ConsistentRead=True)
             for i in page["Items"]]
    problems: list[str] = []
    logged: collections.Counter[tuple[int, str]] = collections.Counter()
    for item in items:
        id, fence, writer = item["id"]["S"], item["fence"]["S"], item["writer"]["S"]
        if id == "contention/1":
            if order and (int(fence), writer) != order[-1]:
                problems.append(f"the item holds fence {int(fence)} of {writer}, not the last accepted write {order[-1]}")
            continue
        _, named, by, _n = id.split("/")
        if (named, by) != (fence, writer):
            problems.append(f"log item {id} holds fence {fence} of {writer}")
        if int(fence) in refused:
            problems.append(f"refused fence {int(fence)} of {writer} left a log item {id}")
        logged[(int(fence), writer)] += 1
    accepted = collections.Counter(order)
    for write in sorted((accepted - logged).elements()):
        problems.append(f"accepted fence {write[0]} of {write[1]} has no log item")
    for write in sorted((logged - accepted).elements()):
        problems.append(f"log item of fence {write[0]} of {write[1]}, but no such write was accepted")
    if order and not any(i["id"]["S"] == "contention/1" for i in items):
        problems.append("the item contention/1 is missing")
    row = client.get_item(TableName=tinystore.guard.dynamodb.REGISTER_TABLE, Key={"resource": {"S": "contention/1"}},
                          ConsistentRead=True).get("Item")
    return list(order), (row["fence"]["S"] if row else None), problems


GCS_OBJECT = "contention/1.json"


def gcs_api(method: str, path: str, body: Any = None) -> bytes:
    """One call of fake-gcs-server's JSON API. Not through
    google-cloud-storage: its list_blobs(versions=True) sends
    `versions=True`, which the server does not take for true."""
    import urllib.request

    request = urllib.request.Request(os.environ["TINYSTORE_GCS_URL"] + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return bytes(answer.read())


def prepare_gcs(name: str) -> str:
    """The run's bucket with versioning on; the gcs:// address of the object."""
    made = json.loads(gcs_api("POST", "/storage/v1/b?project=tinystore-test",
                              {"name": name, "versioning": {"enabled": True}}))
    if not made.get("versioning", {}).get("enabled"):
        raise RuntimeError(f"fake-gcs-server made bucket {name} without versioning: {made}")
    return f"gcs://{name}/{GCS_OBJECT}"


def read_back_gcs(db: str, order: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], str | None, list[str]]:
    """Every generation of the object in generation order as the log (its
    fence metadata, and its body's writer), the live generation's fence
    as the register, and what the generations contradict."""
    from urllib.parse import quote

    import tinystore.guard.gcs

    bucket = db.removeprefix("gcs://").split("/", 1)[0]
    versions: list[dict[str, Any]] = []
    token = ""
    while True:
        page = json.loads(gcs_api("GET", f"/storage/v1/b/{bucket}/o?versions=true&prefix={quote(GCS_OBJECT, safe='')}"
                                  + (f"&pageToken={quote(token, safe='')}" if token else "")))
        versions += [v for v in page.get("items", []) if v["name"] == GCS_OBJECT]
        token = page.get("nextPageToken", "")
        if not token:
            break
    versions.sort(key=lambda v: int(v["generation"]))
    problems: list[str] = []
    log: list[tuple[int, str]] = []
    for v in versions:
        meta = (v.get("metadata") or {}).get(tinystore.guard.gcs.METADATA_KEY)
        body = json.loads(gcs_api("GET", f"/storage/v1/b/{bucket}/o/{quote(GCS_OBJECT, safe='')}"
                                  f"?alt=media&generation={v['generation']}"))
        if meta is None or len(meta) != 40 or int(meta) != int(body["fence"]):
            problems.append(f"generation {v['generation']} has fence metadata {meta} and the body {body}")
        log.append((int(body["fence"]), str(body["writer"])))
    live = [v for v in versions if not v.get("timeDeleted")]
    if len(live) != 1 or (versions and live[0] is not versions[-1]):
        problems.append(f"{len(live)} live generations, not the last one alone")
    accepted = set(order)
    for write in log:
        if write not in accepted:
            problems.append(f"generation of fence {write[0]} by {write[1]}, but that write was not accepted")
    in_log = set(log)
    for write in order:
        if write not in in_log:
            problems.append(f"accepted fence {write[0]} of {write[1]} has no generation")
    register = (live[-1].get("metadata") or {}).get(tinystore.guard.gcs.METADATA_KEY) if live else None
    return log, register, problems


AZURE_BLOB = "contention/1.json"


def azure_service() -> Any:
    from azure.storage.blob import BlobServiceClient

    return BlobServiceClient.from_connection_string(os.environ["TINYSTORE_AZURE_CONNECTION_STRING"])


def prepare_azure(name: str) -> str:
    """The run's container; the azure:// address of the blob."""
    azure_service().create_container(name)
    return f"azure://{name}/{AZURE_BLOB}"


def read_back_azure(db: str, order: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], str | None, list[str]]:
    """Azurite keeps no versions: the accepted writes in the order their
    lines arrived, the blob's fence metadata as the register, and whether
    its body is the last accepted write's."""
    import tinystore.guard.azure

    container = db.removeprefix("azure://").split("/", 1)[0]
    blob = azure_service().get_blob_client(container, AZURE_BLOB)
    problems: list[str] = []
    if not blob.exists():
        return list(order), None, problems
    props = blob.get_blob_properties()
    meta = next((v for k, v in (props.metadata or {}).items() if k.lower() == tinystore.guard.azure.METADATA_KEY), None)
    body = json.loads(blob.download_blob().readall())
    if order and (int(body["fence"]), str(body["writer"])) != order[-1]:
        problems.append(f"the blob's body is {body}, not the last accepted write {order[-1]}")
    if meta is None or int(meta) != int(body["fence"]):
        problems.append(f"the blob's fence metadata {meta} is not its body's fence {body['fence']}")
    return list(order), meta, problems


REDIS_LOG = "{contention/1}:log"
REDIS_REGISTER = "{contention/1}:tinystore-fence"


def prepare_redis() -> str:
    """The redis-server's URL, its keys of this test removed."""
    import redis

    url = os.environ.get("TINYSTORE_REDIS_URL")
    if not url:
        raise RuntimeError("TINYSTORE_REDIS_URL is not set: run under tests/guards/with-redis.sh")
    client = redis.Redis.from_url(url)
    client.delete("contention/1", REDIS_LOG, REDIS_REGISTER)
    client.close()
    return url


def read_back_redis(db: str) -> tuple[list[tuple[int, str]], str | None, list[str]]:
    """The log the writers' scripts appended, in the order Redis ran them,
    and the fence key's text; the key must hold the last logged fence."""
    import redis

    client = redis.Redis.from_url(db, decode_responses=True)
    entries = [e.split(" ", 1) for e in client.lrange(REDIS_LOG, 0, -1)]
    log = [(int(f), w) for f, w in entries]
    register, value = client.get(REDIS_REGISTER), client.get("contention/1")
    client.close()
    problems = []
    if log and value != f"{log[-1][0]:040d}":
        problems.append(f"the key holds {value}, not the last logged fence {log[-1][0]}")
    return log, register, problems


def read_back(db: str, order: list[tuple[int, str]],
              refused: set[int]) -> tuple[list[tuple[int, str]], str | None, list[str]]:
    """The log in commit order, the register's text for the resource, and
    what else the store contradicts."""
    if db.startswith("s3://"):
        return read_back_s3(db, order)
    if db.startswith("dynamodb://"):
        return read_back_dynamodb(db, order, refused)
    if db.startswith("gcs://"):
        return read_back_gcs(db, order)
    if db.startswith("azure://"):
        return read_back_azure(db, order)
    if db.startswith("redis://"):
        return read_back_redis(db)
    if db.startswith("mysql://"):
        return read_back_mysql(db)
    if db.startswith("postgres"):
        import psycopg

        with psycopg.connect(db) as conn:
            log = [(int(f), w) for f, w in conn.execute("select fence, writer from guard_log order by seq")]
            row = conn.execute("select fence from tinystore_fences where resource = 'contention/1'").fetchone()
    else:
        conn = sqlite3.connect(db)
        log = [(int(f), w) for f, w in conn.execute("select fence, writer from guard_log order by seq")]
        row = conn.execute("select fence from tinystore_fences where resource = 'contention/1'").fetchone()
        conn.close()
    return log, (row[0] if row else None), []


def check(db: str, writers: list[Writer], order: list[tuple[int, str]]) -> dict[str, Any]:
    refused = [r for w in writers for r in w.refused]
    log, register, problems = read_back(db, order, {f for f, _ in refused})
    fences = [f for f, _ in log]
    writer_of = dict(log)
    accepted = sorted(f for w in writers for f in w.accepted)
    violations: list[str] = list(problems)
    for before, after in zip(fences, fences[1:]):
        if after <= before:
            violations.append(
                f"the log's fences went from {before} ({writer_of[before]}) to {after} ({writer_of[after]})"
            )
    if sorted(fences) != accepted:
        violations.append(f"the log ({len(fences)} rows) is not the accepted writes ({len(accepted)})")
    logged = set(fences)
    for fence, largest in refused:
        if fence in logged:
            violations.append(f"refused fence {fence} left a row in the log")
        if largest <= fence:
            violations.append(f"fence {fence} was refused with a largest of {largest}")
    if fences and register != f"{max(fences):040d}":
        violations.append(f"the register holds {register}, not the largest logged fence {max(fences)}")
    if not refused:
        violations.append("no late write was refused: the test did not test")
    if len(fences) < 10:
        violations.append(f"only {len(fences)} writes were accepted")
    return {
        "accepted": len(fences),
        "refused": len(refused),
        "stops": sum(w.stops for w in writers),
        "errors": [e for w in writers for e in w.errors][:10],
        "writers": sorted({w for _, w in log}),
        "violations": violations,
    }


def run(db_kind: str, languages: list[str], seconds: int, out: Path) -> dict[str, Any]:
    languages = [lang for lang in languages if lang in LANGUAGES_OF.get(db_kind, languages)]
    if not languages:
        raise RuntimeError(f"no writer of --languages has a {db_kind} mode: {db_kind} takes {LANGUAGES_OF[db_kind]}")
    store = out / f"store-{db_kind}"
    store.mkdir()
    server_log = open(out / f"server-{db_kind}.log", "ab")
    server = subprocess.Popen([str(TARGET / "debug" / "tinystore"), "serve", str(store)], stdout=server_log, stderr=server_log)
    try:
        sock = store / "tinystore.sock"
        limit = time.monotonic() + 30
        while not sock.exists():
            if server.poll() is not None or time.monotonic() > limit:
                raise RuntimeError(f"tinystore serve did not start; see {out}/server-{db_kind}.log")
            time.sleep(0.02)
        if db_kind in ("s3", "dynamodb"):
            if not os.environ.get("TINYSTORE_S3_URL"):
                raise RuntimeError("TINYSTORE_S3_URL is not set: run under tests/guards/with-s3.sh")
            db = (prepare_s3 if db_kind == "s3" else prepare_dynamodb)(f"contention-{os.getpid()}")
        elif db_kind == "gcs":
            if not os.environ.get("TINYSTORE_GCS_URL"):
                raise RuntimeError("TINYSTORE_GCS_URL is not set: run under tests/guards/with-gcs.sh")
            db = prepare_gcs(f"contention-{os.getpid()}")
        elif db_kind == "azure":
            if not os.environ.get("TINYSTORE_AZURE_CONNECTION_STRING"):
                raise RuntimeError("TINYSTORE_AZURE_CONNECTION_STRING is not set: run under tests/guards/with-azurite.sh")
            db = prepare_azure(f"contention-{os.getpid()}")
        elif db_kind == "redis":
            db = prepare_redis()
        elif db_kind == "mysql":
            url = os.environ.get("TINYSTORE_MYSQL_URL")
            if not url:
                raise RuntimeError("TINYSTORE_MYSQL_URL is not set: run under tests/guards/with-mariadb.sh")
            db = prepare_mysql(url, f"contention_{os.getpid()}")
        elif db_kind == "postgres":
            url = os.environ.get("TINYSTORE_PG_URL")
            if not url:
                raise RuntimeError("TINYSTORE_PG_URL is not set: run under tests/guards/with-postgres.sh")
            db = prepare_postgres(url, f"contention_{os.getpid()}")
        else:
            db = prepare_sqlite(out / "guarded.db")
        writers = []
        order: list[tuple[int, str]] = []
        for lang in languages:
            for i in range(2):
                name = f"{lang}-{i}"
                cmd = WORKERS[lang] + ["--store", f"unix:{sock}", "--db", db, "--name", name,
                                       "--seconds", str(seconds), "--ttl-ms", str(TTL_MS)]
                writers.append(Writer(name, cmd, out / f"{name}-{db_kind}.log", order))
        for w in writers:
            try:
                w.proc.wait(timeout=seconds + 60)
            except subprocess.TimeoutExpired:
                w.proc.kill()
            w.reader.join(timeout=10)
        failed = [w.name for w in writers if w.proc.returncode != 0 or not w.done]
        if failed:
            raise RuntimeError(f"writers {failed} did not finish cleanly; see their logs in {out}")
        report = check(db, writers, order)
        missing = set(f"{l}-{i}" for l in languages for i in range(2)) - set(report["writers"])
        if missing:
            report["violations"].append(f"writers {sorted(missing)} never wrote")
        report["languages"] = languages
        return report
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--languages", default="rust,python,node,go")
    parser.add_argument("--dbs", action="append", help="default sqlite,postgres; may be given more than once")
    parser.add_argument("--out")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="tinystore-contention-"))
    out.mkdir(parents=True, exist_ok=True)
    languages = args.languages.split(",")
    unknown = set(languages) - set(WORKERS)
    if unknown:
        print(f"unknown languages {sorted(unknown)}: choose among {sorted(WORKERS)}", file=sys.stderr)
        return 2
    kinds = ",".join(args.dbs or ["sqlite,postgres"]).split(",")
    unknown = set(kinds) - set(DBS)
    if unknown:
        print(f"unknown dbs {sorted(unknown)}: choose among {list(DBS)}", file=sys.stderr)
        return 2
    reports: dict[str, Any] = {}
    try:
        for kind in kinds:
            reports[kind] = run(kind, languages, args.seconds, out)
    except (RuntimeError, OSError) as err:
        print(json.dumps({"failed": str(err), "reports": reports}, indent=1))
        return 2
    print(json.dumps(reports, indent=1))
    return 1 if any(r["violations"] for r in reports.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
