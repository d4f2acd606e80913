"""The guard on Azure Blob Storage, on the azure-storage-blob
``BlobClient`` you already have
(``service.get_blob_client("chats", "42")``)::

    from tinystore.guard import azure as guard

    guard.upload_blob(blob, summary, lease.fence)        # tinystore.Stale if a later holder wrote
    guard.upload_blob(blob, data, lease, metadata={"owner": "me"}, content_settings=settings)

Given the ``Lease`` itself rather than its fence, a refusal is also told
to its store, which counts the late writes refused per group.

The fence lives in the blob's metadata (``tinystore_fence``, 40 digits:
Azure's metadata names are C# identifiers). A guarded upload reads the
blob's ETag and fence, raises :class:`tinystore.Stale` (``.resource``,
``.fence``, ``.largest``) when the fence is larger, and otherwise uploads
with ``If-Match`` on that ETag (``If-None-Match: *`` for a new blob); a
writer that came in between makes it read and decide again. The resource
is ``"CONTAINER/NAME"``. ``Corrupt`` for a fence edited by hand;
``Invalid`` for metadata under the guard's own key; ``Limit`` after five
uploads lost to other writers in a row. The client's own errors are raised
as it raised them (``azure.core.exceptions``). A delete cannot be guarded:
it takes the fence with the blob (docs/guards.md says what to do instead).

azure-storage-blob makes an upload again when an attempt's answer is lost
(a dropped connection, a timeout, a 5xx or 408). The guard watches each
attempt made again through the per-call ``retry_hook``, which the client's
retry policy calls with that attempt's answer (none when it got none)
before it makes the next one, and which calls yours, if you give one:
when an attempt went unanswered, or was answered with a 5xx or 408, and
the upload, made again, finds a larger fence, the call raises
:class:`tinystore.Unavailable` (that attempt may have been written;
whether it was is unknown), not ``Stale``, and the lease's store is told
nothing.
"""

from __future__ import annotations

from typing import Any

from .. import _native
from .._native import Lease
from ._steps import Run
from ._under import told

METADATA_KEY = "tinystore_fence"


def upload_blob(blob: Any, data: bytes | str, fence: int | Lease, *, metadata: dict[str, str] | None = None,
                **kwargs: Any) -> Any:
    """``data`` uploaded to ``blob`` (a ``BlobClient``) with your
    ``metadata`` and any other keyword ``upload_blob`` takes but the
    conditions (``overwrite``, ``etag``, ``match_condition``: the guard's),
    guarded by ``fence`` (an int, or the ``Lease`` itself: then a refusal is
    also told to its store); the upload's response."""
    mine = dict(metadata or {})
    resource = f"{blob.container_name}/{blob.blob_name}"
    _native.versioned_check_metadata("azure", resource, list(mine))
    taken = sorted({"overwrite", "etag", "match_condition", "if_match", "if_none_match"} & set(kwargs))
    if taken:
        from .._errors import Invalid

        raise Invalid(f"a guarded upload to {resource!r} sets its own conditions, not {', '.join(taken)}")
    with told(fence, resource, "azure") as given:
        return _upload(blob, data, given, resource, mine, kwargs)


def _upload(blob: Any, data: bytes | str, fence: int, resource: str, mine: dict[str, str],
            kwargs: dict[str, Any]) -> Any:
    from azure.core import MatchConditions  # the caller's own package: imported when used

    machine = _native.VersionedCheck("azure", resource, fence)
    run = Run()
    step = machine.start()
    response: Any = None
    while step[0] != "done":
        try:
            if step[0] == "read":
                step = _read(blob, machine)
            else:
                _, version, key, text = step
                conditions: dict[str, Any] = (
                    {"overwrite": False} if version is None
                    else {"overwrite": True, "etag": version, "match_condition": MatchConditions.IfNotModified}
                )
                retried: list[int | None] = []
                try:
                    response = blob.upload_blob(data, metadata={**mine, key: text}, **conditions,
                                                **{**kwargs, "retry_hook": _watched(retried, kwargs)})
                finally:
                    for status in retried:
                        machine.attempted(status)
                step = machine.written()
        except Exception as err:  # the client's: core classifies it
            if step[0] == "put" and _condition_failed(err):
                step = machine.condition_failed()
            else:
                step = machine.failed(run.failure(err)[1])
    run.end(step)
    return response


def _watched(retried: list[int | None], kwargs: dict[str, Any]) -> Any:
    """The upload's ``retry_hook``: notes in ``retried`` the status of
    each attempt the client makes again (None when it got no answer), then
    calls the caller's own ``retry_hook``, if given."""
    theirs = kwargs.get("retry_hook")

    def hook(**attempt: Any) -> None:
        response = attempt.get("response")
        status = getattr(response, "status_code", None)
        retried.append(status if isinstance(status, int) else None)
        if theirs is not None:
            theirs(**attempt)

    return hook


def _read(blob: Any, machine: Any) -> Any:
    from azure.core.exceptions import ResourceNotFoundError

    try:
        props = blob.get_blob_properties()
    except ResourceNotFoundError:
        return machine.absent()
    # Azure keeps metadata names as written but compares them ignoring case.
    fence_text = next((v for k, v in (props.metadata or {}).items() if k.lower() == METADATA_KEY), None)
    return machine.found(str(props.etag), fence_text)


def _condition_failed(err: BaseException) -> bool:
    # 412 ConditionNotMet for If-Match; 409 BlobAlreadyExists for If-None-Match: *.
    status = getattr(err, "status_code", None)
    code = getattr(err, "error_code", None)
    return status == 412 or (status == 409 and str(code) == "BlobAlreadyExists")
