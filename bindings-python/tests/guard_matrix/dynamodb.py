"""The matrix's dynamodb backend: moto's DynamoDB at $TINYSTORE_S3_URL
through boto3, a chats table per scenario (the item ``id`` 42 written under
the guard), the register table ``tinystore_fences`` made by ensure."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from typing import Any

from tinystore.guard import dynamodb as guard_dynamodb

from . import Backend, Failed, Outcome, Step, expect, fence


class Dynamo(Backend):
    name = "dynamodb"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        import boto3  # type: ignore[import-untyped]
        import botocore.config  # type: ignore[import-untyped]
        import botocore.exceptions  # type: ignore[import-untyped]

        self.boto3, self.botocore = boto3, botocore
        url = os.environ.get("TINYSTORE_S3_URL")
        if not url:
            raise Failed("TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
        self.client = self.new_client(url)
        self.table = f"py-{scenario}-{uuid.uuid4().hex[:8]}"
        self.client.create_table(
            TableName=self.table,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        guard_dynamodb.ensure(self.client)

    def new_client(self, url: str) -> Any:
        return self.boto3.client(
            "dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
            aws_secret_access_key="test", config=self.botocore.config.Config(retries={"total_max_attempts": 1}),
        )

    def write(self, fence: int, body: str | None, resource: str | None = None, client: Any = None) -> Outcome:
        key = self.resource if resource is None else resource
        try:
            guard_dynamodb.put_item(client or self.client, key, fence, TableName=self.table,
                                    Item={"id": {"S": "42"}, "summary": {"S": str(fence)}})
        except Exception as err:
            return err
        return None

    def recorded(self) -> int | None:
        got = self.client.get_item(TableName=guard_dynamodb.REGISTER_TABLE, Key={"resource": {"S": self.resource}},
                                   ConsistentRead=True)
        item = got.get("Item")
        return None if item is None else fence(item["fence"]["S"])

    def corrupt(self) -> None:
        self.client.put_item(TableName=guard_dynamodb.REGISTER_TABLE,
                             Item={"resource": {"S": self.resource}, "fence": {"N": "5"}})

    def summary(self) -> str | None:
        item = self.client.get_item(TableName=self.table, Key={"id": {"S": "42"}}, ConsistentRead=True).get("Item")
        return None if item is None else str(item["summary"]["S"])

    def nothing_written(self) -> Callable[[], None]:
        before = self.summary()

        def check() -> None:
            after = self.summary()
            expect(after == before, f"a refused write changed the item: {before} -> {after}")

        return check

    def step_write(self, args: dict[str, Any], step: Step) -> None:
        unchanged = self.nothing_written()
        f = fence(args["fence"])
        outcome = self.write(f, None)
        self.judge(step["expect"], outcome, f)
        if outcome is None:
            expect(self.summary() == str(f), f"accepted, yet the item reads {self.summary()!r}")
        else:
            unchanged()

    def step_server_gone(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        gone = self.new_client(f"http://127.0.0.1:{port}")
        self.judge(step["expect"], self.write(f, None, client=gone), f)

    def driver_error(self, kind: str, err: BaseException) -> bool:
        if kind == "unavailable":
            return isinstance(err, self.botocore.exceptions.EndpointConnectionError)
        return False
