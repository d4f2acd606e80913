"""tinystore.guard.redis on a real redis-server ($TINYSTORE_REDIS_URL;
tests/guards/with-redis.sh starts one), through redis-py, sync and asyncio:
the rule on SET, DEL, HSET and your own script, a script flushed from the server's cache, a
hand-edited fence key, a write Redis refuses, bad arguments refused before
any call, and the server gone.

Without $TINYSTORE_REDIS_URL these tests skip, unless
TINYSTORE_REQUIRE_REDIS=1 (as `make test` sets), where they fail."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

import tinystore
from tinystore.guard import redis as guard

redis: Any = pytest.importorskip("redis")
redis_asyncio: Any = pytest.importorskip("redis.asyncio")

URL = os.environ.get("TINYSTORE_REDIS_URL")
if URL is None:
    if os.environ.get("TINYSTORE_REQUIRE_REDIS") == "1":
        raise RuntimeError("TINYSTORE_REDIS_URL is not set: run under tests/guards/with-redis.sh")
    pytest.skip("TINYSTORE_REDIS_URL is not set", allow_module_level=True)


@pytest.fixture
def r() -> Iterator[Any]:
    client = redis.Redis.from_url(URL)
    yield client
    client.close()


def key(name: str) -> str:
    return f"tinystore-test-py:{uuid.uuid4().hex}:{name}"


# Arguments of the wrong type, as a caller without a type checker passes them.
BYTES_KEY: Any = b"k"
INT_VALUE: Any = 7
PAIRS: Any = [("f", "v")]
STR_KEYS: Any = "{k}:a"


def register(k: str) -> str:
    return f"{{{k}}}:tinystore-fence"


def test_set_accepts_equal_and_larger_and_refuses_smaller_with_the_three(r: Any) -> None:
    k = key("set")
    guard.set(r, k, "v5", 5)
    guard.set(r, k, "v5 again", 5)
    guard.set(r, k, "v7", 7)
    with pytest.raises(tinystore.Stale) as caught:
        guard.set(r, k, "late", 6)
    assert (caught.value.resource, caught.value.fence, caught.value.largest) == (k, 6, 7)
    assert r.get(k) == b"v7"
    assert r.get(register(k)) == str(7).zfill(40).encode()


def test_delete_keeps_the_fence_so_a_late_set_stays_refused(r: Any) -> None:
    k = key("del")
    guard.set(r, k, "v", 3)
    guard.delete(r, k, 4)
    with pytest.raises(tinystore.Stale):
        guard.set(r, k, "late", 3)
    assert r.exists(k) == 0


def test_hset_writes_its_fields_and_a_late_one_writes_none(r: Any) -> None:
    k = f"user:{{{uuid.uuid4().hex}}}:profile"
    guard.hset(r, k, {"name": "ada", "plan": "pro"}, 2)
    with pytest.raises(tinystore.Stale):
        guard.hset(r, k, {"plan": "free"}, 1)
    assert r.hgetall(k) == {b"name": b"ada", b"plan": b"pro"}
    assert r.exists(f"{k}:tinystore-fence") == 1


def test_a_script_flushed_from_the_servers_cache_is_sent_again(r: Any) -> None:
    k = key("flushed")
    guard.set(r, k, "a", 1)
    r.script_flush()
    guard.set(r, k, "b", 2)
    assert r.get(k) == b"b"


def test_a_hand_edited_fence_key_is_corrupt_and_nothing_is_written(r: Any) -> None:
    k = key("edited")
    r.set(register(k), "12")
    with pytest.raises(tinystore.Corrupt, match="tinystore-fence"):
        guard.set(r, k, "v", 9)
    assert r.exists(k) == 0


def test_a_write_redis_refuses_is_the_clients_error_and_records_nothing(r: Any) -> None:
    k = key("a-string")
    r.set(k, "plain")
    with pytest.raises(redis.exceptions.ResponseError, match="WRONGTYPE"):
        guard.hset(r, k, {"f": "v"}, 1)
    assert r.exists(register(k)) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda r: guard.set(r, "a}b", "v", 1), "hash tag"),
        (lambda r: guard.set(r, BYTES_KEY, "v", 1), "must be a str"),
        (lambda r: guard.set(r, "k", INT_VALUE, 1), "must be a str"),
        (lambda r: guard.set(r, "k", "v", -1), "fence"),
        (lambda r: guard.hset(r, "k", {}, 1), "no field"),
        (lambda r: guard.hset(r, "k", PAIRS, 1), "dict"),
        (lambda r: guard.script(r, "{u}:a", "return 1", 1, keys=["{v}:b"]), "hash slot"),
        (lambda r: guard.script(r, "k", " ", 1), "no Lua text"),
        (lambda r: guard.script(r, "k", "return 1", 1, keys=STR_KEYS), "list or tuple"),
        (lambda r: guard.script(r, "k", "return 1", 1, args=[BYTES_KEY]), "must be a str"),
    ],
)
def test_bad_arguments_are_invalid_before_any_call(call: Any, message: str) -> None:
    class NoCalls:
        def register_script(self, script: str) -> Any:
            raise AssertionError("the guard called Redis on bad arguments")

    with pytest.raises(tinystore.Invalid, match=message):
        call(NoCalls())


OWN = "redis.call('SET', KEYS[1], ARGV[1]) return {ARGV[1], redis.call('INCRBY', KEYS[2], ARGV[2])}"


def test_your_script_runs_behind_the_check_and_its_reply_comes_back(r: Any) -> None:
    tag = uuid.uuid4().hex
    k, saves = f"{{{tag}}}:profile", f"{{{tag}}}:saves"
    assert guard.script(r, k, OWN, 5, keys=[saves], args=["pro", 2]) == [b"pro", 2]
    with pytest.raises(tinystore.Stale) as refused:
        guard.script(r, k, OWN, 4, keys=[saves], args=["late", 1])
    assert (refused.value.resource, refused.value.fence, refused.value.largest) == (k, 4, 5)
    assert (r.get(k), r.get(saves)) == (b"pro", b"2")
    with pytest.raises(tinystore.Stale):
        guard.set(r, k, "late", 4)


def test_your_script_failing_half_way_keeps_its_writes_under_the_fence(r: Any) -> None:
    k = key("half")
    body = "redis.call('SET', KEYS[1], 'half') return redis.call('HSET', KEYS[1], 'f', 'v')"
    with pytest.raises(redis.exceptions.ResponseError, match="WRONGTYPE"):
        guard.script(r, k, body, 8)
    assert r.get(k) == b"half"
    with pytest.raises(tinystore.Stale):
        guard.set(r, k, "late", 7)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_the_server_gone_is_the_clients_connection_error() -> None:
    server = os.environ.get("TINYSTORE_REDIS_SERVER", "redis-server")
    port = free_port()
    proc = subprocess.Popen([server, "--bind", "127.0.0.1", "--port", str(port), "--save", ""], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not listen"
                time.sleep(0.02)
        client = redis.Redis(host="127.0.0.1", port=port)
        guard.set(client, "k", "v", 1)
    finally:
        proc.kill()
        proc.wait()
    with pytest.raises(redis.exceptions.ConnectionError):
        guard.set(client, "k", "v", 2)


def test_the_asyncio_client_keeps_the_same_rule() -> None:
    async def scene() -> None:
        ar = redis_asyncio.Redis.from_url(URL)
        try:
            k = key("async")
            await guard.set_async(ar, k, "v2", 2)
            await guard.hset_async(ar, f"{k}:h", {"f": "1"}, 2)
            with pytest.raises(tinystore.Stale):
                await guard.set_async(ar, k, "late", 1)
            await guard.delete_async(ar, k, 3)
            assert await ar.exists(k) == 0
            assert await guard.script_async(ar, k, "return ARGV[1]", 4, args=["mine"]) == b"mine"
            with pytest.raises(tinystore.Stale):
                await guard.script_async(ar, k, "return 1", 3)
        finally:
            await ar.aclose()

    asyncio.run(scene())


def test_given_the_lease_a_refusal_is_told_to_its_store(r: Any, tmp_path: Any) -> None:
    with tinystore.open(tmp_path / "store") as store:
        chats = store.locks("chats")
        old = chats.acquire_sync("42")
        old.release_sync()
        new = chats.acquire_sync("42")
        k = key("told")
        guard.set(r, k, "new", new)
        with pytest.raises(tinystore.Stale):
            guard.hset(r, k, {"f": "late"}, old)
        with pytest.raises(tinystore.Stale):
            guard.delete(r, k, old.fence)  # the fence alone: told to nobody
        told = [(g.name, g.kind, g.refused) for g in store.status_sync().late_writes_refused]
        assert told == [("chats", "lock", 1)]
