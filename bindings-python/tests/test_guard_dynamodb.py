"""tinystore.guard.dynamodb on moto's server ($TINYSTORE_S3_URL, which
serves DynamoDB too; make test-python starts it with tests/guards/with-s3.sh)
through boto3: the rule on a guarded put, update and delete and on a
transaction of several items; the caller's items written with the
register's or not at all; a hand-edited register; one of the caller's
own conditions failing; too many items and bad parameters refused before
any call; and the server gone.

Without $TINYSTORE_S3_URL these tests skip, unless TINYSTORE_REQUIRE_S3=1,
where they fail."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from typing import Any

import pytest

import tinystore
from tinystore.guard import dynamodb as guard

boto3: Any = pytest.importorskip("boto3")

URL = os.environ.get("TINYSTORE_S3_URL")
if not URL:
    if os.environ.get("TINYSTORE_REQUIRE_S3") == "1":
        raise RuntimeError("TINYSTORE_REQUIRE_S3=1 but TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
    pytest.skip("TINYSTORE_S3_URL is unset (run under tests/guards/with-s3.sh)", allow_module_level=True)


def client(url: str | None = URL) -> Any:
    return boto3.client(
        "dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
    )


@pytest.fixture
def db() -> Any:
    """A client, a chats table and a register table of this test's own."""
    c = client()
    c.chats = f"chats-{uuid.uuid4().hex[:8]}"
    c.register = f"fences-{uuid.uuid4().hex[:8]}"
    c.create_table(
        TableName=c.chats,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    guard.ensure(c, c.register)
    guard.ensure(c, c.register)  # safe to run again
    return c


def summary(db: Any, chat: str = "42") -> str | None:
    item = db.get_item(TableName=db.chats, Key={"id": {"S": chat}}, ConsistentRead=True).get("Item")
    return None if item is None else str(item["summary"]["S"])


def recorded(db: Any, resource: str) -> str | None:
    got = db.get_item(TableName=db.register, Key={"resource": {"S": resource}}, ConsistentRead=True).get("Item")
    return None if got is None else str(got["fence"]["S"])


def put(db: Any, text: str, fence: int) -> None:
    guard.put_item(db, "chats/42", fence, table=db.register, TableName=db.chats,
                   Item={"id": {"S": "42"}, "summary": {"S": text}})


def test_put_accepts_equal_and_larger_and_refuses_smaller_writing_nothing(db: Any) -> None:
    put(db, "by 8", 8)
    put(db, "by 8 again", 8)
    with pytest.raises(tinystore.Stale) as refused:
        put(db, "by 7, late", 7)
    assert (refused.value.resource, refused.value.fence, refused.value.largest) == ("chats/42", 7, 8)
    assert summary(db) == "by 8 again"
    big = 2**64 + 1
    put(db, "big", big)
    with pytest.raises(tinystore.Stale):
        put(db, "late", 2**64)
    assert recorded(db, "chats/42") == f"{big:040d}"


def test_update_and_delete_keep_the_rule_and_the_fence(db: Any) -> None:
    put(db, "v", 3)
    guard.update_item(db, "chats/42", 4, table=db.register, TableName=db.chats, Key={"id": {"S": "42"}},
                      UpdateExpression="SET summary = :s", ExpressionAttributeValues={":s": {"S": "updated"}})
    assert summary(db) == "updated"
    guard.delete_item(db, "chats/42", 5, table=db.register, TableName=db.chats, Key={"id": {"S": "42"}})
    assert summary(db) is None
    with pytest.raises(tinystore.Stale):
        put(db, "back from the dead", 4)
    assert summary(db) is None


def test_a_transaction_of_several_items_is_written_with_the_register_or_not_at_all(db: Any) -> None:
    def items(text: str) -> list[dict[str, Any]]:
        return [{"Put": {"TableName": db.chats, "Item": {"id": {"S": chat}, "summary": {"S": text}}}} for chat in "ab"]

    guard.transact_write_items(db, "chats/ab", 9, TransactItems=items("by 9"), table=db.register)
    with pytest.raises(tinystore.Stale):
        guard.transact_write_items(db, "chats/ab", 8, TransactItems=items("by 8"), table=db.register)
    assert (summary(db, "a"), summary(db, "b")) == ("by 9", "by 9")


def test_a_hand_edited_register_is_corrupt_and_nothing_is_written(db: Any) -> None:
    put(db, "v", 3)
    db.put_item(TableName=db.register, Item={"resource": {"S": "chats/42"}, "fence": {"N": "99"}})
    with pytest.raises(tinystore.Corrupt, match="chats/42"):
        put(db, "after the edit", 4)
    assert summary(db) == "v"


def test_your_own_condition_failing_is_the_clients_error_and_records_nothing(db: Any) -> None:
    with pytest.raises(db.exceptions.TransactionCanceledException) as cancelled:
        guard.put_item(db, "chats/42", 3, table=db.register, TableName=db.chats,
                       Item={"id": {"S": "42"}, "summary": {"S": "v"}}, ConditionExpression="attribute_exists(id)")
    assert "ConditionalCheckFailed" in str(cancelled.value)
    assert not guard_is_serialization(cancelled.value)
    assert recorded(db, "chats/42") is None


def test_a_conflicting_transaction_is_told_a_serialization_failure() -> None:
    """As boto3 raises it when DynamoDB cancels a transaction for another
    in progress on one of its items (moto does not make conflicts)."""
    from botocore.exceptions import ClientError  # type: ignore[import-untyped]

    response: Any = {
        "Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled [None, TransactionConflict]"},
        "CancellationReasons": [{"Code": "None"}, {"Code": "TransactionConflict"}],
        "ResponseMetadata": {"HTTPStatusCode": 400},
    }
    assert tinystore.guard.is_serialization_failure(ClientError(response, "TransactWriteItems"))


def guard_is_serialization(err: BaseException) -> bool:
    return tinystore.guard.is_serialization_failure(err)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c: guard.transact_write_items(c, "r", 1, TransactItems=[{"Put": {}}] * 100), "at most 99"),
        (lambda c: guard.put_item(c, "", 1, TableName="t", Item={}), "resource"),
        (lambda c: guard.put_item(c, "r", 1, TableName="t", Item={}, ReturnValues="ALL_OLD"), "ReturnValues"),
        (lambda c: guard.put_item(c, "r", -1, TableName="t", Item={}), "fence"),
    ],
)
def test_bad_arguments_are_invalid_before_any_call(call: Any, message: str) -> None:
    class NoCalls:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the guard called DynamoDB's {name} on bad arguments")

    with pytest.raises(tinystore.Invalid, match=message):
        call(NoCalls())


def test_the_server_gone_is_the_clients_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gone = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                        aws_access_key_id="test", aws_secret_access_key="test",
                        config=boto3.session.Config(retries={"max_attempts": 1}))
    with pytest.raises(Exception) as failed:
        guard.put_item(gone, "r", 1, TableName="t", Item={"id": {"S": "1"}})
    assert not isinstance(failed.value, tinystore.Error), failed.value
    assert "Could not connect" in str(failed.value)


def test_a_caller_the_server_refuses_gets_the_clients_403() -> None:
    """A moto server of this test's own that checks every request's
    credentials (INITIAL_NO_AUTH_ACTION_COUNT=0), which these are not."""
    program = os.environ.get("MOTO_SERVER")
    if not program:
        pytest.skip("MOTO_SERVER is unset (run under tests/guards/with-s3.sh)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([program, "-H", "127.0.0.1", "-p", str(port)],
                              env={**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "0"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                time.sleep(0.05)
        strict = client(f"http://127.0.0.1:{port}")
        with pytest.raises(Exception) as refused:
            guard.put_item(strict, "r", 1, TableName="t", Item={"id": {"S": "1"}})
        assert not isinstance(refused.value, tinystore.Error), refused.value
        answer: Any = getattr(refused.value, "response", {})
        assert answer["ResponseMetadata"]["HTTPStatusCode"] == 403, refused.value
        assert not tinystore.guard.is_serialization_failure(refused.value)
    finally:
        server.kill()
        server.wait()
