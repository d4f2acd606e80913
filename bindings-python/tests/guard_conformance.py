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
- http: wsgiref's server on a loopback port in a thread, its WSGI handler
  behind tinystore.http.WSGIMiddleware guarding a SQLite file, and httpx as
  the client, attaching the fence with tinystore.http.FenceAuth.

A race (s3) pauses the first writer after its first request is answered
by handing the guard a client that runs the second writer then; the
server gone (s3) hands it a client whose later requests go to a loopback
port nothing listens on. No sleeps: every order is made, not waited for.

Run it from the repository's root under both servers:

    MOTO_SERVER=.venv-python/bin/moto_server bash tests/guards/with-postgres.sh \\
      bash tests/guards/with-s3.sh .venv-python/bin/python bindings-python/tests/guard_conformance.py
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import sys
import tempfile
import threading
import traceback
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import tinystore
import tinystore.http as th
from tinystore import guard
from tinystore.guard import s3 as guard_s3

LANGUAGE = "python"
VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "guards.json"
BAD_RESOURCES = ["", "x" * 1025, "a\u0000b", "chats/\ud800"]

Outcome = BaseException | None
Step = dict[str, Any]


class Failed(Exception):
    """A cell's expectation, not met."""


def fence(text: str) -> int:
    return tinystore.parse_fence(text)


def expect(condition: bool, why: str) -> None:
    if not condition:
        raise Failed(why)


def describe(outcome: Outcome) -> str:
    return "accepted" if outcome is None else f"{type(outcome).__module__}.{type(outcome).__qualname__}: {outcome}"


class Backend:
    """One backend's I/O for one scenario; the expectations are judged
    here, the same for every backend but for the driver's own errors."""

    name = ""

    def __init__(self, scenario: str) -> None:
        self.scenario = scenario
        self.resource = f"{LANGUAGE}-{scenario}-{uuid.uuid4().hex[:8]}/r"

    # -- each backend's own I/O ------------------------------------------

    def write(self, fence: int, body: str | None, resource: str | None = None) -> Outcome:
        raise NotImplementedError

    def recorded(self) -> int | None:
        raise NotImplementedError

    def corrupt(self) -> None:
        raise NotImplementedError

    def nothing_written(self) -> Callable[[], None]:
        """A check, to call after a refused write, that it changed nothing."""
        raise NotImplementedError

    def driver_error(self, kind: str, err: BaseException) -> bool:
        """Whether ``err`` is the driver's own error of core's ``kind``
        (serialization, permission, unavailable), told by its own type."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    # -- the steps -------------------------------------------------------

    def run(self, step: Step) -> None:
        action = next(k for k in step if k not in ("expect", "expect_between"))
        args: dict[str, Any] = step[action]
        getattr(self, f"step_{action}")(args, step)

    def step_write(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        self.judge(step["expect"], self.write(f, args.get("body")), f)

    def step_recorded(self, args: dict[str, Any], step: Step) -> None:
        want = None if args["fence"] == "none" else fence(args["fence"])
        got = self.recorded()
        expect(got == want, f"recorded {got}, expected {want}")

    def step_corrupt(self, args: dict[str, Any], step: Step) -> None:
        self.corrupt()

    def step_bad_resource(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        for bad in BAD_RESOURCES:
            unchanged = self.nothing_written()
            outcome = self.write(f, None, resource=bad)
            expect(isinstance(outcome, tinystore.Invalid), f"resource {bad[:20]!r}: {describe(outcome)}")
            unchanged()

    def judge(self, want: Any, outcome: Outcome, f: int, resource: str | None = None) -> None:
        resource = self.stale_resource() if resource is None else resource
        got = describe(outcome)
        if want == "accepted":
            expect(outcome is None, f"expected accepted, got {got}")
        elif isinstance(want, dict) and "stale" in want:
            expect(isinstance(outcome, tinystore.Stale), f"expected stale, got {got}")
            assert isinstance(outcome, tinystore.Stale)
            three = (outcome.resource, outcome.fence, outcome.largest)
            wanted = (resource, f, fence(want["stale"]["largest"]))
            expect(three == wanted, f"stale carries {three}, expected {wanted}")
        elif want == "corrupt":
            expect(isinstance(outcome, tinystore.Corrupt), f"expected corrupt, got {got}")
            expect(resource in str(outcome), f"the corrupt error does not name {resource!r}: {got}")
        elif want == "invalid":
            expect(isinstance(outcome, tinystore.Invalid), f"expected invalid, got {got}")
        elif want == "missing_register":
            expect(isinstance(outcome, tinystore.Invalid), f"expected invalid, got {got}")
            expect("ensure" in str(outcome), f"the message does not say to run ensure: {got}")
            cause = outcome.__cause__ if outcome is not None else None
            expect(self.is_driver(cause), f"its cause is not the driver's error: {describe(cause)}")
        elif want == "not_in_transaction":
            expect(isinstance(outcome, tinystore.Invalid), f"expected invalid, got {got}")
            expect("outside a transaction" in str(outcome), f"the message does not say so: {got}")
        elif want in ("serialization", "permission", "unavailable"):
            expect(outcome is not None and not isinstance(outcome, tinystore.Error), f"not the driver's own error: {got}")
            assert outcome is not None
            expect(self.driver_error(want, outcome), f"not the driver's {want} error: {got}")
            serialization = guard.is_serialization_failure(outcome)
            expect(serialization == (want == "serialization"), f"is_serialization_failure is {serialization}: {got}")
        else:
            raise Failed(f"the runner does not know the expectation {want!r}")

    def is_driver(self, err: BaseException | None) -> bool:
        return err is not None and not isinstance(err, tinystore.Error)

    def stale_resource(self) -> str:
        return self.resource


# --- SQL (sqlite3, psycopg) --------------------------------------------------


class Sql(Backend):
    """What the SQL backends share: a notes table written in each guarded
    transaction, kept when accepted, rolled back when refused."""

    placeholder = "?"

    def connect(self, **kwargs: Any) -> Any:
        raise NotImplementedError

    def admin(self) -> Any:
        """A connection that commits each statement."""
        raise NotImplementedError

    def transaction(self, conn: Any) -> Any:
        raise NotImplementedError

    def sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    def write(self, fence: int, body: str | None, resource: str | None = None) -> Outcome:
        resource = self.resource if resource is None else resource
        before = self.notes()
        conn = self.connect()
        try:
            with self.transaction(conn):
                conn.execute(self.sql("insert into notes values (?)"), (str(fence),))
                guard.check(conn, resource, fence)
        except Exception as err:
            outcome: Outcome = err
        else:
            outcome = None
        finally:
            conn.close()
        kept = self.notes() - before
        expect(kept == (1 if outcome is None else 0), f"the caller's own write: {kept} rows kept, outcome {describe(outcome)}")
        return outcome

    def notes(self) -> int:
        with closing(self.admin()) as conn:
            return int(conn.execute("select count(*) from notes").fetchone()[0])

    def registers(self) -> list[tuple[str, str]]:
        with closing(self.admin()) as conn:
            return [(str(r), str(f)) for r, f in conn.execute("select resource, fence from tinystore_fences").fetchall()]

    def recorded(self) -> int | None:
        with closing(self.admin()) as conn:
            row = conn.execute(self.sql("select fence from tinystore_fences where resource = ?"), (self.resource,)).fetchone()
        return None if row is None else fence(str(row[0]))

    def corrupt(self) -> None:
        with closing(self.admin()) as conn:
            conn.execute(self.sql("update tinystore_fences set fence = 'not-a-fence' where resource = ?"), (self.resource,))

    def nothing_written(self) -> Callable[[], None]:
        before = (self.registers(), self.notes())

        def check() -> None:
            after = (self.registers(), self.notes())
            expect(after == before, f"a refused write changed the register or notes: {before} -> {after}")

        return check

    def step_drop_register(self, args: dict[str, Any], step: Step) -> None:
        with closing(self.admin()) as conn:
            conn.execute("drop table tinystore_fences")

    def step_outside_transaction(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        with closing(self.autocommit()) as conn:
            try:
                guard.check(conn, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
        self.judge(step["expect"], outcome, f)
        expect(self.recorded() is None, "a check outside a transaction recorded its fence")

    def autocommit(self) -> Any:
        raise NotImplementedError


class Sqlite(Sql):
    name = "sqlite"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        self.dir = tempfile.TemporaryDirectory(prefix="tinystore-matrix-")
        self.path = Path(self.dir.name) / "app.db"
        with closing(self.admin()) as conn:
            conn.execute("create table notes (fence text)")
            guard.ensure(conn)

    def connect(self, **kwargs: Any) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=float(kwargs.get("timeout", 5.0)))  # the module's default: it begins before an INSERT

    def admin(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, isolation_level=None)

    def autocommit(self) -> sqlite3.Connection:
        return self.admin()

    def transaction(self, conn: Any) -> Any:
        return conn  # `with conn:` commits, or rolls back on an exception

    def close(self) -> None:
        self.dir.cleanup()

    def driver_error(self, kind: str, err: BaseException) -> bool:
        name = str(getattr(err, "sqlite_errorname", ""))
        prefix = {"serialization": "SQLITE_BUSY", "permission": "SQLITE_READONLY"}.get(kind)
        return isinstance(err, sqlite3.Error) and prefix is not None and name.startswith(prefix)

    def is_driver(self, err: BaseException | None) -> bool:
        return isinstance(err, sqlite3.Error)

    def step_serialization(self, args: dict[str, Any], step: Step) -> None:
        with closing(self.admin()) as conn:
            conn.execute("pragma journal_mode=wal")
        a = self.autocommit()
        try:
            a.execute("begin")
            a.execute("select * from tinystore_fences").fetchall()  # A's snapshot
            self.judge("accepted", self.write(fence(args["between"]), None), fence(args["between"]))
            f = fence(args["fence"])
            try:
                guard.check(a, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
            a.execute("rollback")
        finally:
            a.close()
        self.judge(step["expect"], outcome, f)

    def step_permission(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        try:
            with conn:
                guard.check(conn, self.resource, f)
            outcome: Outcome = None
        except Exception as err:
            outcome = err
        finally:
            conn.close()
        self.judge(step["expect"], outcome, f)


class Postgres(Sql):
    name = "postgres"
    placeholder = "%s"
    READER = "tinystore_guard_reader"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        import psycopg

        self.psycopg = psycopg
        url = os.environ.get("TINYSTORE_PG_URL")
        if not url:
            raise Failed("TINYSTORE_PG_URL is unset: run under tests/guards/with-postgres.sh")
        self.url = url
        self.schema = f"matrix_py_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"create schema {self.schema}")
        with closing(self.admin()) as conn:
            conn.execute("create table notes (fence text)")
            guard.ensure(conn)

    def connect(self, **kwargs: Any) -> Any:
        return self.psycopg.connect(self.url, options=f"-c search_path={self.schema}", **kwargs)

    def admin(self) -> Any:
        return self.connect(autocommit=True)

    def autocommit(self) -> Any:
        return self.admin()

    def transaction(self, conn: Any) -> Any:
        return conn.transaction()

    def close(self) -> None:
        with self.psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"drop schema if exists {self.schema} cascade")

    def driver_error(self, kind: str, err: BaseException) -> bool:
        errors = self.psycopg.errors
        wanted = {
            "serialization": errors.SerializationFailure,
            "permission": errors.InsufficientPrivilege,
            "unavailable": self.psycopg.OperationalError,
        }[kind]
        return isinstance(err, wanted)

    def is_driver(self, err: BaseException | None) -> bool:
        return isinstance(err, self.psycopg.Error)

    def step_serialization(self, args: dict[str, Any], step: Step) -> None:
        a = self.connect()
        try:
            a.isolation_level = self.psycopg.IsolationLevel.REPEATABLE_READ
            a.execute("select * from tinystore_fences").fetchall()  # A's snapshot
            self.judge("accepted", self.write(fence(args["between"]), None), fence(args["between"]))
            f = fence(args["fence"])
            try:
                guard.check(a, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
            a.rollback()
        finally:
            a.close()
        self.judge(step["expect"], outcome, f)

    def step_permission(self, args: dict[str, Any], step: Step) -> None:
        with closing(self.admin()) as conn:
            try:
                conn.execute(f"create role {self.READER}")
            except (self.psycopg.errors.DuplicateObject, self.psycopg.errors.UniqueViolation):
                pass  # made by an earlier run, or by another language's runner
            conn.execute(f"grant usage on schema {self.schema} to {self.READER}")
            conn.execute(f"grant select on tinystore_fences to {self.READER}")
        f = fence(args["fence"])
        conn = self.connect()
        try:
            with conn.transaction():
                conn.execute(f"set local role {self.READER}")
                guard.check(conn, self.resource, f)
            outcome: Outcome = None
        except Exception as err:
            outcome = err
        finally:
            conn.close()
        self.judge(step["expect"], outcome, f)

    def step_server_gone(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        conn = self.connect()
        try:
            conn.execute("select 1")  # BEGIN
            with closing(self.admin()) as admin:
                # Waits (up to 10 s) until the backend is gone.
                ended = admin.execute("select pg_terminate_backend(%s, 10000)", (conn.info.backend_pid,)).fetchone()[0]
            expect(bool(ended), "pg_terminate_backend did not end the connection")
            try:
                guard.check(conn, self.resource, f)
                outcome: Outcome = None
            except Exception as err:
                outcome = err
        finally:
            conn.close()
        self.judge(step["expect"], outcome, f)
        expect(self.recorded() is None, "the check recorded its fence on a connection that was gone")


# --- S3 (boto3 on moto) ------------------------------------------------------


class Relay:
    """A boto3 client for the guard: every request goes to ``first`` until
    one is answered, then ``after()`` runs once and the later requests go to
    ``then``. A race's second writer and a server that goes away, made at a
    chosen point between two of the guard's requests."""

    def __init__(self, first: Any, then: Any, after: Callable[[], None]) -> None:
        self.first, self.then, self.after = first, then, after
        self.answered = False

    def __getattr__(self, name: str) -> Any:
        def call(**kwargs: Any) -> Any:
            client = self.then if self.answered else self.first
            result = getattr(client, name)(**kwargs)
            if not self.answered:
                self.answered = True
                self.after()
            return result

        return call


class S3(Backend):
    name = "s3"
    KEY = "r"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        import boto3  # type: ignore[import-untyped]
        import botocore.config  # type: ignore[import-untyped]
        import botocore.exceptions  # type: ignore[import-untyped]

        self.boto3, self.botocore = boto3, botocore
        url = os.environ.get("TINYSTORE_S3_URL")
        if not url:
            raise Failed("TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
        self.url = url
        self.client = self.new_client(url)
        self.bucket = f"py-{scenario.replace('_', '-')}-{uuid.uuid4().hex[:8]}"[:63]
        self.client.create_bucket(Bucket=self.bucket)

    def new_client(self, url: str, **config: Any) -> Any:
        return self.boto3.client(
            "s3",
            endpoint_url=url,
            region_name="us-east-1",
            aws_access_key_id="test",
            aws_secret_access_key="test",
            config=self.botocore.config.Config(**config),
        )

    def stale_resource(self) -> str:
        return f"{self.bucket}/{self.KEY}"

    def write(self, fence: int, body: str | None, resource: str | None = None, client: Any = None) -> Outcome:
        key = self.KEY if resource is None else resource
        try:
            guard_s3.put(client or self.client, self.bucket, key, f"body of {fence}" if body is None else body, fence)
        except Exception as err:
            return err
        return None

    def recorded(self) -> int | None:
        found = guard_s3.get(self.client, self.bucket, self.KEY)
        return None if found is None else found.fence

    def step_recorded(self, args: dict[str, Any], step: Step) -> None:
        super().step_recorded(args, step)
        if "body" in args:
            found = guard_s3.get(self.client, self.bucket, self.KEY)
            body = None if found is None else found.body.decode()
            expect(body == args["body"], f"read the body {body!r}, expected {args['body']!r}")

    def step_delete(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        try:
            guard_s3.delete(self.client, self.bucket, self.KEY, f)
            outcome: Outcome = None
        except Exception as err:
            outcome = err
        self.judge(step["expect"], outcome, f)

    def corrupt(self) -> None:
        self.client.put_object(Bucket=self.bucket, Key=f"{self.KEY}/tinystore-fence/not-a-fence", Body=b"by hand")

    def listing(self) -> list[str]:
        return [str(o["Key"]) for o in self.client.list_objects_v2(Bucket=self.bucket).get("Contents", [])]

    def nothing_written(self) -> Callable[[], None]:
        before = self.listing()

        def check() -> None:
            after = self.listing()
            expect(after == before, f"a refused write changed the bucket: {before} -> {after}")

        return check

    def driver_error(self, kind: str, err: BaseException) -> bool:
        exceptions = self.botocore.exceptions
        if kind == "unavailable":
            return isinstance(err, (exceptions.EndpointConnectionError, exceptions.ConnectionClosedError))
        if kind == "permission":
            return isinstance(err, exceptions.ClientError) and err.response["ResponseMetadata"]["HTTPStatusCode"] == 403
        return False

    def step_race(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])

        def between() -> None:  # the second writer, on its own client, from start to end
            other = self.new_client(self.url)
            for write in args["between"]:
                g = fence(write["fence"])
                self.judge(step["expect_between"], self.write(g, write.get("body"), client=other), g)

        paused = Relay(self.client, self.client, between)
        self.judge(step["expect"], self.write(f, args.get("body"), client=paused), f)
        expect(paused.answered, "the first writer made no request")

    def step_server_gone(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        with socket.socket() as s:  # a loopback port nothing listens on once closed
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        gone = self.new_client(f"http://127.0.0.1:{port}", retries={"total_max_attempts": 1})
        unchanged = self.nothing_written()
        self.judge(step["expect"], self.write(f, None, client=Relay(self.client, gone, lambda: None)), f)
        unchanged()


# --- HTTP (wsgiref + httpx, the SQLite guard in the handler) ----------------


class Http(Sqlite):
    name = "http"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        import httpx

        self.httpx = httpx
        self.server = make_server("127.0.0.1", 0, th.WSGIMiddleware(self.app), handler_class=Quiet)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def app(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        """The service: a write of the request's fence to the resource in
        the path, in one transaction with the handler's own row; Stale goes
        to the middleware (409), any other tinystore error is answered with
        the helper's status, or 500, and ``code: message``."""
        resource = urllib.parse.unquote(environ["PATH_INFO"].removeprefix("/write/"))
        fence = environ[th.ENVIRON_KEY]
        status, text = "200 OK", "saved"
        if fence is None:
            status, text = "428 Precondition Required", f"{th.FENCE_HEADER} is required"
        else:
            conn = self.connect(timeout=10.0)
            try:
                with conn:
                    conn.execute("insert into notes values (?)", (str(fence),))
                    guard.check(conn, resource, fence)
            except tinystore.Stale:
                raise
            except tinystore.Error as err:
                code = th.status_of(err) or 500
                status, text = f"{code} {'Bad Request' if code == 400 else 'Error'}", f"{err.code}: {err}"
            finally:
                conn.close()
        body = text.encode()
        start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))])
        return [body]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
        super().close()

    def post(self, **kwargs: Any) -> Any:
        return self.httpx.post(f"{self.base}/write/{urllib.parse.quote(self.resource, safe='')}", content=b"", **kwargs)

    def step_write(self, args: dict[str, Any], step: Step) -> None:
        want = step["expect"]
        if "fence_header" in args:
            answer = self.post(headers={th.FENCE_HEADER: args["fence_header"]})
            expect(want == "bad_request", f"the runner does not know {want!r} for a raw header")
            expect(answer.status_code == 400, f"expected 400, got {answer.status_code} {answer.text!r}")
            expect(th.FENCE_HEADER in answer.text, f"the 400 does not name the header: {answer.text!r}")
            return
        f = fence(args["fence"])
        before = self.notes()
        answer = self.post(auth=th.FenceAuth(f))
        got = f"{answer.status_code} {answer.text.strip()!r}"
        kept = self.notes() - before
        expect(kept == (1 if answer.status_code == 200 else 0), f"the handler's own write: {kept} rows kept ({got})")
        if want == "accepted":
            expect(answer.status_code == 200, f"expected 200, got {got}")
        elif isinstance(want, dict) and "stale" in want:
            largest = answer.headers.get(th.LARGEST_HEADER)
            expect(answer.status_code == th.CONFLICT, f"expected 409, got {got}")
            expect(largest == want["stale"]["largest"], f"{th.LARGEST_HEADER} is {largest!r}, expected {want['stale']['largest']}")
            expect(self.resource in answer.text, f"the 409 does not name the resource: {got}")
        elif want == "corrupt":
            expect(answer.status_code == 500 and answer.text.startswith("corrupt: "), f"expected 500 corrupt, got {got}")
            expect(self.resource in answer.text, f"the corrupt answer does not name the resource: {got}")
        else:
            raise Failed(f"the runner does not know {want!r} over HTTP")


class Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


BACKENDS: dict[str, type[Backend]] = {"sqlite": Sqlite, "postgres": Postgres, "s3": S3, "http": Http}


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
