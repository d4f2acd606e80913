"""OpenTelemetry: spans for a wait, a hold and a guard's check, and the
counter of late writes refused by guards (docs/observe.md names them).

Optional: ``pip install tinystore[otel]`` brings ``opentelemetry-api``.
Without it, or while no tracer (meter) provider is set, every function
here returns ``None`` or does nothing after one look at the global
provider: no span object is made. The first provider set is used from
then on, as OpenTelemetry's own proxies do."""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from types import ModuleType
from typing import Any, TypeVar

from . import _native
from ._errors import Stale

_SCOPE = "tinystore"

_trace: ModuleType | None = None
_metrics: ModuleType | None = None
_looked = False
_tracer: Any = None
_counter: Any = None
# Where the API keeps the providers set (the modules' globals), read
# directly while none is set: asking get_tracer_provider() reads the
# environment each time, some microseconds a call. ``None``: unknown (an
# API laid out otherwise, or a provider named in the environment), so ask.
_tracer_globals: dict[str, Any] | None = None
_meter_globals: dict[str, Any] | None = None


def _api() -> ModuleType | None:
    """``opentelemetry.trace``, imported once; ``None`` when absent."""
    global _trace, _metrics, _looked, _tracer_globals, _meter_globals
    if not _looked:
        _looked = True
        try:
            from opentelemetry import metrics, trace
        except ImportError:
            return None
        _trace, _metrics = trace, metrics
        found = getattr(trace.get_tracer_provider, "__globals__", {})
        if "_TRACER_PROVIDER" in found and "OTEL_PYTHON_TRACER_PROVIDER" not in os.environ:
            _tracer_globals = found
        found = getattr(metrics.get_meter_provider, "__globals__", {})
        if "_METER_PROVIDER" in found and "OTEL_PYTHON_METER_PROVIDER" not in os.environ:
            _meter_globals = found
    return _trace


def tracer() -> Any:
    """The tracer of tinystore's spans; ``None`` while none would record."""
    global _tracer
    if _tracer is not None:
        return _tracer
    trace = _api()
    if trace is None or (_tracer_globals is not None and _tracer_globals["_TRACER_PROVIDER"] is None):
        return None
    provider = trace.get_tracer_provider()
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    _tracer = provider.get_tracer(_SCOPE)
    return _tracer


def _refused_counter() -> Any:
    global _counter
    if _counter is not None:
        return _counter
    if _api() is None or _metrics is None:
        return None
    if _meter_globals is not None and _meter_globals["_METER_PROVIDER"] is None:
        return None
    provider = _metrics.get_meter_provider()
    if isinstance(provider, (_metrics.NoOpMeterProvider,)) or type(provider).__name__ == "_ProxyMeterProvider":
        return None
    _counter = provider.get_meter(_SCOPE).create_counter(
        "tinystore.guard.refused", unit="{write}", description="Late writes refused by tinystore's guards as stale"
    )
    return _counter


def _code(err: BaseException) -> str:
    code = getattr(err, "code", None)
    return code if isinstance(code, str) else type(err).__name__


class Wait:
    """A ``tinystore.wait`` span, started before an acquire."""

    __slots__ = ("_span", "_start")

    def __init__(self, kind: str, name: str, key: object) -> None:
        self._start = time.monotonic()
        self._span = _tracer.start_span(
            "tinystore.wait",
            attributes={"tinystore.kind": kind, "tinystore.group": name, "tinystore.key": str(key)},
        )

    def granted(self, held: object) -> None:
        """Ends the span for an acquire that gave ``held``."""
        span = self._span
        span.set_attribute("tinystore.waited_ms", (time.monotonic() - self._start) * 1000.0)
        fence = getattr(held, "fence", None)
        if isinstance(fence, int):
            span.set_attribute("tinystore.fence", _native.fence_text(fence))
        span.end()

    def failed(self, err: BaseException) -> None:
        """Ends the span for an acquire that raised ``err``."""
        span = self._span
        assert _trace is not None
        span.set_attribute("tinystore.error.code", _code(err))
        span.set_status(_trace.Status(_trace.StatusCode.ERROR, str(err)))
        span.end()


def _off() -> bool:
    """Whether nothing records spans now: the fast answers first."""
    if _tracer is not None:
        return False
    if not _looked:
        _api()
    if _trace is None or (_tracer_globals is not None and _tracer_globals["_TRACER_PROVIDER"] is None):
        return True
    return tracer() is None


def wait(kind: str, name: str, key: object) -> Wait | None:
    """A started wait span, or ``None`` while nothing records."""
    if _tracer is None and _off():
        return None
    return Wait(kind, name, key)


_T = TypeVar("_T")


async def waited(kind: str, name: str, key: object, acquiring: Awaitable[_T]) -> _T:
    """Awaits ``acquiring``, an acquire of ``key``, in a wait span (none
    while nothing records): for the acquires that do not go through a
    group's own ``acquire`` (semaphores', read-write locks')."""
    wait = None if _tracer is None and _off() else Wait(kind, name, key)
    if wait is None:
        return await acquiring
    try:
        held = await acquiring
    except BaseException as err:
        wait.failed(err)
        raise
    wait.granted(held)
    return held


def waited_sync(kind: str, name: str, key: object, acquire: Callable[[], _T]) -> _T:
    """:func:`waited` for a blocking acquire."""
    wait = None if _tracer is None and _off() else Wait(kind, name, key)
    if wait is None:
        return acquire()
    try:
        held = acquire()
    except BaseException as err:
        wait.failed(err)
        raise
    wait.granted(held)
    return held


class Holding:
    """A ``tinystore.hold`` span, from a grant to its release or loss."""

    __slots__ = ("_span",)

    def __init__(self, kind: str, name: str, key: object, held: object) -> None:
        attributes: dict[str, str] = {"tinystore.kind": kind, "tinystore.group": name, "tinystore.key": str(key)}
        fence = getattr(held, "fence", None)
        if isinstance(fence, int):
            attributes["tinystore.fence"] = _native.fence_text(fence)
        self._span = _tracer.start_span("tinystore.hold", attributes=attributes)

    def current(self) -> object:
        """Makes the span the current one (of this thread, or of this
        asyncio task) until :func:`uncurrent` is given what this returns,
        so that the spans the block makes are its children."""
        from opentelemetry import context

        assert _trace is not None
        return context.attach(_trace.set_span_in_context(self._span))

    def ended(self, lost: BaseException | None) -> None:
        """Ends the span: released, or lost with ``lost``'s code."""
        span = self._span
        if lost is None:
            span.set_attribute("tinystore.ended", "released")
        else:
            assert _trace is not None
            span.set_attribute("tinystore.ended", "lost")
            span.set_attribute("tinystore.error.code", _code(lost))
            span.set_status(_trace.Status(_trace.StatusCode.ERROR, str(lost)))
        span.end()


def uncurrent(token: object) -> None:
    """Gives back the current span :meth:`Holding.current` replaced."""
    from opentelemetry import context

    context.detach(token)  # type: ignore[arg-type]  # the token attach gave


def holding(kind: str, name: str, key: object, held: object) -> Holding | None:
    """A started hold span, or ``None`` while nothing records."""
    if _tracer is None and tracer() is None:
        return None
    return Holding(kind, name, key, held)


class _Off:
    """The guard's context while nothing records: does nothing."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_OFF = _Off()
# The guard's context while nothing records, as guard_check gives it.
OFF = _OFF

_BACKENDS = {"sqlite3": "sqlite", "psycopg": "postgres", "pymysql": "mysql"}


def guard_check(resource: str, fence: int, handle: object) -> AbstractContextManager[None]:
    """A ``tinystore.guard.check`` span around a guard's check on
    ``handle`` (its driver names the backend; a str is the backend's name:
    ``"s3"``, ``"redis"``, ...), and the refused counter on a stale
    refusal; a context that does nothing while nothing records."""
    if _tracer is None and _counter is None and tracer() is None and _refused_counter() is None:
        return _OFF
    if isinstance(handle, str):
        return _checked(resource, fence, handle)
    module = type(handle).__module__.partition(".")[0]
    return _checked(resource, fence, _BACKENDS.get(module, module))


@contextmanager
def _checked(resource: str, fence: int, backend: str) -> Iterator[None]:
    span = None
    if tracer() is not None:
        span = _tracer.start_span(
            "tinystore.guard.check",
            attributes={
                "tinystore.resource": resource,
                "tinystore.fence": _native.fence_text(fence),
                "tinystore.backend": backend,
            },
        )
    try:
        yield
    except Stale as err:
        if span is not None:
            span.set_attribute("tinystore.outcome", "stale")
            span.set_attribute("tinystore.largest", _native.fence_text(err.largest))
            span.end()
        counter = _refused_counter()
        if counter is not None:
            counter.add(1, {"tinystore.backend": backend})
        raise
    except BaseException as err:
        if span is not None:
            assert _trace is not None
            span.set_attribute("tinystore.outcome", "error")
            span.set_attribute("tinystore.error.code", _code(err))
            span.set_status(_trace.Status(_trace.StatusCode.ERROR, str(err)))
            span.end()
        raise
    if span is not None:
        span.set_attribute("tinystore.outcome", "accepted")
        span.end()
