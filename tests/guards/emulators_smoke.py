"""What fake-gcs-server and Azurite honour of the conditions a guard on
Google Cloud Storage or Azure Blob would use, asked through the usual
Python SDKs (google-cloud-storage, azure-storage-blob) and, for the XML API
and the simple upload other clients send, through plain HTTP. Run by hand,
not by `make test`, when either server's version changes, under both
wrappers, with the programs mk/guards.mk builds (the order of the two
wrappers does not matter):

    make gcs-deps azurite-deps python-env
    FAKE_GCS_SERVER=target/tools/fake-gcs-server bash tests/guards/with-gcs.sh \
      env AZURITE_BLOB=tests/guards/azurite/node_modules/.bin/azurite-blob bash tests/guards/with-azurite.sh \
      .venv-python/bin/python tests/guards/emulators_smoke.py

Prints one line per check, `ok` or `FAIL` with what came back, and `info`
lines for what is told but not required (conditions the emulator ignores
where the real service would refuse); exits 1 when a check failed. A store
whose variable is unset is skipped.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable

failures: list[str] = []


def check(name: str, ok: bool, seen: object = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {name}{'' if ok else f': {seen}'}")
    if not ok:
        failures.append(name)


def status_of(call: Callable[[], Any]) -> tuple[int | None, str]:
    """The HTTP status a client's call failed with (None if it did not)."""
    try:
        call()
    except Exception as err:  # each SDK's own error type; its status is what matters
        code = getattr(err, "code", None) or getattr(err, "status_code", None)
        return (int(code) if isinstance(code, int) else None), f"{type(err).__name__}: {str(err)[:160]}"
    return None, "no error"


def http(method: str, url: str, body: bytes = b"", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, data=body if method in ("PUT", "POST") else None, method=method,
                                 headers=headers or {})
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


def gcs(url: str) -> None:
    from google.api_core.exceptions import PreconditionFailed
    from google.cloud import storage  # type: ignore[import-untyped]

    # STORAGE_EMULATOR_HOST alone: anonymous credentials, the emulator's URL.
    client = storage.Client()
    bucket = client.bucket("tinystore")
    check("gcs: the wrapper's bucket tinystore exists", bucket.exists())
    name = f"smoke-{uuid.uuid4().hex[:8]}"
    blob = bucket.blob(name)

    # JSON API, multipart upload (the SDK's way for small bodies).
    blob.metadata = {"tinystore-fence": "7", "owner": "seven"}
    blob.upload_from_string(b"first", if_generation_match=0)
    g1 = blob.generation
    check("gcs: if_generation_match=0 creates a new object", g1 is not None and g1 > 0, g1)
    code, seen = status_of(lambda: bucket.blob(name).upload_from_string(b"again", if_generation_match=0))
    check("gcs: if_generation_match=0 on an existing object is 412", code == 412, seen)
    got = bucket.get_blob(name)
    check("gcs: custom metadata round-trips", got is not None and got.metadata == {"tinystore-fence": "7", "owner": "seven"},
          got and got.metadata)
    check("gcs: the refused upload wrote nothing", got is not None and got.download_as_bytes() == b"first")

    second = bucket.blob(name)
    second.metadata = {"tinystore-fence": "9"}
    second.upload_from_string(b"second", if_generation_match=g1)
    g2 = second.generation
    check("gcs: if_generation_match=<current> replaces it, with a new generation", g2 is not None and g2 != g1, (g1, g2))
    check("gcs: generations rise", g2 is not None and g1 is not None and g2 > g1, (g1, g2))
    code, seen = status_of(lambda: bucket.blob(name).upload_from_string(b"stale", if_generation_match=g1))
    check("gcs: if_generation_match=<an older generation> is 412", code == 412, seen)
    got = bucket.get_blob(name)
    check("gcs: metadata is replaced, not merged, by an upload", got is not None and got.metadata == {"tinystore-fence": "9"},
          got and got.metadata)
    check("gcs: 412 is google.api_core's PreconditionFailed",
          isinstance(_raised(lambda: bucket.blob(name).upload_from_string(b"x", if_generation_match=1)), PreconditionFailed))

    code, seen = status_of(lambda: bucket.blob(name).upload_from_string(b"x", if_generation_not_match=g2))
    check("gcs: if_generation_not_match=<current> is 412 (304 on reads)", code in (304, 412), seen)
    m = bucket.get_blob(name)
    assert m is not None
    code, seen = status_of(lambda: bucket.blob(name).upload_from_string(
        b"x", if_generation_match=g2, if_metageneration_match=(m.metageneration or 0) + 5))
    info("gcs: an upload with if_metageneration_match=<wrong>", code, "412")
    got = bucket.get_blob(name)
    assert got is not None
    g2 = got.generation

    # Resumable upload (the Python SDK's way for a stream of unknown size or
    # past 8 MiB; the Node and Go clients' default for larger bodies).
    big = b"r" * (300 * 1024)
    resumable = bucket.blob(name, chunk_size=256 * 1024)
    calls = _count(resumable, "_do_resumable_upload")
    code, seen = status_of(lambda: resumable.upload_from_file(io.BytesIO(big), if_generation_match=g1))
    check("gcs: a resumable upload on an older generation is 412", code == 412 and calls[0] == 1, (calls, seen))
    got = bucket.get_blob(name)
    check("gcs: the refused resumable upload wrote nothing", got is not None and got.generation == g2, got and got.generation)
    resumable = bucket.blob(name, chunk_size=256 * 1024)
    calls = _count(resumable, "_do_resumable_upload")
    resumable.metadata = {"tinystore-fence": "10"}
    resumable.upload_from_file(io.BytesIO(big), if_generation_match=g2)
    check("gcs: (that was a resumable upload)", calls[0] == 1, calls)
    got = bucket.get_blob(name)
    check("gcs: a resumable upload on the current generation lands, metadata too",
          got is not None and got.size == len(big) and got.metadata == {"tinystore-fence": "10"}, got and (got.size, got.metadata))

    # A simple (uploadType=media) upload, which some clients send for small
    # bodies: the condition is a query parameter on every upload type.
    media = f"{url}/upload/storage/v1/b/tinystore/o?uploadType=media&name={urllib.parse.quote(name)}"
    code, _, body = http("POST", media + f"&ifGenerationMatch={g1}", b"media")
    check("gcs: a media upload with ifGenerationMatch=<older> is 412", code == 412, (code, body[:200]))
    code, _, body = http("POST", media + "&ifGenerationMatch=0", b"media")
    check("gcs: a media upload with ifGenerationMatch=0 on an existing object is 412", code == 412, (code, body[:200]))

    # Writers racing on one generation: exactly one lands.
    racing = bucket.get_blob(name)
    assert racing is not None
    landed = _race(8, lambda i: bucket.blob(name).upload_from_string(f"racer {i}".encode(),
                                                                       if_generation_match=racing.generation))
    check("gcs: 8 uploads racing on one generation: exactly one lands, the others 412",
          landed == (1, 7), f"(landed, 412) = {landed}")

    # Reads, deletes and metadata patches on conditions: told, not required.
    code, _ = status_of(lambda: bucket.blob(name).reload(if_generation_match=g1))
    info("gcs: a metadata read with if_generation_match=<older>", code, "412")
    code, _ = status_of(lambda: bucket.blob(name).download_as_bytes(if_generation_match=g1))
    info("gcs: a download with if_generation_match=<older>", code, "412")
    p = bucket.get_blob(name)
    assert p is not None
    p.metadata = {"tinystore-fence": "11"}
    code, _ = status_of(lambda: p.patch(if_metageneration_match=(p.metageneration or 0) + 5))
    info("gcs: a metadata patch with if_metageneration_match=<wrong>", code, "412")
    code, _ = status_of(lambda: p.patch(if_generation_match=g1))
    info("gcs: a metadata patch with if_generation_match=<older>", code, "412")
    doomed = bucket.blob(name + "-delete")
    doomed.upload_from_string(b"d", if_generation_match=0)
    code, _ = status_of(lambda: bucket.blob(doomed.name).delete(if_generation_match=(doomed.generation or 0) - 1))
    info("gcs: a delete with if_generation_match=<older>", code, "412")
    got = bucket.get_blob(name)
    assert got is not None
    g3 = got.generation

    # The XML API (object_store's GCS client puts and reads there):
    # path-style on the public host 127.0.0.1:PORT. Reads answer; a plain
    # PUT is not served (only signed URLs' PUT, with no conditions).
    xml = f"{url}/tinystore/{urllib.parse.quote(name)}"
    code, headers, _ = http("HEAD", xml)
    check("gcs xml: HEAD gives x-goog-generation and x-goog-meta-*",
          code == 200 and headers.get("x-goog-generation") == str(g3) and "x-goog-meta-tinystore-fence" in headers,
          (code, headers))
    code, _, _ = http("GET", xml, headers={"x-goog-if-generation-match": str(g1)})
    info("gcs xml: GET with x-goog-if-generation-match: <older>", code if code != 200 else None, "412")
    for what, extra in [("<older>", {"x-goog-if-generation-match": str(g1)}), ("<current>", {"x-goog-if-generation-match": str(g3)}),
                        ("0", {"x-goog-if-generation-match": "0"}), ("none", {})]:
        code, _, body = http("PUT", xml, b"xml", {**extra, "x-goog-meta-tinystore-fence": "12", "Content-Type": "text/plain"})
        print(f"info gcs xml: PUT with x-goog-if-generation-match: {what}: {code} {body.decode(errors='replace').strip()[:70]}"
              " (real service: 200, or 412 when the condition fails)")
    got = bucket.get_blob(name)
    check("gcs xml: no XML PUT changed the object", got is not None and got.generation == g3, got and got.generation)


def info(what: str, code: int | None, real: str) -> None:
    print(f"info {what}: {code or 'no error, the condition ignored'} (real service: {real})")


def _count(obj: Any, method: str) -> list[int]:
    """Counts the calls of one method of obj."""
    calls, inner = [0], getattr(obj, method)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return inner(*args, **kwargs)

    setattr(obj, method, counted)
    return calls


def _race(n: int, upload: Callable[[int], Any]) -> tuple[int, int]:
    """Runs n uploads at once: how many landed, how many failed with 409 or 412."""
    from concurrent.futures import ThreadPoolExecutor

    barrier = threading.Barrier(n)

    def one(i: int) -> int | None:
        barrier.wait()
        code, _ = status_of(lambda: upload(i))
        return code

    with ThreadPoolExecutor(n) as pool:
        codes = list(pool.map(one, range(n)))
    return codes.count(None), sum(c in (409, 412) for c in codes)


def _azure(err: BaseException | None) -> tuple[int | None, str | None]:
    """An azure-core error's HTTP status and the service's error code."""
    code = getattr(err, "error_code", None)
    return getattr(err, "status_code", None), (None if code is None else str(getattr(code, "value", code)))


def _raised(call: Callable[[], Any]) -> BaseException | None:
    try:
        call()
    except Exception as err:
        return err
    return None


def azure(connection: str) -> None:
    from azure.core import MatchConditions
    from azure.core.exceptions import ResourceExistsError, ResourceModifiedError
    from azure.storage.blob import BlobServiceClient

    service = BlobServiceClient.from_connection_string(connection, retry_total=0)
    container = service.get_container_client("tinystore")
    check("azure: the wrapper's container tinystore exists", container.exists())
    name = f"smoke-{uuid.uuid4().hex[:8]}"
    blob = container.get_blob_client(name)

    # If-None-Match: * (match_condition=IfMissing; overwrite=False sends the
    # same, and turns the 412 into a ResourceExistsError BlobAlreadyExists).
    r1 = blob.upload_blob(b"first", metadata={"tinystore_fence": "7", "owner": "seven"},
                          match_condition=MatchConditions.IfMissing)
    e1 = r1["etag"]
    check("azure: If-None-Match * creates a new blob", bool(e1), r1)
    err = _raised(lambda: blob.upload_blob(b"again", match_condition=MatchConditions.IfMissing))
    check("azure: If-None-Match * on an existing blob is 409 BlobAlreadyExists (ResourceExistsError)",
          _azure(err) == (409, "BlobAlreadyExists") and isinstance(err, ResourceExistsError), repr(err)[:200])
    err = _raised(lambda: blob.upload_blob(b"again", overwrite=False))
    check("azure: so is overwrite=False", _azure(err) == (409, "BlobAlreadyExists"), repr(err)[:200])
    props = blob.get_blob_properties()
    check("azure: metadata round-trips", props.metadata == {"tinystore_fence": "7", "owner": "seven"}, props.metadata)
    check("azure: the refused upload wrote nothing", blob.download_blob().readall() == b"first")

    # If-Match: <etag>.
    r2 = blob.upload_blob(b"second", overwrite=True, metadata={"tinystore_fence": "9"},
                          etag=e1, match_condition=MatchConditions.IfNotModified)
    e2 = r2["etag"]
    check("azure: If-Match <current etag> replaces it, with a new etag", e2 and e2 != e1, (e1, e2))
    err = _raised(lambda: blob.upload_blob(b"stale", overwrite=True, etag=e1,
                                           match_condition=MatchConditions.IfNotModified))
    check("azure: If-Match <an older etag> is 412 ConditionNotMet", _azure(err) == (412, "ConditionNotMet"), repr(err)[:200])
    check("azure: that 412 is azure.core's ResourceModifiedError", isinstance(err, ResourceModifiedError), type(err))
    props = blob.get_blob_properties()
    check("azure: metadata is replaced, not merged, by an upload", props.metadata == {"tinystore_fence": "9"}, props.metadata)
    check("azure: the refused upload left the blob as it was", props.etag == e2, (props.etag, e2))

    # Block uploads (the SDK's way past max_single_put_size): the condition
    # goes on Put Block List.
    small = BlobServiceClient.from_connection_string(connection, retry_total=0, max_single_put_size=4 * 1024,
                                                     max_block_size=4 * 1024)
    chunked = small.get_blob_client("tinystore", name)
    big = b"b" * (10 * 1024)
    err = _raised(lambda: chunked.upload_blob(big, overwrite=True, etag=e1, match_condition=MatchConditions.IfNotModified))
    check("azure: a block upload (Put Block List) on an older etag is 412", getattr(err, "status_code", None) == 412,
          repr(err)[:200])
    check("azure: ... and wrote nothing", blob.get_blob_properties().etag == e2)
    r3 = chunked.upload_blob(big, overwrite=True, metadata={"tinystore_fence": "10"}, etag=e2,
                             match_condition=MatchConditions.IfNotModified)
    props = blob.get_blob_properties()
    check("azure: a block upload on the current etag lands, metadata too",
          props.size == len(big) and props.metadata == {"tinystore_fence": "10"}, (props.size, props.metadata))
    err = _raised(lambda: small.get_blob_client("tinystore", name + "-blocks").upload_blob(big, overwrite=False))
    check("azure: a block upload with If-None-Match * creates a new blob", err is None, repr(err)[:200])
    err = _raised(lambda: small.get_blob_client("tinystore", name + "-blocks").upload_blob(big, overwrite=False))
    check("azure: a block upload with If-None-Match * on an existing blob is 409 BlobAlreadyExists",
          _azure(err) == (409, "BlobAlreadyExists"), repr(err)[:200])
    e3 = r3["etag"]

    # Writers racing on one etag: exactly one lands.
    landed = _race(8, lambda i: blob.upload_blob(f"racer {i}".encode(), overwrite=True, etag=e3,
                                                 match_condition=MatchConditions.IfNotModified))
    check("azure: 8 uploads racing on one etag: exactly one lands, the others 412", landed == (1, 7),
          f"(landed, 412) = {landed}")
    e3 = blob.get_blob_properties().etag
    fresh = container.get_blob_client(name + "-race")
    landed = _race(8, lambda i: fresh.upload_blob(f"racer {i}".encode(), overwrite=False))
    check("azure: 8 creations racing (If-None-Match *): exactly one lands", landed[0] == 1, f"(landed, refused) = {landed}")

    # Reads, deletes and metadata sets on conditions.
    err = _raised(lambda: blob.download_blob(etag=e1, match_condition=MatchConditions.IfNotModified).readall())
    check("azure: a read with If-Match <older> is 412", getattr(err, "status_code", None) == 412, repr(err)[:200])
    err = _raised(lambda: blob.delete_blob(etag=e1, match_condition=MatchConditions.IfNotModified))
    check("azure: a delete with If-Match <older> is 412", getattr(err, "status_code", None) == 412, repr(err)[:200])
    err = _raised(lambda: blob.set_blob_metadata({"tinystore_fence": "11"}, etag=e1,
                                                 match_condition=MatchConditions.IfNotModified))
    check("azure: a metadata set with If-Match <older> is 412", getattr(err, "status_code", None) == 412, repr(err)[:200])
    check("azure: nothing above changed the blob", blob.get_blob_properties().etag == e3)

    # Metadata names: real Azure takes C# identifiers only (hence
    # tinystore_fence, not tinystore-fence).
    err = _raised(lambda: container.get_blob_client(name + "-dash").upload_blob(b"x", metadata={"tinystore-fence": "1"}))
    seen = "accepted" if err is None else " ".join(map(str, _azure(err)))
    print(f"info azure: metadata name with a dash: {seen} (real Azure: 400 InvalidMetadata)")
    cased = container.get_blob_client(name + "-case")
    cased.upload_blob(b"x", metadata={"TinyStore_Fence": "1"})
    print(f"info azure: a metadata name written TinyStore_Fence comes back as {sorted(cased.get_blob_properties().metadata)}"
          " (real Azure: as written; names are case-insensitive)")


def main() -> int:
    gcs_url, azure_connection = os.environ.get("TINYSTORE_GCS_URL"), os.environ.get("TINYSTORE_AZURE_CONNECTION_STRING")
    if gcs_url:
        gcs(gcs_url)
    else:
        print("skip gcs: TINYSTORE_GCS_URL is unset (run under tests/guards/with-gcs.sh)")
    if azure_connection:
        azure(azure_connection)
    else:
        print("skip azure: TINYSTORE_AZURE_CONNECTION_STRING is unset (run under tests/guards/with-azurite.sh)")
    print(f"{len(failures)} failed" + (f": {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
