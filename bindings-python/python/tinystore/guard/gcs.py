"""The guard on Google Cloud Storage, on the google-cloud-storage blob you
already have (``bucket.blob("chats/42")``)::

    from tinystore.guard import gcs as guard

    guard.upload(blob, summary, lease.fence)             # tinystore.Stale if a later holder wrote
    guard.upload(blob, data, lease, content_type="application/json", metadata={"owner": "me"})

Given the ``Lease`` itself rather than its fence, a refusal is also told
to its store, which counts the late writes refused per group.

The fence lives in the object's metadata (``tinystore-fence``, 40 digits).
A guarded upload reads the object's generation and fence, raises
:class:`tinystore.Stale` (``.resource``, ``.fence``, ``.largest``) when
the fence is larger, and otherwise uploads on that generation
(``if_generation_match``, 0 for a new object); a writer that came in
between makes it read and decide again. The resource is
``"BUCKET/NAME"``. ``Corrupt`` for a fence edited by hand; ``Invalid`` for
metadata under the guard's own key; ``Limit`` after five uploads lost to
other writers in a row. The client's own errors are raised as it raised
them (``google.api_core.exceptions``). A delete cannot be guarded: it takes
the fence with the object (docs/guards.md says what to do instead).

google-cloud-storage makes an upload whose generation condition is set
again when an attempt's answer is lost (a dropped connection, a timeout, a
5xx). The guard gives each upload the client's default retry with an
``on_error`` of its own, which the retry calls for each attempt it makes
again: when one of them went unanswered (or got a 5xx or 408) and the
upload, made again, finds a larger fence, the call raises
:class:`tinystore.Unavailable` (the unanswered attempt may have been
written; whether it was is unknown), not ``Stale``, and the lease's store
is told nothing. A 429 is an answer: that attempt wrote nothing.
"""

from __future__ import annotations

from typing import Any

from .. import _native
from .._errors import Invalid
from .._native import Lease
from ._steps import Run
from ._under import told

METADATA_KEY = "tinystore-fence"


def upload(
    blob: Any, data: bytes | str, fence: int | Lease, *, content_type: str | None = None,
    metadata: dict[str, str] | None = None,
) -> None:
    """``data`` uploaded to ``blob`` with your ``metadata`` and
    ``content_type``, guarded by ``fence`` (an int, or the ``Lease`` itself:
    then a refusal is also told to its store)."""
    mine = dict(metadata or {})
    if not blob.name:
        raise Invalid(f"a guarded upload to bucket {blob.bucket.name!r} names no object; nothing was written")
    resource = f"{blob.bucket.name}/{blob.name}"
    _native.versioned_check_metadata("gcs", resource, list(mine))
    with told(fence, resource, "gcs") as given:
        _upload(blob, data, given, resource, mine, content_type)


def _upload(blob: Any, data: bytes | str, fence: int, resource: str, mine: dict[str, str],
            content_type: str | None) -> None:
    machine = _native.VersionedCheck("gcs", resource, fence)
    run = Run()
    step = machine.start()
    while step[0] != "done":
        try:
            if step[0] == "read":
                found = blob.bucket.get_blob(blob.name)
                if found is None:
                    step = machine.absent()
                else:
                    fence_text = (found.metadata or {}).get(METADATA_KEY)
                    step = machine.found(str(found.generation), fence_text)
            else:
                _, version, key, text = step
                blob.metadata = {**mine, key: text}
                retried: list[int | None] = []
                try:
                    blob.upload_from_string(
                        data, content_type=content_type,
                        if_generation_match=0 if version is None else int(version),
                        retry=_watched(lambda err: retried.append(_status_of(err))),
                    )
                finally:
                    for status in retried:
                        machine.attempted(status)
                step = machine.written()
        except Exception as err:  # the client's: core classifies it
            if _precondition_failed(err) and step[0] == "put":
                step = machine.condition_failed()
            else:
                step = machine.failed(run.failure(err)[1])
    run.end(step)


def _watched(on_error: Any) -> Any:
    """The client's default retry of a conditional upload
    (``DEFAULT_RETRY``, which ``DEFAULT_RETRY_IF_GENERATION_SPECIFIED``
    gives it, for the guard always sets ``if_generation_match``), calling
    ``on_error`` with each attempt's error that it retries: an attempt with
    no answer (a dropped connection, a timeout) or a 5xx, 408 or 429."""
    import copy
    import importlib

    # The caller's own package, imported when used (it has no type stubs).
    retry: Any = copy.copy(importlib.import_module("google.cloud.storage.retry").DEFAULT_RETRY)
    retry._on_error = on_error  # google.api_core.retry.Retry's; no public setter
    return retry


def _status_of(err: BaseException) -> int | None:
    """The HTTP status of an attempt's error (``google.api_core``'s
    ``code``, or the status of the response an upload's ``InvalidResponse``
    carries), None for an attempt that got no answer."""
    code = getattr(err, "code", None)
    if isinstance(code, int):
        return code
    status = getattr(getattr(err, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _precondition_failed(err: BaseException) -> bool:
    return getattr(err, "code", None) == 412
