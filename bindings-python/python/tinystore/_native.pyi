"""The native module: the tinystore core through pyo3. Use the package
``tinystore``, which wraps it; these are its exact types."""

import os
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, Literal, TypeAlias

from typing_extensions import Unpack

from ._options import Options, WeightedOptions

_Key: TypeAlias = str | int

DEFAULT_TTL: float
"""Seconds a lease lives when no ``ttl`` is set (the core's default)."""
DEFAULT_WAIT: float | None
"""How long ``acquire`` waits when no ``wait`` is set: ``None``, until the caller gives up."""
DEFAULT_RENEW: bool
"""Whether held leases renew themselves when no ``renew`` is set."""
MAX_KEYS_AT_ONCE: int
"""The most keys one ``acquire_all`` may name."""

def open(dir: str | os.PathLike[str]) -> Store: ...
def connect(address: str, token: str | None = None) -> Store: ...
def parse_fence(text: str) -> int: ...
def fence_text(value: int) -> str: ...
def guard_migration(dialect: str) -> str:
    """The statement that makes ``tinystore_fences`` if it is missing."""

_Done: TypeAlias = (
    tuple[Literal["done"], Literal["accepted"], None] | tuple[Literal["done"], Literal["refused", "driver"], BaseException]
)
SqlStep: TypeAlias = (
    tuple[Literal["execute"], str, tuple[str, ...]] | tuple[Literal["query"], str, tuple[str, ...]] | _Done
)
RedisStep: TypeAlias = tuple[Literal["eval"], str, tuple[str, ...], tuple[str, ...]] | _Done
ObjectStep: TypeAlias = (
    tuple[Literal["list"], str]
    | tuple[Literal["put"], str, dict[str, str]]
    | tuple[Literal["delete"], str]
    | tuple[Literal["get"], str]
    | _Done
)
ObjectObserved: TypeAlias = (
    tuple[Literal["listed"], list[str]]
    | tuple[Literal["written"]]
    | tuple[Literal["deleted"]]
    | tuple[Literal["got"], dict[str, str]]
    | tuple[Literal["failed"], DriverFailure]
)

class DriverFailure:
    """A driver's error, described by what it reports; ``kind`` is core's class."""

    def __init__(
        self,
        message: str,
        *,
        sqlstate: str | None = None,
        sqlite_code: int | None = None,
        http_status: int | None = None,
        error_code: str | None = None,
    ) -> None: ...
    @property
    def sqlstate(self) -> str | None: ...
    @property
    def sqlite_code(self) -> int | None: ...
    @property
    def http_status(self) -> int | None: ...
    @property
    def error_code(self) -> str | None: ...
    @property
    def message(self) -> str: ...
    @property
    def kind(self) -> Literal["missing_table", "serialization", "permission", "unavailable", "other"]: ...

class SqlCheck:
    """The SQL guard's check-and-record, as core's state machine."""

    def __init__(self, dialect: str, placeholders: str, resource: object, fence: object, in_transaction: bool) -> None: ...
    def start(self) -> SqlStep | None: ...
    def changed(self, n: int) -> SqlStep | None: ...
    def row(self, text: str | None) -> SqlStep | None: ...
    def failed(self, failure: DriverFailure) -> SqlStep | None: ...

class ObjectWrite:
    """A guarded object put or delete, as core's state machine."""

    @staticmethod
    def put(bucket: object, key: object, fence: object, metadata: list[tuple[str, str]]) -> ObjectWrite: ...
    @staticmethod
    def delete(bucket: object, key: object, fence: object) -> ObjectWrite: ...
    @property
    def is_tombstone(self) -> bool: ...
    def start(self) -> ObjectStep: ...
    def observe(self, observed: ObjectObserved) -> ObjectStep: ...

class RedisCheck:
    """A guarded Redis write, as core's state machine."""

    @staticmethod
    def set(key: object, value: object, fence: object) -> RedisCheck: ...
    @staticmethod
    def delete(key: object, fence: object) -> RedisCheck: ...
    @staticmethod
    def hset(key: object, mapping: object, fence: object) -> RedisCheck: ...
    @staticmethod
    def script(key: object, body: object, keys: object, args: object, fence: object) -> RedisCheck: ...
    def start(self) -> RedisStep: ...
    def reply(self, reply: list[str]) -> _Done: ...
    def failed(self, failure: DriverFailure) -> _Done: ...

class DynamoCheck:
    """A guarded DynamoDB transaction, as core's state machine."""

    def __init__(self, table: object, resource: object, fence: object, items: int) -> None: ...
    def start(self) -> Any: ...
    def attempted(self, status: int | None) -> None: ...
    def written(self) -> Any: ...
    def cancelled(self, codes: list[str], recorded: str | None, failure: DriverFailure) -> Any: ...
    def read(self, recorded: str | None) -> Any: ...
    def failed(self, failure: DriverFailure) -> Any: ...

class VersionedCheck:
    """A guarded put on GCS or Azure, as core's state machine."""

    def __init__(self, store: str, resource: object, fence: object) -> None: ...
    def start(self) -> Any: ...
    def found(self, version: str, fence: str | None) -> Any: ...
    def absent(self) -> Any: ...
    def attempted(self, status: int | None) -> None: ...
    def written(self) -> Any: ...
    def condition_failed(self) -> Any: ...
    def failed(self, failure: DriverFailure) -> Any: ...

def versioned_check_metadata(store: str, resource: str, keys: list[str]) -> None: ...

class ObjectRead:
    """A guarded object read, as core's state machine."""

    def __init__(self, bucket: object, key: object) -> None: ...
    @property
    def found(self) -> int | None: ...
    def start(self) -> ObjectStep: ...
    def observe(self, observed: ObjectObserved) -> ObjectStep: ...

OBJECT_METADATA_KEY: str
OBJECT_TOMBSTONE_KEY: str
OBJECT_MAX_TRIES: int
HTTP_FENCE_HEADER: str
HTTP_LARGEST_HEADER: str
HTTP_CONFLICT: int
HTTP_BAD_REQUEST: int

def error_codes() -> list[tuple[str, str]]:
    """The core's error codes, in order: (code, class name in ``tinystore._errors``)."""
def error_of(code: str, message: str) -> BaseException:
    """The exception raised for a core error of ``code`` with ``message``."""
def http_parse_fence_header(value: str | None) -> int | None: ...
def http_fence_header_value(fence: object) -> str: ...
def http_status_of(code: str) -> int | None: ...
def http_read_answer(status: int, largest: str | None, resource: str, fence: object) -> None: ...
DEFAULT_STATUS_LIMIT: int
"""How many held leases and keys with waiters a status shows when no ``limit`` is set."""

class Status:
    """The state of a store: its epoch, the fences given, the leases held and
    the keys with callers waiting, one page of each (by name, then key)."""

    @property
    def epoch(self) -> int:
        """The store's epoch: the high 64 bits of its fences."""
    @property
    def fences_given(self) -> int:
        """How many fences the store gave since it opened."""
    @property
    def last_fence(self) -> int | None:
        """The last fence given, if any."""
    @property
    def grace_left(self) -> float | None:
        """Seconds of grace left after an unclean stop (no grants until then), if any."""
    @property
    def held(self) -> list[HeldStatus]:
        """The leases held now (this page of them)."""
    @property
    def waiting(self) -> list[WaitingStatus]:
        """The keys with callers waiting (this page of them)."""
    @property
    def held_total(self) -> int:
        """How many leases are held in all."""
    @property
    def waiting_total(self) -> int:
        """How many keys have callers waiting in all."""
    @property
    def more(self) -> bool:
        """Whether more held leases or keys with waiters come after this page."""
    @property
    def testing(self) -> bool:
        """Whether it is a test store, which allows the test kit's controls
        (``tinystore.testing``): made by the kit, or served with ``tinystore
        serve --testing``."""
    @property
    def longest_waits(self) -> list[WaitingStatus]:
        """The keys whose first caller has waited longest, longest first: at
        most 10, whatever the page (empty on etcd)."""
    @property
    def late_writes_refused(self) -> list[RefusedStatus]:
        """The late writes guards refused, per group, as the leases'
        holders told the store since it opened, by name then kind: every
        group, whatever the page (empty on etcd, which counts none)."""

class HeldStatus:
    """One held lease."""

    @property
    def name(self) -> str:
        """The group's name."""
    @property
    def key(self) -> str:
        """The key."""
    @property
    def fence(self) -> int | None:
        """The fence; ``None`` for a semaphore permit."""
    @property
    def ttl(self) -> float:
        """The lease's TTL in seconds."""
    @property
    def left(self) -> float:
        """Seconds until it runs out unless renewed."""
    @property
    def renewing(self) -> bool:
        """Whether the store itself renews it."""
    @property
    def leader(self) -> str | None:
        """For an election's leadership (its key is empty): the leader's value."""
    @property
    def kind(self) -> str:
        """The kind of group: ``"lock"``, ``"semaphore"``, ``"rwlock"`` or ``"election"``."""
    @property
    def mode(self) -> str | None:
        """For a read-write lock's lease: ``"read"`` or ``"write"``; else ``None``."""
    @property
    def weight(self) -> int:
        """The places of its key it takes: a permit's weight, all of a
        read-write lock's places for a write lease, else 1."""
    @property
    def data(self) -> str | None:
        """What its holder said about itself when it acquired (``data=``; by
        default its ``"HOST:PID"``); ``None`` when it said nothing."""

class WaitingStatus:
    """A key with callers waiting for it."""

    @property
    def name(self) -> str:
        """The group's name."""
    @property
    def key(self) -> str:
        """The key."""
    @property
    def kind(self) -> str:
        """The kind of group, as in ``HeldStatus.kind``."""
    @property
    def waiters(self) -> int:
        """How many callers wait."""
    @property
    def waited(self) -> float | None:
        """Seconds the first caller in line has waited; ``None`` on etcd."""

class RefusedStatus:
    """A group's late writes refused by guards."""

    @property
    def name(self) -> str:
        """The group's name (``other`` past the first 1,000 groups counted)."""
    @property
    def kind(self) -> str:
        """The kind of group, as in ``HeldStatus.kind``."""
    @property
    def refused(self) -> int:
        """How many writes its leases' guards refused as stale."""

def store_status(store: Store, offset: int = 0, limit: int = ...) -> Awaitable[Status]: ...
def store_status_sync(store: Store, offset: int = 0, limit: int = ...) -> Status: ...
def serve(dir: str | os.PathLike[str]) -> Server: ...
def cli_main(args: list[str]) -> int: ...

class Server:
    """A store served by this process; what ``tinystore.Server`` wraps."""

    @property
    def socket(self) -> str: ...
    def close(self) -> None: ...

class Store:
    def locks(self, name: str, **options: Unpack[Options]) -> Locks: ...
    def semaphore(self, name: str, limit: int, **options: Unpack[Options]) -> Semaphore: ...
    def rw_locks(self, name: str, **options: Unpack[Options]) -> RwLocks: ...
    def election(self, name: str, **options: Unpack[Options]) -> Election: ...
    def close(self) -> None: ...

# Every acquire takes the keyword options of WeightedOptions; the core
# refuses a weight on any group but a semaphore. A keyword not listed there
# is a TypeError.

class Locks:
    """A group of exclusive locks; what ``tinystore.Locks`` wraps."""

    @property
    def name(self) -> str: ...
    def watch(self, key: _Key) -> Watcher: ...
    def watch_all(self) -> Watcher: ...
    def acquire(self, key: _Key, **options: Unpack[WeightedOptions]) -> Awaitable[Lease]: ...
    def try_acquire(self, key: _Key, **options: Unpack[WeightedOptions]) -> Awaitable[Lease | None]: ...
    def acquire_sync(self, key: _Key, **options: Unpack[WeightedOptions]) -> Lease: ...
    def try_acquire_sync(self, key: _Key, **options: Unpack[WeightedOptions]) -> Lease | None: ...
    def acquire_all(self, keys: Iterable[_Key], **options: Unpack[Options]) -> Awaitable[list[Lease]]:
        """Every key of ``keys`` or none, a lease each in their order; a
        ``str`` is refused (``Invalid``): it is one key, not a list."""
    def acquire_all_sync(self, keys: Iterable[_Key], **options: Unpack[Options]) -> list[Lease]: ...

class Semaphore:
    """A group of semaphores; what ``tinystore.Semaphore`` wraps."""

    @property
    def name(self) -> str: ...
    def watch(self, key: _Key) -> Watcher: ...
    def watch_all(self) -> Watcher: ...
    def acquire(self, key: _Key, **options: Unpack[WeightedOptions]) -> Awaitable[Permit]: ...
    def try_acquire(self, key: _Key, **options: Unpack[WeightedOptions]) -> Awaitable[Permit | None]: ...
    def acquire_sync(self, key: _Key, **options: Unpack[WeightedOptions]) -> Permit: ...
    def try_acquire_sync(self, key: _Key, **options: Unpack[WeightedOptions]) -> Permit | None: ...

class RwLocks:
    """A group of read-write locks; what ``tinystore.RwLocks`` wraps."""

    @property
    def name(self) -> str: ...
    def watch(self, key: _Key) -> Watcher: ...
    def watch_all(self) -> Watcher: ...
    def acquire_read(self, key: _Key, **options: Unpack[WeightedOptions]) -> Awaitable[Permit]: ...
    def try_acquire_read(self, key: _Key, **options: Unpack[WeightedOptions]) -> Awaitable[Permit | None]: ...
    def acquire_read_sync(self, key: _Key, **options: Unpack[WeightedOptions]) -> Permit: ...
    def try_acquire_read_sync(self, key: _Key, **options: Unpack[WeightedOptions]) -> Permit | None: ...
    def acquire_write(self, key: _Key, **options: Unpack[WeightedOptions]) -> Awaitable[Lease]: ...
    def try_acquire_write(self, key: _Key, **options: Unpack[WeightedOptions]) -> Awaitable[Lease | None]: ...
    def acquire_write_sync(self, key: _Key, **options: Unpack[WeightedOptions]) -> Lease: ...
    def try_acquire_write_sync(self, key: _Key, **options: Unpack[WeightedOptions]) -> Lease | None: ...

class _Holding:
    """What a lease, a permit and a leadership share (a stub-only base)."""

    @property
    def name(self) -> str:
        """The group's (or election's) name."""
    @property
    def ttl(self) -> float:
        """Seconds it lives after its grant or last renewal."""
    @property
    def held(self) -> bool:
        """Whether it is still held: false once released (resigned), run
        out, or lost with its store or connection."""
    def renew(self) -> Coroutine[Any, Any, None]:
        """Extends it by its TTL from now; raises ``LeaseLost``, changing
        nothing, when it already ran out or was released."""
    def renew_sync(self) -> None:
        """``renew`` for sync code."""
    def _end_hold(self, body_ok: bool, cancelled_by_loss: bool) -> Awaitable[None]:
        """Releases it at the end of a ``hold`` (or ``lead``) whose block
        ended ``body_ok`` (else with an exception, which
        ``cancelled_by_loss`` says was only the cancellation the loss
        injected); raises ``Closed`` or ``LeaseLost`` when it was lost
        before the block ended, unless the exception was the block's own."""
    def _end_hold_sync(self, body_ok: bool, cancelled_by_loss: bool) -> None:
        """``_end_hold`` for sync code."""
    def watch_lost(self, callback: Callable[[], object]) -> None:
        """Calls ``callback()`` from another thread once it is lost, unless
        it is released first (used by ``hold`` and ``lead``)."""

class _Held(_Holding):
    """What a lease and a permit share (a stub-only base)."""

    @property
    def key(self) -> str:
        """The key held, as text."""
    def release(self) -> Coroutine[Any, Any, None]:
        """Releases it. Idempotent; raises ``LeaseLost`` when it ran out
        before this first release."""
    def release_sync(self) -> None:
        """``release`` for sync code."""

class Permit(_Held):
    """A semaphore key's places (``weight`` of them), or a read lease of a
    read-write lock. It has no fence."""

class Lease(_Held):
    """An exclusive hold on one key of a ``Locks`` group (or a write lease
    of a read-write lock), with its fence."""

    @property
    def fence(self) -> int:
        """The fence: larger than every fence the store gave before."""
    def report_refused(self, resource: str) -> None:
        """Tells its store that a guard refused a write under this lease
        to ``resource`` as stale, for the store to count per group (status,
        metrics). Never blocks nor fails: a served store is sent a message
        nobody answers, dropped if it cannot go at once; etcd counts none.
        The guards call it when given the lease itself."""

_Leader: TypeAlias = tuple[str, int]

class Election:
    """An election; what ``tinystore.Election`` wraps."""

    @property
    def name(self) -> str: ...
    def campaign(self, value: str, **options: Unpack[Options]) -> Awaitable[Leadership]: ...
    def campaign_sync(self, value: str, **options: Unpack[Options]) -> Leadership: ...
    def leader(self) -> Awaitable[_Leader | None]: ...
    def leader_sync(self) -> _Leader | None: ...
    def observe(self) -> Observer: ...

class Observer:
    """The changes of a leader; what ``tinystore.Observer`` wraps. ``next``
    gives ``(True, leader)`` for a change and ``(False, None)`` at the end."""

    def next(self) -> Awaitable[tuple[bool, _Leader | None]]: ...
    def next_sync(self) -> tuple[bool, _Leader | None]: ...
    def close(self) -> None: ...

class Watcher:
    """The events of a watched key or group; what ``tinystore.Watcher``
    wraps. ``next`` gives ``(True, event)`` for an event and ``(False,
    None)`` at the end."""

    def next(self) -> Awaitable[tuple[bool, WatchEvent | None]]: ...
    def next_sync(self) -> tuple[bool, WatchEvent | None]: ...
    def close(self) -> None: ...

class WatchEvent:
    """One thing that happened on a watched key, or to the watcher itself:
    one class for every ``kind``, its fields ``None`` where the kind has
    none. Events compare equal when every field does."""

    @property
    def kind(self) -> Literal["granted", "released", "lost", "queue", "lagged"]:
        """``"granted"`` (``key``, ``fence``, ``data``), ``"released"``
        (``key``, ``fence``), ``"lost"`` (``key``, ``fence``, ``cause``),
        ``"queue"`` (``key``, ``length``) or ``"lagged"`` (``missed``)."""
    @property
    def key(self) -> str | None:
        """The key; ``None`` for ``"lagged"``."""
    @property
    def fence(self) -> int | None:
        """The lease's fence; ``None`` for a permit, a read lease, or a
        kind without one."""
    @property
    def data(self) -> str | None:
        """On ``"granted"``: the holder's data (``HOST:PID`` unless it set
        its own), ``None`` when it attached none."""
    @property
    def cause(self) -> str | None:
        """On ``"lost"``: why, ``"expired"`` (its TTL or ``max_hold`` ran
        out), ``"disconnected"`` (its holder's connection ended) or
        ``"closed"`` (the store closed)."""
    @property
    def length(self) -> int | None:
        """On ``"queue"``: how many acquires wait for the key now."""
    @property
    def missed(self) -> int | None:
        """On ``"lagged"``: how many events were dropped, never to be seen."""

class Leadership(_Holding):
    """Leading an election: a lease with the leader's value. Its ``fence``
    is the term. Dropping it resigns."""

    @property
    def value(self) -> str:
        """The value this leader campaigned with."""
    @property
    def fence(self) -> int:
        """The term: larger than every earlier leader's term and every fence
        the store gave before. Send it with each write the leader makes."""
    def resign(self) -> Coroutine[Any, Any, None]:
        """Stops leading: the next in the queue leads at once, with a larger
        term. Idempotent; raises ``Closed`` or ``LeaseLost`` when it was
        lost first."""
    def resign_sync(self) -> None:
        """``resign`` for sync code."""

def test_store_open() -> TestStore: ...
def test_store_served() -> TestStore: ...

class TestStore:
    """The core's test kit; what ``tinystore.testing.TestStore`` wraps."""

    @property
    def store(self) -> Store: ...
    @property
    def address(self) -> str | None: ...
    @property
    def dir(self) -> str: ...
    def close(self) -> None: ...
    def aclose(self) -> Awaitable[None]: ...

def testing_advance(store: Store, seconds: float) -> Awaitable[None]: ...
def testing_advance_sync(store: Store, seconds: float) -> None: ...
def testing_expire(held: Lease | Permit | Leadership) -> Awaitable[None]: ...
def testing_expire_sync(held: Lease | Permit | Leadership) -> None: ...
def testing_expire_key(store: Store, name: str, key: _Key) -> Awaitable[int]: ...
def testing_expire_key_sync(store: Store, name: str, key: _Key) -> int: ...

class LoopWaker:
    """One event loop's queue of outcomes from tinystore's runtime."""

    def __init__(self) -> None: ...
    def fileno(self) -> int: ...
    def drain(self) -> None: ...
    def close(self) -> None: ...
