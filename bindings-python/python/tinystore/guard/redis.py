"""The guard on Redis and Valkey, on the redis-py client you already made
(``redis.Redis``, ``redis.cluster.RedisCluster``; ``redis.asyncio``'s for the
``_async`` functions)::

    from tinystore.guard import redis as guard

    guard.set(r, "chats/42", summary, lease.fence)        # Stale if a later holder wrote
    guard.hset(r, "user:{42}:profile", {"plan": "pro"}, lease.fence)
    guard.delete(r, "chats/42", lease.fence)              # the fence stays: a late write is refused
    saves = guard.script(r, "user:{42}:profile", LUA, lease.fence, keys=["user:{42}:saves"], args=["pro"])
    await guard.set_async(ar, "chats/42", summary, lease.fence)

One Lua script (tinystore's core's) checks the fence kept beside the key
(``{chats/42}:tinystore-fence``, in the key's hash slot), makes the write
and records the fence; Redis runs it alone. redis-py's script helper sends
``EVALSHA`` and, on ``NOSCRIPT``, ``EVAL``. A smaller fence than one
recorded raises :class:`tinystore.Stale` (``.resource`` is the key) and
writes nothing. The client's own errors are raised as the client raised
them (``redis.exceptions.ResponseError`` for ``WRONGTYPE``, its
``ConnectionError``); ``Invalid`` for a key or value that is not a str, a
key no fence key can share a hash slot with (a ``}`` outside a hash tag), an
empty mapping, a script's key in another hash slot than the key's;
``Corrupt`` for a fence key edited by hand. redis-py is not
imported here: the client you pass is used as it is. Each call takes the
fence or the ``Lease`` itself: given the lease, a refusal is also told to
its store, which counts the late writes refused per group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import _native
from .._native import Lease
from ._steps import Run
from ._under import told


def set(client: Any, key: str, value: str, fence: int | Lease) -> None:  # noqa: A001 (the command's name)
    """``SET key value``, guarded by ``fence``."""
    with told(fence, key, "redis") as given:
        _run(client, _native.RedisCheck.set(key, value, given))


def delete(client: Any, key: str, fence: int | Lease) -> None:
    """``DEL key``, guarded by ``fence``; the fence stays recorded."""
    with told(fence, key, "redis") as given:
        _run(client, _native.RedisCheck.delete(key, given))


def hset(client: Any, key: str, mapping: Mapping[str, str], fence: int | Lease) -> None:
    """``HSET key field value ...`` of ``mapping``, guarded by ``fence``."""
    with told(fence, key, "redis") as given:
        _run(client, _native.RedisCheck.hset(key, dict(mapping) if isinstance(mapping, Mapping) else mapping, given))


def script(
    client: Any, key: str, body: str, fence: int | Lease, *, keys: Sequence[str] = (), args: Sequence[str | int] = ()
) -> Any:
    """Your own Lua ``body``, run behind the check in one script: the fence
    is recorded, then ``body`` runs with ``KEYS`` = ``[key, *keys]`` (all in
    ``key``'s hash slot) and ``ARGV`` = ``args``; its reply is returned (as
    the client returns replies). A body that fails half-way keeps what it
    wrote (Redis does not roll a script back), under the recorded fence."""
    with told(fence, key, "redis") as given:
        return _run(client, _native.RedisCheck.script(key, body, keys, args, given))


async def set_async(client: Any, key: str, value: str, fence: int | Lease) -> None:
    """:func:`set` on a ``redis.asyncio`` client."""
    with told(fence, key, "redis") as given:
        await _run_async(client, _native.RedisCheck.set(key, value, given))


async def delete_async(client: Any, key: str, fence: int | Lease) -> None:
    """:func:`delete` on a ``redis.asyncio`` client."""
    with told(fence, key, "redis") as given:
        await _run_async(client, _native.RedisCheck.delete(key, given))


async def hset_async(client: Any, key: str, mapping: Mapping[str, str], fence: int | Lease) -> None:
    """:func:`hset` on a ``redis.asyncio`` client."""
    with told(fence, key, "redis") as given:
        await _run_async(client, _native.RedisCheck.hset(key, dict(mapping) if isinstance(mapping, Mapping) else mapping, given))


async def script_async(
    client: Any, key: str, body: str, fence: int | Lease, *, keys: Sequence[str] = (), args: Sequence[str | int] = ()
) -> Any:
    """:func:`script` on a ``redis.asyncio`` client."""
    with told(fence, key, "redis") as given:
        return await _run_async(client, _native.RedisCheck.script(key, body, keys, args, given))


def _run(client: Any, machine: _native.RedisCheck) -> Any:
    """Runs the machine's one script on ``client``; the caller's reply (the
    second element of an accepted script's), else None."""
    step = machine.start()
    run = Run()
    reply: Any = None
    if step[0] == "eval":
        _, script, keys, args = step
        try:
            reply = client.register_script(script)(keys=list(keys), args=list(args))
        except Exception as err:
            step = machine.failed(run.failure(err)[1])
        else:
            step = machine.reply(_texts(reply))
    run.end(step)
    return _theirs(reply)


async def _run_async(client: Any, machine: _native.RedisCheck) -> Any:
    step = machine.start()
    run = Run()
    reply: Any = None
    if step[0] == "eval":
        _, script, keys, args = step
        try:
            reply = await client.register_script(script)(keys=list(keys), args=list(args))
        except Exception as err:
            step = machine.failed(run.failure(err)[1])
        else:
            step = machine.reply(_texts(reply))
    run.end(step)
    return _theirs(reply)


def _theirs(reply: object) -> Any:
    """The caller's own script's reply within the guard's: its second element."""
    return reply[1] if isinstance(reply, list) and len(reply) > 1 else None


def _texts(reply: object) -> list[str]:
    """The script's reply as text, whether the client decodes responses or
    gives bytes."""
    if not isinstance(reply, list):
        return [repr(reply)]
    return [item.decode("utf-8", "replace") if isinstance(item, bytes) else str(item) for item in reply]
