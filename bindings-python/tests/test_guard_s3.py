"""tinystore.guard.s3 against moto's real S3 server on loopback
($TINYSTORE_S3_URL; make test-python starts one with
tests/guards/with-s3.sh): every object_guard case of vectors/behaviour.json;
puts that lose a race (another client writes between the guard's HEAD and
its PUT) and decide again; a guarded delete's tombstone keeping a late
holder out; bad arguments refused before any request; and, on a second moto
server with IAM enforced, a writer denied s3:GetObject getting
`unauthorized` with nothing written.

Without $TINYSTORE_S3_URL these tests skip, unless TINYSTORE_REQUIRE_S3=1,
when they fail."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import tinystore
from conftest import REPO, free_port
from tinystore.guard import s3 as guard_s3

S3_URL = os.environ.get("TINYSTORE_S3_URL")

if not S3_URL:
    if os.environ.get("TINYSTORE_REQUIRE_S3") == "1":
        raise RuntimeError("TINYSTORE_REQUIRE_S3=1 but TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh")
    pytest.skip("TINYSTORE_S3_URL is unset (run under tests/guards/with-s3.sh)", allow_module_level=True)

import boto3  # type: ignore[import-untyped]  # noqa: E402


def client(url: str | None = S3_URL, **keys: str) -> Any:
    return boto3.client(
        "s3",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id=keys.get("key", "test"),
        aws_secret_access_key=keys.get("secret", "test"),
    )


@pytest.fixture
def s3() -> Any:
    return client()


@pytest.fixture
def bucket(s3: Any) -> str:
    name = f"guard-{uuid.uuid4().hex[:20]}"
    s3.create_bucket(Bucket=name)
    return name


def read(s3: Any, bucket: str, key: str) -> tuple[bytes, dict[str, str]] | None:
    """The object's body and metadata, or None."""
    try:
        got = s3.get_object(Bucket=bucket, Key=key)
    except s3.exceptions.NoSuchKey:
        return None
    return got["Body"].read(), dict(got["Metadata"])


@dataclass
class Case:
    """One case of the vectors' "object_guard" section."""

    id: str
    key: str
    has_stored: bool
    stored: str | None
    stored_body: str
    fence: int
    expect: str
    stored_after: str | None
    largest: int | None
    message_has: str | None


def load_cases() -> list[Case]:
    with open(REPO / "vectors" / "behaviour.json", encoding="utf-8") as f:
        raw = json.load(f)["object_guard"]["cases"]
    assert len(raw) >= 10, "the object_guard vectors have lost cases"
    return [
        Case(
            id=v["id"],
            key=v.get("key", "chats/42.json"),
            has_stored="stored" in v,
            stored=v.get("stored"),
            stored_body=v.get("stored_body", "old"),
            fence=tinystore.parse_fence(v["fence"]),
            expect=v["expect"],
            stored_after=v.get("stored_after"),
            largest=tinystore.parse_fence(v["largest"]) if "largest" in v else None,
            message_has=v.get("message_has"),
        )
        for v in raw
    ]


ERRORS: dict[str, type[tinystore.Error]] = {
    "stale": tinystore.Stale,
    "corrupt": tinystore.Corrupt,
    "invalid": tinystore.Invalid,
}


@pytest.mark.parametrize("case", load_cases(), ids=lambda c: c.id)
def test_object_guard_vectors(case: Case, s3: Any, bucket: str) -> None:
    if case.has_stored:
        meta = {} if case.stored is None else {"tinystore-fence": case.stored}
        s3.put_object(Bucket=bucket, Key=case.key, Body=case.stored_body.encode(), Metadata=meta)
    before = read(s3, bucket, case.key)
    if case.expect == "written":
        guard_s3.put(s3, bucket, case.key, "new", case.fence)
        after = read(s3, bucket, case.key)
        assert after is not None
        assert after[0] == b"new"
        assert after[1]["tinystore-fence"] == case.stored_after
        return
    with pytest.raises(ERRORS[case.expect]) as caught:
        guard_s3.put(s3, bucket, case.key, "new", case.fence)
    assert caught.value.code == case.expect
    if case.message_has is not None:
        assert case.message_has in str(caught.value)
    if isinstance(caught.value, tinystore.Stale):
        assert (caught.value.resource, caught.value.fence, caught.value.largest) == (
            f"{bucket}/{case.key}",
            case.fence,
            case.largest,
        )
    assert read(s3, bucket, case.key) == before, "a refused put changed the object"


class Racing:
    """The real client, with another writer that writes the object (a plain
    put through a second real client) right after some of the guard's
    HEADs: between the guard's read and its conditional write."""

    def __init__(self, real: Any, bucket: str, key: str, intrude: Callable[[int], dict[str, str] | None]) -> None:
        self.real = real
        self.other = client()
        self.bucket = bucket
        self.key = key
        self.intrude = intrude
        self.heads = 0
        self.puts: list[dict[str, Any]] = []

    def head_object(self, **kwargs: Any) -> Any:
        got = self.real.head_object(**kwargs)
        self.heads += 1
        meta = self.intrude(self.heads)
        if meta is not None:
            body = f"intruder {self.heads}".encode()
            self.other.put_object(Bucket=self.bucket, Key=self.key, Body=body, Metadata=meta)
        return got

    def put_object(self, **kwargs: Any) -> Any:
        self.puts.append({k: v for k, v in kwargs.items() if k in ("IfMatch", "IfNoneMatch")})
        return self.real.put_object(**kwargs)


def fence40(n: int) -> str:
    return f"{n:040d}"


def test_a_put_that_loses_a_race_reads_again_and_is_written(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="k", Body=b"old", Metadata={"tinystore-fence": fence40(5)})
    # After the first HEAD, another holder (fence 6) writes; the guard's
    # If-Match then fails with 412, and it decides again over fence 6.
    racing = Racing(s3, bucket, "k", lambda n: {"tinystore-fence": fence40(6)} if n == 1 else None)
    guard_s3.put(racing, bucket, "k", b"mine", 7)
    assert racing.heads == 2 and len(racing.puts) == 2
    assert racing.puts[0]["IfMatch"] != racing.puts[1]["IfMatch"]
    assert read(s3, bucket, "k") == (b"mine", {"tinystore-fence": fence40(7)})


def test_a_race_with_a_larger_fence_is_stale_on_the_second_decision(s3: Any, bucket: str) -> None:
    racing = Racing(s3, bucket, "k", lambda n: {"tinystore-fence": fence40(9)} if n == 1 else None)
    guard_s3.put(s3, bucket, "k", b"first", 5)
    with pytest.raises(tinystore.Stale) as caught:
        guard_s3.put(racing, bucket, "k", b"late", 7)
    assert (caught.value.fence, caught.value.largest) == (7, 9)
    assert racing.heads == 2 and len(racing.puts) == 1  # the second decision wrote nothing
    assert read(s3, bucket, "k") == (b"intruder 1", {"tinystore-fence": fence40(9)})


def test_a_race_on_the_first_write_is_caught_by_if_none_match(s3: Any, bucket: str) -> None:
    # No object at the HEAD; one appears before the PUT (If-None-Match: *).
    real_head = s3.head_object
    other = client()
    heads = []

    class FirstRace:
        def head_object(self, **kwargs: Any) -> Any:
            heads.append(1)
            try:
                return real_head(**kwargs)
            finally:
                if len(heads) == 1:
                    other.put_object(Bucket=bucket, Key="k", Body=b"other", Metadata={"tinystore-fence": fence40(3)})

        def put_object(self, **kwargs: Any) -> Any:
            return s3.put_object(**kwargs)

    guard_s3.put(FirstRace(), bucket, "k", "mine", 4)
    assert len(heads) == 2
    assert read(s3, bucket, "k") == (b"mine", {"tinystore-fence": fence40(4)})


def test_a_put_overtaken_every_time_gives_up_with_limit(s3: Any, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="k", Body=b"old", Metadata={"tinystore-fence": fence40(1)})
    racing = Racing(s3, bucket, "k", lambda n: {"tinystore-fence": fence40(2)})
    with pytest.raises(tinystore.Limit) as caught:
        guard_s3.put(racing, bucket, "k", b"mine", 3)
    assert f"{bucket}/k" in str(caught.value) and "412" in str(caught.value)
    assert racing.heads == guard_s3.MAX_TRIES == len(racing.puts)
    body, meta = read(s3, bucket, "k") or (b"", {})
    assert body.startswith(b"intruder") and meta["tinystore-fence"] == fence40(2)


def test_delete_leaves_a_tombstone_that_keeps_the_fence(s3: Any, bucket: str) -> None:
    guard_s3.put(s3, bucket, "k", "summary", 5, metadata={"owner": "chat-7"})
    assert read(s3, bucket, "k") == (b"summary", {"owner": "chat-7", "tinystore-fence": fence40(5)})
    with pytest.raises(tinystore.Stale):
        guard_s3.delete(s3, bucket, "k", 4)
    guard_s3.delete(s3, bucket, "k", 6)
    assert read(s3, bucket, "k") == (b"", {"tinystore-deleted": "true", "tinystore-fence": fence40(6)})
    with pytest.raises(tinystore.Stale) as caught:  # the late holder cannot bring it back
        guard_s3.put(s3, bucket, "k", "late", 5)
    assert caught.value.largest == 6
    with pytest.raises(tinystore.Invalid, match="ETag"):  # deleting a tombstone keeps its ETag
        guard_s3.delete(s3, bucket, "k", 7)
    guard_s3.put(s3, bucket, "k", "again", 7)
    assert read(s3, bucket, "k") == (b"again", {"tinystore-fence": fence40(7)})


def test_the_etag_is_the_bodys_md5(s3: Any, bucket: str) -> None:
    got = guard_s3.put(s3, bucket, "k", "héllo", 1)
    assert got["ETag"].strip('"') == hashlib.md5("héllo".encode()).hexdigest()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", "k", b"x", 1, None), "bucket is empty"),
        (("b", "", b"x", 1, None), "key is empty"),
        ((None, "k", b"x", 1, None), "bucket must be a str, not NoneType"),
        (("b", "k", 42, 1, None), "body must be bytes or a str, not int"),
        (("b", "k", b"x", -1, None), "fence -1 is not from 0 to 2^128-1"),
        (("b", "k", b"x", 2**128, None), "is not from 0 to 2^128-1"),
        (("b", "k", b"x", True, None), "a fence must be an int, not bool"),
        (("b", "k", b"x", "7", None), "a fence must be an int, not str"),
        (("b", "k", b"x", 1, {"Tinystore-Fence": "9"}), "the guard's own"),
        (("b", "k", b"x", 1, {"a": 1}), "must map str to str"),
        (("b", "k", b"x", 1, ["a"]), "must be a mapping"),
    ],
)
def test_bad_arguments_are_invalid_before_any_request(args: tuple[Any, ...], message: str) -> None:
    class NoRequests:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the guard called {name} on bad arguments")

    bucket, key, body, fence, metadata = args
    with pytest.raises(tinystore.Invalid) as caught:
        guard_s3.put(NoRequests(), bucket, key, body, fence, metadata=metadata)
    assert message in str(caught.value)


def test_a_write_with_no_right_to_read_metadata_is_unauthorized(tmp_path: Path) -> None:
    """A second moto server that enforces IAM: a user allowed s3:* but
    denied s3:GetObject (which covers HEAD) cannot use the guard."""
    server = os.environ.get("MOTO_SERVER", "moto_server")
    port = free_port()
    # The first three requests (the IAM set-up) are let through unsigned.
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT="3")
    proc = subprocess.Popen(
        [server, "-H", "127.0.0.1", "-p", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for(url)
        iam = boto3.client(
            "iam", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
        )
        iam.create_user(UserName="writer")
        policy = {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": ["s3:*"], "Resource": "*"},
                {"Effect": "Deny", "Action": ["s3:GetObject"], "Resource": "*"},
            ],
        }
        iam.put_user_policy(UserName="writer", PolicyName="no-read", PolicyDocument=json.dumps(policy))
        made = iam.create_access_key(UserName="writer")["AccessKey"]
        writer = client(url, key=made["AccessKeyId"], secret=made["SecretAccessKey"])
        writer.create_bucket(Bucket="no-read")
        for existing in (False, True):
            if existing:
                writer.put_object(Bucket="no-read", Key="k", Body=b"old")
            with pytest.raises(tinystore.Unauthorized) as caught:
                guard_s3.put(writer, "no-read", "k", b"new", 7)
            message = str(caught.value)
            assert '"no-read/k"' in message and "403" in message and "metadata" in message, message
            assert "nothing was written" in message
            keys = writer.list_objects_v2(Bucket="no-read").get("Contents", [])
            assert [(o["Key"], o["Size"]) for o in keys] == ([("k", 3)] if existing else [])
    finally:
        proc.terminate()
        proc.wait(10)


def wait_for(url: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{url}/moto-api/", timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
