"""The guard's conformance matrix in Python: replays every scenario of
vectors/guards.json on every backend it names, through tinystore's public
guard API, against the real servers, and prints one line per cell:

    MATRIX python <backend> <scenario> ok | FAIL <why> | n/a <why>

It exits 1 when any cell fails. The backends:

- sqlite: a SQLite file per scenario, through the standard library's sqlite3;
- postgres: the server at $TINYSTORE_PG_URL through psycopg 3, a schema per
  scenario (search_path), tinystore_fences made by guard.ensure;
- s3: moto's server at $TINYSTORE_S3_URL through boto3, a bucket per
  scenario, the key "r";
- mysql: the MariaDB at $TINYSTORE_MYSQL_URL through PyMySQL, a database
  per scenario, tinystore_fences made by guard.ensure;
- redis: the redis-server at $TINYSTORE_REDIS_URL through redis-py, the
  resource a key per scenario;
- dynamodb: moto's DynamoDB at $TINYSTORE_S3_URL through boto3, a chats
  table per scenario, the register table made by ensure;
- gcs, azure: fake-gcs-server at $TINYSTORE_GCS_URL through
  google-cloud-storage and Azurite at $TINYSTORE_AZURE_CONNECTION_STRING
  through azure-storage-blob, an object per scenario;
- http: wsgiref's server on a loopback port in a thread, its WSGI handler
  behind tinystore.http.WSGIMiddleware guarding a SQLite file, and httpx as
  the client, attaching the fence with tinystore.http.FenceAuth.

A race (s3) pauses the first writer after its first request is answered
by handing the guard a client that runs the second writer then; the
server gone (s3) hands it a client whose later requests go to a loopback
port nothing listens on. No sleeps: every order is made, not waited for.
Each backend is a file of guard_matrix/ beside this script; guard_matrix
itself judges each step's outcome.

Run it from the repository's root under both servers:

    MOTO_SERVER=.venv-python/bin/moto_server bash tests/guards/with-postgres.sh \\
      bash tests/guards/with-s3.sh .venv-python/bin/python bindings-python/tests/guard_conformance.py
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from guard_matrix import LANGUAGE, Backend, Failed
from guard_matrix.dynamodb import Dynamo
from guard_matrix.mysql import Mysql
from guard_matrix.postgres import Postgres
from guard_matrix.redis import Redis
from guard_matrix.s3 import S3
from guard_matrix.sqlite import Sqlite
from guard_matrix.versioned import Azure, Gcs
from guard_matrix.web import Http

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "guards.json"

BACKENDS: dict[str, type[Backend]] = {"sqlite": Sqlite, "postgres": Postgres, "s3": S3, "http": Http, "redis": Redis, "mysql": Mysql,
                                   "dynamodb": Dynamo, "gcs": Gcs, "azure": Azure}


@contextmanager
def opened(kind: type[Backend], scenario: str) -> Iterator[Backend]:
    backend = kind(scenario)
    try:
        yield backend
    finally:
        backend.close()


def cell(backend: str, scenario: dict[str, Any]) -> str:
    """Replays one scenario on one backend: ``ok``, or ``FAIL <why>``."""
    try:
        with opened(BACKENDS[backend], scenario["name"]) as b:
            for number, step in enumerate(scenario["steps"], 1):
                try:
                    b.run(step)
                except Failed as why:
                    raise Failed(f"step {number} ({next(iter(step))}): {why}") from None
    except Failed as why:
        return f"FAIL {why}"
    except Exception as err:  # noqa: BLE001 - the runner's own trouble is a failed cell too
        where = traceback.extract_tb(err.__traceback__)[-1]
        return f"FAIL {type(err).__name__}: {err} (at {Path(where.filename).name}:{where.lineno})"
    return "ok"


def main() -> int:
    with open(VECTORS, encoding="utf-8") as f:
        spec = json.load(f)
    not_applicable: dict[str, str] = spec.get("not_applicable", {}).get(LANGUAGE, {})
    failed = 0
    for scenario in spec["scenarios"]:
        for backend in scenario["backends"]:
            name = scenario["name"]
            if f"{backend}/{name}" in not_applicable:
                result = f"n/a {not_applicable[f'{backend}/{name}']}"
            elif backend not in BACKENDS:
                result = f"FAIL the Python runner has no backend {backend!r}"
            else:
                result = cell(backend, scenario)
            failed += result.startswith("FAIL")
            print(f"MATRIX {LANGUAGE} {backend} {name} {' '.join(result.split())}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
