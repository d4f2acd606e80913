"""tinystore.guard.s3 against moto's real S3 server on loopback
($TINYSTORE_S3_URL; make test-python starts one with
tests/guards/with-s3.sh): every object_guard case of vectors/behaviour.json
on the layout of one object per fence under the key; writers that come in
between the guard's requests (a real second client, called at a chosen
point: no sleeps), smaller or larger, before or after its put; get, its
tombstones and the caller's metadata; a reader whose object a later writer
deletes under it; bad arguments refused before any request; an unreachable
store and, on a second moto server with IAM enforced, a writer denied
the listing (s3:List*) or the put, each boto3's own error with nothing written.

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
from dataclasses import dataclass, field
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
import botocore.config  # type: ignore[import-untyped]  # noqa: E402
import botocore.exceptions  # type: ignore[import-untyped]  # noqa: E402


def client(url: str | None = S3_URL, **keys: str) -> Any:
    return boto3.client(
        "s3",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id=keys.get("key", "test"),
        aws_secret_access_key=keys.get("secret", "test"),
        config=botocore.config.Config(retries={"total_max_attempts": 1}),
    )


@pytest.fixture
def s3() -> Any:
    return client()


@pytest.fixture
def bucket(s3: Any) -> str:
    name = f"guard-{uuid.uuid4().hex[:20]}"
    s3.create_bucket(Bucket=name)
    return name


PREFIX = "/tinystore-fence/"


def fence40(n: int) -> str:
    return f"{n:040d}"


def fences(s3: Any, bucket: str, key: str) -> list[str]:
    """The rests of the keys under KEY/tinystore-fence/, in order."""
    listed = s3.list_objects_v2(Bucket=bucket, Prefix=key + PREFIX).get("Contents", [])
    return [str(o["Key"]).removeprefix(key + PREFIX) for o in listed]


def everything(s3: Any, bucket: str) -> list[tuple[str, str]]:
    """Every object's key and ETag in the bucket."""
    return [(str(o["Key"]), str(o["ETag"])) for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]


def read(s3: Any, bucket: str, key: str) -> tuple[bytes, dict[str, str]] | None:
    """A plain object's body and metadata, or None."""
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
    stored: str | None
    plain: bool
    body: str
    fence: int
    expect: str
    read_after: int | None
    listed_after: list[str] | None
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
            stored=v.get("stored"),
            plain=v.get("plain", False),
            body=v.get("body", "new"),
            fence=tinystore.parse_fence(v["fence"]),
            expect=v["expect"],
            read_after=tinystore.parse_fence(v["read_after"]) if "read_after" in v else None,
            listed_after=v.get("listed_after"),
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
    if case.stored is not None:
        s3.put_object(Bucket=bucket, Key=case.key + PREFIX + case.stored, Body=b"old")
    if case.plain:
        s3.put_object(Bucket=bucket, Key=case.key, Body=b"plain")
    before = everything(s3, bucket)
    if case.expect == "written":
        guard_s3.put(s3, bucket, case.key, case.body, case.fence)
        found = guard_s3.get(s3, bucket, case.key)
        assert found is not None and (found.body, found.fence) == (case.body.encode(), case.read_after)
        assert fences(s3, bucket, case.key) == case.listed_after
        if case.plain:
            assert read(s3, bucket, case.key) == (b"plain", {}), "the guard changed an object it never wrote"
        return
    with pytest.raises(ERRORS[case.expect]) as caught:
        guard_s3.put(s3, bucket, case.key, case.body, case.fence)
    assert caught.value.code == case.expect
    if case.message_has is not None:
        assert case.message_has in str(caught.value)
    if isinstance(caught.value, tinystore.Stale):
        assert (caught.value.resource, caught.value.fence, caught.value.largest) == (
            f"{bucket}/{case.key}",
            case.fence,
            case.largest,
        )
    assert everything(s3, bucket) == before, "a refused put changed the bucket"


@dataclass
class Between:
    """The real client, with another writer (a guarded put through a second
    real client) called right after the guard's request number ``after``
    (1: its first listing; 2: its put) is answered."""

    real: Any
    bucket: str
    key: str
    after: int
    fence: int
    body: str = "between"
    requests: list[str] = field(default_factory=list)
    outcome: BaseException | None = None

    def __getattr__(self, name: str) -> Any:
        def call(**kwargs: Any) -> Any:
            result = getattr(self.real, name)(**kwargs)
            self.requests.append(name)
            if len(self.requests) == self.after:
                try:
                    guard_s3.put(client(), self.bucket, self.key, self.body, self.fence)
                except tinystore.Error as err:
                    self.outcome = err
            return result

        return call


def test_a_smaller_fence_written_in_between_is_tidied_away(s3: Any, bucket: str) -> None:
    between = Between(s3, bucket, "k", after=1, fence=6)
    guard_s3.put(between, bucket, "k", "mine", 7)
    assert between.outcome is None
    assert between.requests[:3] == ["list_objects_v2", "put_object", "list_objects_v2"]
    assert fences(s3, bucket, "k") == [fence40(7)]
    found = guard_s3.get(s3, bucket, "k")
    assert found is not None and (found.body, found.fence) == (b"mine", 7)


@pytest.mark.parametrize("after", [1, 2], ids=["before-its-put", "after-its-put"])
def test_a_larger_fence_written_in_between_makes_it_stale_and_removes_its_object(
    s3: Any, bucket: str, after: int
) -> None:
    guard_s3.put(s3, bucket, "k", "first", 5)
    between = Between(s3, bucket, "k", after=after, fence=9)
    with pytest.raises(tinystore.Stale) as caught:
        guard_s3.put(between, bucket, "k", "late", 7)
    assert between.outcome is None
    assert (caught.value.resource, caught.value.fence, caught.value.largest) == (f"{bucket}/k", 7, 9)
    assert "delete_object" in between.requests, "the late write's own object was left behind"
    assert fences(s3, bucket, "k") == [fence40(9)]
    found = guard_s3.get(s3, bucket, "k")
    assert found is not None and (found.body, found.fence) == (b"between", 9)


def test_a_late_write_over_a_repeated_body_is_stale(s3: Any, bucket: str) -> None:
    """The ABA of ETags: X (100), then, while the writer of 101 is paused
    after its first listing, Y (102) and X again (103): its write is stale
    and the object stays X with fence 103."""
    guard_s3.put(s3, bucket, "k", "X", 100)

    class Paused(Between):
        def __getattr__(self, name: str) -> Any:
            def call(**kwargs: Any) -> Any:
                result = getattr(self.real, name)(**kwargs)
                self.requests.append(name)
                if len(self.requests) == 1:
                    guard_s3.put(client(), bucket, "k", "Y", 102)
                    guard_s3.put(client(), bucket, "k", "X", 103)
                return result

            return call

    with pytest.raises(tinystore.Stale) as caught:
        guard_s3.put(Paused(s3, bucket, "k", after=0, fence=0), bucket, "k", "L", 101)
    assert caught.value.largest == 103
    found = guard_s3.get(s3, bucket, "k")
    assert found is not None and (found.body, found.fence) == (b"X", 103)


def test_the_same_body_under_a_later_fence_is_written(s3: Any, bucket: str) -> None:
    guard_s3.put(s3, bucket, "k", "same", 1)
    guard_s3.put(s3, bucket, "k", "same", 2)
    found = guard_s3.get(s3, bucket, "k")
    assert found is not None and (found.body, found.fence) == (b"same", 2)


def test_delete_leaves_a_tombstone_that_keeps_the_fence(s3: Any, bucket: str) -> None:
    guard_s3.put(s3, bucket, "k", "summary", 5, metadata={"owner": "chat-7"})
    assert guard_s3.get(s3, bucket, "k") == guard_s3.Found(b"summary", 5, {"owner": "chat-7"})
    assert read(s3, bucket, "k" + PREFIX + fence40(5)) == (b"summary", {"owner": "chat-7", "tinystore-fence": fence40(5)})
    with pytest.raises(tinystore.Stale):
        guard_s3.delete(s3, bucket, "k", 4)
    guard_s3.delete(s3, bucket, "k", 6)
    assert guard_s3.get(s3, bucket, "k") is None
    assert read(s3, bucket, "k" + PREFIX + fence40(6)) == (b"", {"tinystore-deleted": "true", "tinystore-fence": fence40(6)})
    with pytest.raises(tinystore.Stale) as caught:  # the late holder cannot bring it back
        guard_s3.put(s3, bucket, "k", "late", 5)
    assert caught.value.largest == 6
    guard_s3.delete(s3, bucket, "k", 6)  # deleting again is fine
    guard_s3.delete(s3, bucket, "k", 7)
    assert fences(s3, bucket, "k") == [fence40(7)]
    guard_s3.put(s3, bucket, "k", "again", 8)
    assert guard_s3.get(s3, bucket, "k") == guard_s3.Found(b"again", 8, {})


def test_get_of_nothing_and_of_a_stray_object(s3: Any, bucket: str) -> None:
    assert guard_s3.get(s3, bucket, "never") is None
    s3.put_object(Bucket=bucket, Key="k", Body=b"plain")  # not the guard's: not read
    assert guard_s3.get(s3, bucket, "k") is None
    s3.put_object(Bucket=bucket, Key="k" + PREFIX + "notes.txt", Body=b"by hand")
    with pytest.raises(tinystore.Corrupt, match="notes.txt") as caught:
        guard_s3.get(s3, bucket, "k")
    assert f'"{bucket}/k"' in str(caught.value)


class Deleting:
    """The real client; after each of the first ``times`` listings, a later
    writer's tidying deletes the largest fence's object it listed."""

    def __init__(self, real: Any, times: int) -> None:
        self.real, self.times, self.lists = real, times, 0

    def list_objects_v2(self, **kwargs: Any) -> Any:
        page = self.real.list_objects_v2(**kwargs)
        self.lists += 1
        if self.lists <= self.times:
            largest = max(str(o["Key"]) for o in page["Contents"])
            self.real.delete_object(Bucket=kwargs["Bucket"], Key=largest)
        return page

    def get_object(self, **kwargs: Any) -> Any:
        return self.real.get_object(**kwargs)


def test_a_reader_whose_object_is_deleted_under_it_lists_again_then_gives_up(s3: Any, bucket: str) -> None:
    for n in range(1, guard_s3.MAX_TRIES + 2):
        s3.put_object(Bucket=bucket, Key="k" + PREFIX + fence40(n), Body=f"v{n}".encode())
    reader = Deleting(s3, times=1)
    found = guard_s3.get(reader, bucket, "k")
    assert reader.lists == 2 and found is not None and (found.body, found.fence) == (b"v5", 5)
    reader = Deleting(s3, times=guard_s3.MAX_TRIES)
    with pytest.raises(tinystore.Limit, match=f'"{bucket}/k"'):
        guard_s3.get(reader, bucket, "k")
    assert reader.lists == guard_s3.MAX_TRIES


def test_the_etag_is_the_bodys_md5(s3: Any, bucket: str) -> None:
    got = guard_s3.put(s3, bucket, "k", "héllo", 1)
    assert got["ETag"].strip('"') == hashlib.md5("héllo".encode()).hexdigest()


def test_an_unreachable_store_is_boto3s_own_error(bucket: str) -> None:
    dead = client(f"http://127.0.0.1:{free_port()}")
    with pytest.raises(botocore.exceptions.EndpointConnectionError) as caught:
        guard_s3.put(dead, bucket, "k", "x", 1)
    assert not isinstance(caught.value, tinystore.Error)
    assert not tinystore.guard.is_serialization_failure(caught.value)
    with pytest.raises(botocore.exceptions.EndpointConnectionError):
        guard_s3.get(dead, bucket, "k")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", "k", b"x", 1, None), 'it was given bucket "" and key "k"'),
        (("b", "", b"x", 1, None), 'it was given bucket "b" and key ""'),
        ((None, "k", b"x", 1, None), "bucket must be a str, not NoneType"),
        (("b", b"k", b"x", 1, None), "key must be a str, not bytes"),
        (("b", "chats/\ud800", b"x", 1, None), "lone surrogate"),
        (("b", "a\0b", b"x", 1, None), "NUL"),
        (("b", "a/tinystore-fence/b", b"x", 1, None), "choose another key"),
        (("b", "k" * 1000, b"x", 1, None), "a guarded key is at most"),
        (("b", "k", "\ud800", 1, None), "lone surrogate"),
        (("b", "k", 42, 1, None), "body must be bytes or a str, not int"),
        (("b", "k", b"x", -1, None), "fence -1 is not from 0 to 2^128-1"),
        (("b", "k", b"x", 2**128, None), "is not from 0 to 2^128-1"),
        (("b", "k", b"x", True, None), "a fence must be an int, not bool"),
        (("b", "k", b"x", "7", None), "a fence must be an int, not str"),
        (("b", "k", b"x", 1, {"Tinystore-Fence": "9"}), "the guard's own"),
        (("b", "k", b"x", 1, {"a": 1}), "must map str to str"),
        (("b", "k", b"x", 1, ["a"]), "must be a mapping"),
        (("b", "k", b"x", 1, {"a": "\udc00"}), "lone surrogate"),
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
    if body == b"x" and metadata is None:  # the same bucket, key and fence to delete and get
        with pytest.raises(tinystore.Invalid, match=message.replace("^", r"\^")):
            guard_s3.delete(NoRequests(), bucket, key, fence)
        if isinstance(fence, int) and 0 <= fence < 2**128 and not isinstance(fence, bool):
            with pytest.raises(tinystore.Invalid, match=message.replace("^", r"\^")):
                guard_s3.get(NoRequests(), bucket, key)


def test_a_writer_the_store_refuses_gets_boto3s_own_403_with_nothing_written(tmp_path: Path) -> None:
    """A second moto server that enforces IAM: a writer denied the listing
    (s3:List*, which covers s3:ListBucket, the permission ListObjectsV2
    needs: moto 5.2 checks the listing under its own action name, so a deny
    of s3:ListBucket alone is not enforced there), or s3:PutObject, gets
    boto3's own ClientError (403 AccessDenied), and nothing is written."""
    server = os.environ.get("MOTO_SERVER", "moto_server")
    port = free_port()
    # The IAM set-up's requests (three users: 3 each) are let through unsigned.
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT="9")
    proc = subprocess.Popen(
        [server, "-H", "127.0.0.1", "-p", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for(url)
        iam = boto3.client(
            "iam", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
        )

        def user(name: str, denied: list[str]) -> Any:
            iam.create_user(UserName=name)
            statements: list[dict[str, Any]] = [{"Effect": "Allow", "Action": ["s3:*"], "Resource": "*"}]
            if denied:
                statements.append({"Effect": "Deny", "Action": denied, "Resource": "*"})
            policy = {"Version": "2012-10-17", "Statement": statements}
            iam.put_user_policy(UserName=name, PolicyName="p", PolicyDocument=json.dumps(policy))
            made = iam.create_access_key(UserName=name)["AccessKey"]
            return client(url, key=made["AccessKeyId"], secret=made["SecretAccessKey"])

        admin = user("admin", [])
        writers = [user("no-list", ["s3:List*"]), user("no-put", ["s3:PutObject"])]
        admin.create_bucket(Bucket="refused")
        for writer in writers:
            with pytest.raises(botocore.exceptions.ClientError) as caught:
                guard_s3.put(writer, "refused", "k", b"new", 7)
            assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
            assert caught.value.response["Error"]["Code"] == "AccessDenied"
            assert admin.list_objects_v2(Bucket="refused").get("Contents", []) == []
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
