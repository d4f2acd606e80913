"""tinystore.guard.dynamodb when the answer to its transaction is lost and
botocore makes it again, on moto's server ($TINYSTORE_S3_URL) through a
proxy that forwards the first ``TransactWriteItems``, waits for moto's
answer, lets another writer in if the test says so, then closes the
connection without a byte of that answer. botocore sees the connection
closed, and retries.

Moto does not answer a retry with the same ``ClientRequestToken`` from the
first attempt's outcome: the retry is judged again. A write that landed
and was then overtaken is cancelled on its retry, and a refusal retried is
refused again; the guard says ``Unavailable`` for both and tells the
lease's store nothing; a refusal is told only when no answer was lost.

Without $TINYSTORE_S3_URL these tests skip, unless TINYSTORE_REQUIRE_S3=1,
where they fail."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any

import pytest

import tinystore
from conftest import Superseded
from losing_proxy import LosingProxy
from refused import counts
from tinystore.guard import dynamodb as guard

boto3: Any = pytest.importorskip("boto3")

URL = os.environ.get("TINYSTORE_S3_URL")
if not URL:
    if os.environ.get("TINYSTORE_REQUIRE_S3") == "1":
        raise RuntimeError("TINYSTORE_REQUIRE_S3=1 but TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
    pytest.skip("TINYSTORE_S3_URL is unset (run under tests/guards/with-s3.sh)", allow_module_level=True)

TARGET = b"DynamoDB_20120810.TransactWriteItems"


def client(url: str | None = URL) -> Any:
    return boto3.client(
        "dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
    )


def losing_proxy(between: Callable[[], None] = lambda: None) -> LosingProxy:
    """A proxy in front of moto that loses moto's answer to the first
    ``TransactWriteItems``."""
    assert URL is not None
    return LosingProxy(URL, lambda data: TARGET in data, between)


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
    return c


def summary(db: Any, chat: str) -> str | None:
    item = db.get_item(TableName=db.chats, Key={"id": {"S": chat}}, ConsistentRead=True).get("Item")
    return None if item is None else str(item["summary"]["S"])


def put(via: Any, db: Any, resource: str, chat: str, text: str, under: int | tinystore.Lease) -> None:
    """A guarded put of item ``chat`` for ``resource`` through the client ``via``."""
    guard.put_item(via, resource, under, table=db.register, TableName=db.chats,
                   Item={"id": {"S": chat}, "summary": {"S": text}})


def losing(between: Callable[[], None] = lambda: None) -> tuple[Any, LosingProxy]:
    proxy = losing_proxy(between)
    return client(proxy.url), proxy


def test_a_lost_answer_retried_is_accepted_or_in_doubt_never_stale(db: Any, store: tinystore.Store, superseded: Superseded) -> None:
    older, newer = superseded.older, superseded.newer

    # Accepted, its answer lost: the retry carries the same fence, which is
    # accepted again.
    lossy, proxy = losing()
    put(lossy, db, "chats/alone", "alone", "by older", older)
    proxy.close()
    assert proxy.played == 1
    assert summary(db, "alone") == "by older"

    # Accepted, its answer lost, overtaken before the retry: the older
    # write landed, so it may not be called stale.
    lossy, proxy = losing(lambda: put(db, db, "chats/overtaken", "overtaken-newer", "by newer", newer.fence))
    with pytest.raises(tinystore.Unavailable, match="may have been written") as doubt:
        put(lossy, db, "chats/overtaken", "overtaken", "by older", older)
    proxy.close()
    assert not isinstance(doubt.value, tinystore.Stale)
    assert summary(db, "overtaken") == "by older", "the older write landed before the newer"
    assert summary(db, "overtaken-newer") == "by newer"
    assert counts(store) == []

    # Refused, its answer lost, refused again on the retry: in doubt the
    # same, for the guard cannot tell it from the case above.
    put(db, db, "chats/refused", "refused-newer", "by newer", newer)
    lossy, proxy = losing()
    with pytest.raises(tinystore.Unavailable, match="may have been written"):
        put(lossy, db, "chats/refused", "refused", "by older", older)
    proxy.close()
    assert proxy.played == 1
    assert summary(db, "refused") is None
    assert counts(store) == []

    # The same refusal with its answer kept is stale, and told: the one
    # refusal the store counts, so that neither case above was told.
    with pytest.raises(tinystore.Stale) as refused:
        put(db, db, "chats/refused", "refused", "by older", older)
    assert refused.value.largest == newer.fence
    assert counts(store) == [("chats", "lock", 1)]
