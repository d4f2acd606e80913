"""The matrix's s3 backend: moto's server at $TINYSTORE_S3_URL through
boto3, a bucket per scenario, the key "r". A race and a server gone are
made by handing the guard a client that relays its requests (Relay)."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from typing import Any

from tinystore.guard import s3 as guard_s3

from . import Backend, Failed, Outcome, Step, expect, fence


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
