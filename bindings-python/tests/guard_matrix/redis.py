"""The matrix's redis backend: the redis-server at $TINYSTORE_REDIS_URL
through redis-py; the resource a key without a hash tag, so its fence is
kept at ``{<key>}:tinystore-fence``. Each write sets the key to the
fence's text, which ``recorded`` reads back."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from typing import Any

from tinystore.guard import redis as guard_redis

from . import Backend, Failed, Outcome, Step, expect, fence

# The caller's own script of the own_script action.
OWN_SCRIPT = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])"
# The ACL user that may only read, for the permission action.
READER = "tinystore_guard_reader"


class Redis(Backend):
    name = "redis"

    def __init__(self, scenario: str) -> None:
        super().__init__(scenario)
        import redis

        self.redis: Any = redis
        url = os.environ.get("TINYSTORE_REDIS_URL")
        if not url:
            raise Failed("TINYSTORE_REDIS_URL is unset: run under tests/guards/with-redis.sh")
        self.url = url
        self.client: Any = redis.Redis.from_url(url, decode_responses=True)

    def close(self) -> None:
        self.client.close()

    def write(self, fence: int, body: str | None, resource: str | None = None, client: Any = None) -> Outcome:
        key = self.resource if resource is None else resource
        try:
            guard_redis.set(client or self.client, key, str(fence), fence)
        except Exception as err:
            return err
        return None

    def recorded(self) -> int | None:
        value = self.client.get(self.resource)
        return None if value is None else fence(value)

    def corrupt(self) -> None:
        self.client.set(f"{{{self.resource}}}:tinystore-fence", "not-a-fence")

    def nothing_written(self) -> Callable[[], None]:
        before = sorted(self.client.keys(f"*{self.resource}*"))

        def check() -> None:
            after = sorted(self.client.keys(f"*{self.resource}*"))
            expect(after == before, f"a refused write changed the keys: {before} -> {after}")

        return check

    def step_own_script(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        outcome: Outcome = None
        try:
            reply = guard_redis.script(self.client, self.resource, OWN_SCRIPT, f, args=[str(f)])
            expect(reply == str(f), f"the script's reply was {reply!r}, not {str(f)!r}")
        except Failed:
            raise
        except Exception as err:
            outcome = err
        self.judge(step["expect"], outcome, f)

    def step_permission(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        self.client.acl_setuser(READER, enabled=True, passwords=["+tinystore"], keys=["~*"], commands=["+@read"])
        reader = self.redis.Redis.from_url(self.url, username=READER, password="tinystore")
        try:
            self.judge(step["expect"], self.write(f, None, client=reader), f)
        finally:
            reader.close()

    def step_server_gone(self, args: dict[str, Any], step: Step) -> None:
        f = fence(args["fence"])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        gone = self.redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=2)
        try:
            self.judge(step["expect"], self.write(f, None, client=gone), f)
        finally:
            gone.close()

    def driver_error(self, kind: str, err: BaseException) -> bool:
        exceptions = self.redis.exceptions
        if kind == "unavailable":
            return isinstance(err, exceptions.ConnectionError)
        if kind == "permission":
            return isinstance(err, exceptions.NoPermissionError)
        return False
