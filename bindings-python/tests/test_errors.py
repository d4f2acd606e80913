"""Each error class: its code, its place under `tinystore.Error`, and the
real condition that raises it (the server's codes are in test_server.py;
`internal` is never the caller's to cause, so only its class is checked)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tinystore

CODES = {
    tinystore.Timeout: "timeout",
    tinystore.LeaseLost: "lease_lost",
    tinystore.InUse: "in_use",
    tinystore.Closed: "closed",
    tinystore.Invalid: "invalid",
    tinystore.Limit: "limit",
    tinystore.Unauthorized: "unauthorized",
    tinystore.Corrupt: "corrupt",
    tinystore.Io: "io",
    tinystore.Unavailable: "unavailable",
    tinystore.Internal: "internal",
}


@pytest.mark.parametrize("cls", list(CODES), ids=lambda c: c.__name__)
def test_class_has_its_code(cls: type[tinystore.Error]) -> None:
    assert issubclass(cls, tinystore.Error) and issubclass(cls, Exception)
    assert cls.code == CODES[cls]
    assert cls("message").code == CODES[cls]


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
