"""The guard on S3 and S3-compatible object storage, on the boto3 client
you already made (``pip install tinystore[s3]``; this module never imports
boto3 itself).

The fence lives in the object's own metadata, ``tinystore-fence``, as its
40-digit text. :func:`put` reads the object's fence and ETag (a HEAD),
refuses with :class:`tinystore.Stale` when the stored fence is larger, and
otherwise writes with ``If-Match`` on that ETag, or ``If-None-Match: *``
when there is no object yet, so nothing can come between the check and the
write. A ``412 Precondition Failed`` (or ``409 ConditionalRequestConflict``)
means another writer came in between: it reads again and decides again, at
most ``MAX_TRIES`` times in all, then raises :class:`tinystore.Limit`.
:func:`delete` writes an empty tombstone (metadata ``tinystore-deleted:
true``) so that the object's fence stays and a late holder cannot bring it
back.

>>> s3 = boto3.client("s3")                                  # doctest: +SKIP
>>> with summaries.hold(42) as lease:
...     tinystore.guard.s3.put(s3, "chats", "42.json", summary, lease.fence)

The resource a :class:`tinystore.Stale` names is ``"BUCKET/KEY"``.
Errors: :class:`tinystore.Stale` (a larger fence is stored);
:class:`tinystore.Corrupt` (the object's ``tinystore-fence`` metadata is
not 40 digits, an edit by hand, say); :class:`tinystore.Invalid` (a bad
bucket, key, body, metadata or fence, or a write of the object's own body,
which would keep its ETag: S3 compares ETags only, so a late writer could
overwrite it unseen); :class:`tinystore.Unauthorized` (the HEAD was refused:
the guard needs to read the object's metadata, ``s3:GetObject``);
:class:`tinystore.Limit` (overtaken ``MAX_TRIES`` times). Nothing is written
on any of them. boto3's other errors pass through as they are. The rule and
its decisions come from tinystore's core, the same in every language.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from .. import _native
from .._errors import Invalid

__all__ = ["MAX_TRIES", "METADATA_KEY", "TOMBSTONE_KEY", "delete", "put"]

METADATA_KEY: str = _native.OBJECT_METADATA_KEY
"""The metadata key holding an object's fence (``x-amz-meta-tinystore-fence``)."""
TOMBSTONE_KEY: str = _native.OBJECT_TOMBSTONE_KEY
"""The metadata key of the tombstone :func:`delete` leaves (value ``"true"``)."""
MAX_TRIES: int = _native.OBJECT_MAX_TRIES
"""How many times :func:`put` reads and tries in all before :class:`tinystore.Limit`."""

# The answers of a conditional PUT whose condition another writer broke.
_RACED = {"PreconditionFailed", "ConditionalRequestConflict", "412", "409"}


def put(
    client: Any,
    bucket: str,
    key: str,
    body: bytes | bytearray | memoryview | str,
    fence: int,
    metadata: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Writes ``body`` (bytes, or a str written as UTF-8) to ``bucket/key``
    with ``fence`` (an int from 0 to 2**128-1), unless a larger fence is
    stored there: then raises :class:`tinystore.Stale` and writes nothing.
    ``metadata`` is your own object metadata, written beside the fence.
    Returns boto3's ``put_object`` response."""
    data = _body(body)
    resource = _resource(bucket, key)
    extra = _metadata(resource, metadata)
    return _guarded_put(client, bucket, key, resource, data, fence, extra)


def delete(client: Any, bucket: str, key: str, fence: int) -> dict[str, Any]:
    """Deletes ``bucket/key`` under ``fence``, unless a larger fence is
    stored there (:class:`tinystore.Stale`): writes an empty tombstone whose
    metadata keeps the fence (and ``tinystore-deleted: true``), so a late
    holder's put is still refused. Deleting a tombstone again is
    :class:`tinystore.Invalid` (it would keep its ETag). Returns boto3's
    ``put_object`` response."""
    resource = _resource(bucket, key)
    return _guarded_put(client, bucket, key, resource, b"", fence, {TOMBSTONE_KEY: "true"})


def _guarded_put(
    client: Any, bucket: str, key: str, resource: str, data: bytes, fence: int, extra: dict[str, str]
) -> dict[str, Any]:
    fence_text = _native.guard_arguments(resource, fence)  # Invalid before any request
    md5 = hashlib.md5(data, usedforsecurity=False).hexdigest()
    metadata = {**extra, METADATA_KEY: fence_text}
    for _ in range(MAX_TRIES):
        etag = _native.object_decide_put(resource, fence, _head(client, bucket, key, resource), md5)
        condition = {"IfNoneMatch": "*"} if etag is None else {"IfMatch": etag}
        try:
            response: dict[str, Any] = client.put_object(
                Bucket=bucket, Key=key, Body=data, Metadata=metadata, **condition
            )
            return response
        except Exception as err:
            if _error_code(err) & _RACED:
                continue  # another writer came in between: read and decide again
            raise
    raise _native.object_too_many_races(resource)


def _head(client: Any, bucket: str, key: str, resource: str) -> tuple[str, str | None] | None:
    """The object's (ETag, tinystore-fence metadata), or None when there is
    none."""
    try:
        got = client.head_object(Bucket=bucket, Key=key)
    except Exception as err:
        codes = _error_code(err)
        if codes & {"404", "NoSuchKey", "NotFound"}:
            return None
        if codes & {"403", "AccessDenied", "Forbidden"}:
            raise _native.object_head_refused(resource, 403) from err
        raise
    stored: Mapping[str, str] = got.get("Metadata") or {}
    fence = next((v for k, v in stored.items() if k.lower() == METADATA_KEY), None)
    return str(got["ETag"]), fence


def _error_code(err: Exception) -> set[str]:
    """A botocore ``ClientError``'s error code and HTTP status, as text
    (empty for any other exception)."""
    response = getattr(err, "response", None)
    if not isinstance(response, dict):
        return set()
    codes = set()
    code = response.get("Error", {}).get("Code")
    if code:
        codes.add(str(code))
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    if status:
        codes.add(str(status))
    return codes


def _resource(bucket: object, key: object) -> str:
    for name, value in (("bucket", bucket), ("key", key)):
        if not isinstance(value, str):
            raise Invalid(f"an S3 guard's {name} must be a str, not {type(value).__name__}")
        if not value:
            raise Invalid(f"an S3 guard's {name} is empty")
    return f"{bucket}/{key}"


def _body(body: object) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise Invalid(f"an S3 guard's body must be bytes or a str, not {type(body).__name__}")


def _metadata(resource: str, metadata: object) -> dict[str, str]:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise Invalid(f"an S3 guard's metadata must be a mapping of str to str, not {type(metadata).__name__}")
    out: dict[str, str] = {}
    for k, v in metadata.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise Invalid(f"an S3 guard's metadata must map str to str; {k!r}: {v!r} does not")
        out[k] = v
    _native.object_check_metadata(resource, list(out))
    return out
