"""The guard on S3 and S3-compatible object storage, on the boto3 client
you already made (``pip install tinystore[s3]``; this module never imports
boto3 itself).

A guarded object is one object per fence under its key: a write of fence
``f`` to ``KEY`` puts ``KEY/tinystore-fence/<f as 40 digits>``, and what a
reader sees (:func:`get`) is the object of the largest fence listed there.
:func:`put` lists the key's fences first (a larger one: :class:`tinystore.Stale`,
nothing written), puts its own object, then lists again: a larger fence
now means its write is not the largest, so it deletes its object and
raises :class:`tinystore.Stale`; else the write is accepted and the
smaller fences' objects, which no reader sees any more, are deleted. S3
compares nothing here (no ``If-Match`` on an ETag, which repeats when a
body does), so no interleaving of writers lets a smaller fence land over a
larger one, and writing the same body again under a later fence is fine.
:func:`delete` puts an empty tombstone (metadata ``tinystore-deleted:
true``) the same way, so that the fence stays and a late holder cannot
bring the object back; :func:`get` reads it as no object.

>>> s3 = boto3.client("s3")                                  # doctest: +SKIP
>>> with summaries.hold(42) as lease:
...     tinystore.guard.s3.put(s3, "chats", "42.json", summary, lease)
>>> tinystore.guard.s3.get(s3, "chats", "42.json")
Found(body=b'...', fence=..., metadata={})

The resource a :class:`tinystore.Stale` names is ``"BUCKET/KEY"``.
Errors: :class:`tinystore.Stale` (a larger fence is stored);
:class:`tinystore.Corrupt` (an object under ``KEY/tinystore-fence/`` whose
name is not 40 digits, put there by hand, say); :class:`tinystore.Invalid`
(a bucket or key that is not a str of UTF-8 or is empty, a key holding
``/tinystore-fence/`` or too long for its fences' keys to fit S3's 1024
bytes, a body that is not bytes or a str, metadata that is not a mapping of
str to str or sets the guard's own keys, a fence that is not an int from 0
to 2**128-1; nothing is sent); :class:`tinystore.Limit` (:func:`get` met a
later writer deleting what it listed ``MAX_TRIES`` times in a row).
boto3's own errors (``botocore.exceptions.ClientError``, such as a 403
``AccessDenied``; ``EndpointConnectionError``) are raised as boto3 raised
them. The protocol and its decisions are tinystore's core, the same in
every language; this module makes its requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .. import _native
from .._errors import Internal, Invalid
from .._native import Lease
from ._steps import Run
from ._under import told

__all__ = ["MAX_TRIES", "METADATA_KEY", "TOMBSTONE_KEY", "Found", "delete", "get", "put"]

METADATA_KEY: str = _native.OBJECT_METADATA_KEY
"""The metadata key holding a fence object's fence (``x-amz-meta-tinystore-fence``)."""
TOMBSTONE_KEY: str = _native.OBJECT_TOMBSTONE_KEY
"""The metadata key of the tombstone :func:`delete` leaves (value ``"true"``)."""
MAX_TRIES: int = _native.OBJECT_MAX_TRIES
"""How many times :func:`get` lists again, when the object it listed was
deleted by a later writer before it read it, before :class:`tinystore.Limit`."""


class Found(NamedTuple):
    """What :func:`get` read: the largest fence's object."""

    body: bytes
    """Its body."""
    fence: int
    """The fence it was written with."""
    metadata: dict[str, str]
    """Your own metadata written with it (the guard's own keys left out)."""


def put(
    client: Any,
    bucket: str,
    key: str,
    body: bytes | bytearray | memoryview | str,
    fence: int | Lease,
    metadata: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Writes ``body`` (bytes, or a str written as UTF-8) to ``bucket/key``
    with ``fence`` (an int from 0 to 2**128-1, or the ``Lease`` itself),
    unless a larger fence is stored there: then raises
    :class:`tinystore.Stale`, and no reader sees the write; given the
    lease, the refusal is also told to its store. ``metadata`` is your own
    object metadata, written beside the fence. Returns boto3's
    ``put_object`` response of the fence's object."""
    data = _body(body)
    mine = list(_metadata(metadata).items())
    with told(fence, f"{bucket}/{key}", "s3") as given:
        return _write(client, bucket, _native.ObjectWrite.put(bucket, key, given, mine), data)


def delete(client: Any, bucket: str, key: str, fence: int | Lease) -> dict[str, Any]:
    """Deletes ``bucket/key`` under ``fence``, unless a larger fence is
    stored there (:class:`tinystore.Stale`): puts an empty tombstone whose
    metadata keeps the fence (and ``tinystore-deleted: true``), so a late
    holder's put is still refused; :func:`get` then reads no object.
    Deleting again is fine. Returns boto3's ``put_object`` response of the
    tombstone. Given the ``Lease`` itself, a refusal is also told to its
    store."""
    with told(fence, f"{bucket}/{key}", "s3") as given:
        return _write(client, bucket, _native.ObjectWrite.delete(bucket, key, given), b"")


def get(client: Any, bucket: str, key: str) -> Found | None:
    """Reads ``bucket/key`` as the guard keeps it: the body, fence and your
    metadata of the largest fence's object, or None when there is none
    (never written, or deleted)."""
    machine = _native.ObjectRead(bucket, key)
    run, step = Run(), machine.start()
    read: tuple[bytes, dict[str, str]] | None = None
    while True:
        observed: _native.ObjectObserved
        try:
            match step:
                case ("list", prefix):
                    observed = ("listed", _listed(client, bucket, prefix))
                case ("get", name):
                    got = client.get_object(Bucket=bucket, Key=name)
                    stored = {str(k): str(v) for k, v in (got.get("Metadata") or {}).items()}
                    read = (got["Body"].read(), stored)
                    observed = ("got", stored)
                case _:
                    break
        except Exception as err:  # boto3's: core classifies it
            observed = run.failure(err)
        step = machine.observe(observed)
    run.end(step)
    fence = machine.found
    if fence is None or read is None:
        return None
    own = {k: v for k, v in read[1].items() if k.lower() not in (METADATA_KEY, TOMBSTONE_KEY)}
    return Found(read[0], fence, own)


def _write(client: Any, bucket: str, machine: _native.ObjectWrite, data: bytes) -> dict[str, Any]:
    run, step = Run(), machine.start()
    written: dict[str, Any] | None = None
    while True:
        observed: _native.ObjectObserved
        try:
            match step:
                case ("list", prefix):
                    observed = ("listed", _listed(client, bucket, prefix))
                case ("put", name, metadata):
                    written = client.put_object(Bucket=bucket, Key=name, Body=data, Metadata=metadata)
                    observed = ("written",)
                case ("delete", name):
                    client.delete_object(Bucket=bucket, Key=name)
                    observed = ("deleted",)
                case _:
                    break
        except Exception as err:  # boto3's: core classifies it
            observed = run.failure(err)
        step = machine.observe(observed)
    run.end(step)
    if written is None:
        raise Internal(f"a guarded write to {bucket}/... was accepted without a put")
    return written


def _listed(client: Any, bucket: str, prefix: str) -> list[str]:
    """Every key under ``prefix``, all pages."""
    keys: list[str] = []
    more: dict[str, str] = {}
    while True:
        page = client.list_objects_v2(Bucket=bucket, Prefix=prefix, **more)
        keys.extend(str(o["Key"]) for o in page.get("Contents", []))
        if not page.get("IsTruncated"):
            return keys
        more = {"ContinuationToken": page["NextContinuationToken"]}


def _body(body: object) -> bytes:
    if isinstance(body, str):
        return _utf8(body, "body").encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise Invalid(f"an S3 guard's body must be bytes or a str, not {type(body).__name__}")


def _metadata(metadata: object) -> dict[str, str]:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise Invalid(f"an S3 guard's metadata must be a mapping of str to str, not {type(metadata).__name__}")
    out: dict[str, str] = {}
    for k, v in metadata.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise Invalid(f"an S3 guard's metadata must map str to str; {k!r}: {v!r} does not")
        out[_utf8(k, "metadata key")] = _utf8(v, "metadata value")
    return out


def _utf8(text: str, what: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Invalid(f"an S3 guard's {what} must be valid UTF-8 text; {text!r} has a lone surrogate") from None
    return text
