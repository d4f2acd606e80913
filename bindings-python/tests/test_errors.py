"""Each error class: the core's table of codes walked (every code has its
class), the class the native side raises for each, and the real condition
that raises it (the server's codes are in test_server.py;
`internal` is never the caller's to cause, so only its class is checked)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tinystore

from tinystore import _errors, _native

# The core's table: (code, class name) for every code, in its order.
CORE_CODES = _native.error_codes()


def test_the_core_table_is_not_empty() -> None:
    assert ("lease_lost", "LeaseLost") in CORE_CODES
    assert len({code for code, _ in CORE_CODES}) == len(CORE_CODES)


@pytest.mark.parametrize(("code", "name"), CORE_CODES, ids=[code for code, _ in CORE_CODES])
def test_every_core_code_has_its_class(code: str, name: str) -> None:
    """A code added to the core fails here until tinystore has its class."""
    cls = getattr(_errors, name, None)
    assert isinstance(cls, type) and issubclass(cls, tinystore.Error), f"no class {name} for {code}"
    assert cls.code == code
    assert name in _errors.__all__ and getattr(tinystore, name) is cls


@pytest.mark.parametrize(("code", "name"), CORE_CODES, ids=[code for code, _ in CORE_CODES])
def test_the_native_side_raises_each_codes_class(code: str, name: str) -> None:
    err = _native.error_of(code, "about x")
    if code == "stale":  # a stale error without its fences is a bug
        assert type(err) is tinystore.Internal and "about x" in str(err)
        return
    assert type(err) is getattr(_errors, name)
    assert err.args == ("about x",)
    with pytest.raises(getattr(_errors, name), match="^about x$"):
        raise err


def test_a_stale_error_from_the_core_carries_its_fences() -> None:
    check = _native.SqlCheck("sqlite", "?", "chats/42", 5, True)
    check.start()
    check.changed(0)
    step = check.row("9".zfill(40))
    assert step is not None and step[:2] == ("done", "refused") and isinstance(step[2], BaseException)
    with pytest.raises(tinystore.Stale) as caught:
        raise step[2]
    assert (caught.value.resource, caught.value.fence, caught.value.largest) == ("chats/42", 5, 9)
    assert caught.value.code == "stale" and "chats/42" in str(caught.value)


def test_an_unknown_code_is_invalid() -> None:
    err = _native.error_of("no_such_code", "x")
    assert type(err) is tinystore.Invalid and "no_such_code" in str(err)


def test_timeout_names_the_key(store: tinystore.Store) -> None:
    locks = store.locks("errs")
    held = locks.acquire_sync("k")
    with pytest.raises(tinystore.Timeout, match="errs/k") as caught:
        locks.acquire_sync("k", wait=0.01)
    assert caught.value.code == "timeout"
    held.release_sync()


def test_lease_lost_on_renew_after_it_ran_out(store: tinystore.Store) -> None:
    locks = store.locks("errs", ttl=0.02, renew=False)
    lease = locks.acquire_sync("k")
    while lease.held:
        pass
    with pytest.raises(tinystore.LeaseLost, match="k"):
        lease.renew_sync()
    with pytest.raises(tinystore.LeaseLost):
        lease.release_sync()


def test_in_use_from_another_process(store: tinystore.Store, tmp_path: Path) -> None:
    script = (
        "import sys, tinystore\n"
        "try:\n"
        "    tinystore.open(sys.argv[1])\n"
        "except tinystore.Error as err:\n"
        "    print(type(err).__name__, err.code, err)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "store")], capture_output=True, text=True, timeout=60
    )
    assert out.stdout.startswith("InUse in_use"), out.stdout + out.stderr
    assert str(os.getpid()) in out.stdout  # names the owner's pid


def test_released_lease_is_lease_lost(store: tinystore.Store) -> None:
    lease = store.locks("errs").acquire_sync("k")
    lease.release_sync()
    with pytest.raises(tinystore.LeaseLost, match="k"):
        lease.renew_sync()


def test_closed_after_close(tmp_path: Path) -> None:
    store = tinystore.open(tmp_path / "store")
    locks = store.locks("errs")
    store.close()
    store.close()  # idempotent
    with pytest.raises(tinystore.Closed, match="closed"):
        locks.acquire_sync("k")
    with pytest.raises(tinystore.Closed):
        store.locks("errs").try_acquire_sync("k")


@pytest.mark.parametrize(
    ("name", "key", "options", "says"),
    [
        ("bad name!", "k", {}, "name"),
        ("", "k", {}, "name"),
        ("errs", "", {}, "key"),
        ("errs", "x" * 1025, {}, "1024"),
        ("errs", "k", {"ttl": 0.001}, "ttl"),
        ("errs", "k", {"ttl": 25 * 3600.0}, "ttl"),
        ("errs", "k", {"ttl": -1.0}, "ttl"),
        ("errs", "k", {"wait": float("nan")}, "wait"),
        ("errs", "\ud800", {}, "surrogate"),
    ],
)
def test_invalid_arguments(store: tinystore.Store, name: str, key: str, options: dict[str, float], says: str) -> None:
    with pytest.raises(tinystore.Invalid, match=says) as caught:
        store.locks(name).acquire_sync(key, ttl=options.get("ttl"), wait=options.get("wait"))
    assert caught.value.code == "invalid"


@pytest.mark.parametrize("key", [1.5, True, None, b"bytes"])
def test_invalid_key_types(store: tinystore.Store, key: object) -> None:
    with pytest.raises(tinystore.Invalid, match="key must be str or int"):
        store.locks("errs").acquire_sync(key)  # type: ignore[arg-type]


def test_int_key_is_its_decimal_text(store: tinystore.Store) -> None:
    locks = store.locks("errs")
    with locks.hold(42) as lease:
        assert lease.key == "42"
        assert locks.try_acquire_sync("42") is None
    with locks.hold(-7) as lease:
        assert lease.key == "-7"
    with locks.hold(1 << 100) as lease:
        assert lease.key == str(1 << 100)


def test_corrupt_store(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "kv.db").write_bytes(b"this is not a database at all, not even close" * 20)
    with pytest.raises(tinystore.Corrupt, match="kv.db"):
        tinystore.open(tmp_path / "store")


def test_io_error_names_the_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("a file, not a directory")
    with pytest.raises(tinystore.Io, match="file"):
        tinystore.open(tmp_path / "file" / "store")


def test_unavailable_server(tmp_path: Path) -> None:
    with pytest.raises(tinystore.Unavailable, match="nothing.sock"):
        tinystore.connect(f"unix:{tmp_path / 'nothing.sock'}")


def test_an_unknown_option_is_a_type_error_an_ill_typed_one_invalid(store: tinystore.Store) -> None:
    """Options cross to the native side as keywords: a name it does not
    know fails as a Python call does; a value of the wrong kind is core's
    `invalid`, naming the option, as in every language."""
    native = store.locks("opts")._native
    with pytest.raises(TypeError, match="unexpected keyword argument 'tll'"):
        native.acquire_sync("k", tll=1.0)  # type: ignore[call-arg]
    with pytest.raises(tinystore.Invalid, match="ttl must be a number of seconds"):
        native.acquire_sync("k", ttl="1s")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unexpected keyword argument 'weigth'"):
        store.semaphore("opts", 2, weigth=1)  # type: ignore[call-arg]
