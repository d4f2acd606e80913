"""The guard on DynamoDB, on the boto3 client you already made
(``boto3.client("dynamodb")``)::

    from tinystore.guard import dynamodb as guard

    guard.ensure(client)                                   # the register table, once
    guard.put_item(client, "chats/42", lease, TableName="chats",
                   Item={"id": {"N": "42"}, "summary": {"S": summary}})
    guard.transact_write_items(client, "chats/42", lease, TransactItems=[...])

``fence`` is the lease's fence (an int) or the ``Lease`` itself: given the
lease, a refusal is also told to its store, which counts the late writes
refused per group.

Each call is one ``TransactWriteItems``: your items, and the register
item's conditional put (table ``tinystore_fences``, key ``resource``, the
fence's 40 digits as a string), which DynamoDB commits all or none. A
smaller fence than the one recorded raises :class:`tinystore.Stale`
(``.resource``, ``.fence``, ``.largest``) and nothing is written. A
transaction holds 100 items: yours at most 99. ``Invalid`` for a bad
resource, too many items, or a parameter a transaction's item does not take
(``ReturnValues``, say); ``Corrupt`` for a register item edited by hand.
The client's own errors are raised as the client raised them: a
``TransactionCanceledException`` for one of your own conditions or a
conflicting transaction (``TransactionConflict``: retry; see
:func:`tinystore.guard.is_serialization_failure`), its
``ResourceNotFoundException`` for a missing table. boto3 is not imported
here: the client you pass is used as it is.

botocore makes a transaction again when an attempt's answer is lost (a
dropped connection, a timeout, a 5xx). The guard watches its call's
attempts (a handler of the client's ``needs-retry`` event for
``TransactWriteItems``, registered once per client, which does nothing
outside a guarded call): when one went unanswered and the transaction,
made again, finds a larger fence, the call raises
:class:`tinystore.Unavailable` (the unanswered attempt may have been
written; whether it was is unknown), not ``Stale``, and the lease's store
is told nothing.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from .. import _native
from .._errors import Invalid
from .._native import Lease
from ._driver import failure_of
from ._steps import end
from ._under import told

REGISTER_TABLE = "tinystore_fences"

# What each kind of a transaction's item takes (TransactWriteItems).
_TAKES = {
    "Put": {"TableName", "Item", "ConditionExpression", "ExpressionAttributeNames", "ExpressionAttributeValues",
            "ReturnValuesOnConditionCheckFailure"},
    "Update": {"TableName", "Key", "UpdateExpression", "ConditionExpression", "ExpressionAttributeNames",
               "ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure"},
    "Delete": {"TableName", "Key", "ConditionExpression", "ExpressionAttributeNames", "ExpressionAttributeValues",
               "ReturnValuesOnConditionCheckFailure"},
}


# The attempts of the guarded call running in this thread or task: a list
# of each attempt's HTTP status (None where no answer came) that the
# client's needs-retry handler appends to; None outside a guarded call.
_ATTEMPTS: ContextVar[list[int | None] | None] = ContextVar("tinystore_dynamodb_attempts", default=None)
_WATCHER = "tinystore.guard.dynamodb: lost answers"


def _attempted(response: Any = None, caught_exception: Any = None, **_: Any) -> None:
    """botocore's ``needs-retry`` handler, called after each attempt: the
    attempt's status is noted, None when it got no answer (an exception).
    It returns None, so botocore's own handler decides on the retry."""
    attempts = _ATTEMPTS.get()
    if attempts is None:
        return
    status = None
    if caught_exception is None and isinstance(response, tuple) and response:
        status = getattr(response[0], "status_code", None)
    attempts.append(status if isinstance(status, int) else None)


def _watch(client: Any) -> None:
    """Registers :func:`_attempted` on ``client``, once (botocore keeps one
    handler per unique id)."""
    events = getattr(getattr(client, "meta", None), "events", None)
    if events is not None:
        events.register("needs-retry.dynamodb.TransactWriteItems", _attempted, unique_id=_WATCHER)


def ensure(client: Any, table: str = REGISTER_TABLE) -> None:
    """Makes the register table (key ``resource``, a string; on demand
    billing) if it is missing, and waits until it is active."""
    try:
        client.describe_table(TableName=table)
        return
    except client.exceptions.ResourceNotFoundException:
        pass
    try:
        client.create_table(
            TableName=table,
            KeySchema=[{"AttributeName": "resource", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "resource", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
    except client.exceptions.ResourceInUseException:
        pass  # made meanwhile by another caller
    client.get_waiter("table_exists").wait(TableName=table)


def transact_write_items(
    client: Any, resource: str, fence: int | Lease, *, TransactItems: list[dict[str, Any]], table: str = REGISTER_TABLE,
    **kwargs: Any
) -> Any:
    """``TransactWriteItems`` of your ``TransactItems`` (and any other
    parameter of the call), guarded by ``fence`` for ``resource``; the
    client's response."""
    if not isinstance(TransactItems, list):
        raise Invalid(f"TransactItems must be a list, not {type(TransactItems).__name__}")
    return _run(client, resource, fence, table, list(TransactItems), kwargs)


def put_item(client: Any, resource: str, fence: int | Lease, *, table: str = REGISTER_TABLE, **put: Any) -> None:
    """``PutItem``'s parameters as one guarded transaction's ``Put``."""
    _run(client, resource, fence, table, [_item("Put", put)], {})


def update_item(client: Any, resource: str, fence: int | Lease, *, table: str = REGISTER_TABLE, **update: Any) -> None:
    """``UpdateItem``'s parameters as one guarded transaction's ``Update``."""
    _run(client, resource, fence, table, [_item("Update", update)], {})


def delete_item(client: Any, resource: str, fence: int | Lease, *, table: str = REGISTER_TABLE, **delete: Any) -> None:
    """``DeleteItem``'s parameters as one guarded transaction's ``Delete``;
    the register keeps the fence, so a late write stays refused."""
    _run(client, resource, fence, table, [_item("Delete", delete)], {})


def _item(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    extra = sorted(set(params) - _TAKES[kind])
    if extra:
        raise Invalid(f"a guarded {kind.lower()} is one item of a transaction, which does not take {', '.join(extra)}")
    return {kind: params}


def _run(client: Any, resource: str, fence: int | Lease, table: str, items: list[Any], kwargs: dict[str, Any]) -> Any:
    with told(fence, resource, "dynamodb") as given:
        return _transact(client, resource, given, table, items, kwargs)


def _transact(client: Any, resource: str, fence: int, table: str, items: list[Any], kwargs: dict[str, Any]) -> Any:
    machine = _native.DynamoCheck(table, resource, fence, len(items))
    step = machine.start()
    failed: BaseException | None = None
    response: Any = None
    while step[0] != "done":
        try:
            if step[0] == "transact":
                _, table_name, key, text, digits = step
                register = {
                    "Put": {
                        "TableName": table_name,
                        "Item": {"resource": {"S": key}, "fence": {"S": text}},
                        "ConditionExpression": "attribute_not_exists(fence) OR (fence <= :fence AND size(fence) = :digits)",
                        "ExpressionAttributeValues": {":fence": {"S": text}, ":digits": {"N": str(digits)}},
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    }
                }
                _watch(client)
                attempts: list[int | None] = []
                token = _ATTEMPTS.set(attempts)
                try:
                    response = client.transact_write_items(TransactItems=[*items, register], **kwargs)
                finally:
                    _ATTEMPTS.reset(token)
                    for status in attempts:
                        machine.attempted(status)
                step = machine.written()
            else:
                _, table_name, key = step
                got = client.get_item(TableName=table_name, Key={"resource": {"S": key}}, ConsistentRead=True)
                step = machine.read(_fence_of(got.get("Item")))
        except Exception as err:  # the client's: core classifies it
            failed = err
            reasons = _reasons(err)
            if reasons is None:
                step = machine.failed(failure_of(err))
            else:
                codes = [str(r.get("Code", "None")) for r in reasons]
                step = machine.cancelled(codes, _fence_of(reasons[-1].get("Item") if reasons else None), failure_of(err))
    if step != ("done", "accepted", None):
        end(step, failed)
    return response


def _reasons(err: BaseException) -> list[dict[str, Any]] | None:
    """A cancelled transaction's reasons, or None for another error."""
    response = getattr(err, "response", None)
    if not isinstance(response, dict) or response.get("Error", {}).get("Code") != "TransactionCanceledException":
        return None
    reasons = response.get("CancellationReasons")
    return [r if isinstance(r, dict) else {} for r in reasons] if isinstance(reasons, list) else []


def _fence_of(item: object) -> str | None:
    """The register item's ``fence`` as text: a string as it is, another
    type described (the read-back calls it corrupt)."""
    if not isinstance(item, dict) or "fence" not in item:
        return None
    value = item["fence"]
    if isinstance(value, dict) and isinstance(value.get("S"), str):
        return str(value["S"])
    kind = next(iter(value), "?") if isinstance(value, dict) else type(value).__name__
    return f"(a value of type {kind})"
