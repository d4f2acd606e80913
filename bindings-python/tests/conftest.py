"""Fixtures: an embedded store in a temporary directory, and a real
`tinystore serve` process over one."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import tinystore

REPO = Path(__file__).resolve().parents[2]


def shared_dir() -> Path:
    """The design's shared/ folder: $TINYSTORE_SHARED, or beside the repo."""
    for candidate in (os.environ.get("TINYSTORE_SHARED"), REPO.parent / "shared", "/work/shared"):
        if candidate and (Path(candidate) / "vectors" / "fences.json").exists():
            return Path(candidate)
    raise FileNotFoundError("shared/ (with vectors/fences.json) not found beside the repository")


def tinystore_bin() -> Path:
    """The `tinystore` binary: $TINYSTORE_BIN, else target/debug, built with
    cargo when missing."""
    given = os.environ.get("TINYSTORE_BIN")
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    binary = target / "debug" / "tinystore"
    if not binary.exists():
        subprocess.run(["cargo", "build", "-q", "-p", "tinystore-cli"], cwd=REPO, check=True)
    return binary


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tinystore.Store]:
    with tinystore.open(tmp_path / "store") as opened:
        yield opened


@dataclass
class Superseded:
    """One key's two leases in turn: ``older`` released, then ``newer``,
    whose fence is larger (a holder that paused past its lease, and the
    one after it)."""

    older: tinystore.Lease
    newer: tinystore.Lease


@pytest.fixture
def superseded(store: tinystore.Store) -> Superseded:
    """Key "42" of the locks "chats" in ``store``, held twice in turn."""
    locks = store.locks("chats")
    older = locks.acquire_sync("42")
    older.release_sync()
    return Superseded(older, locks.acquire_sync("42"))


@dataclass
class Server:
    """A running `tinystore serve DIR`."""

    dir: Path
    process: subprocess.Popen[bytes]
    tcp: str | None = None
    token: str | None = None

    @property
    def socket(self) -> str:
        return f"unix:{self.dir / 'tinystore.sock'}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(dir: Path, tcp: bool = False, extra: list[str] | None = None) -> Server:
    """Starts `tinystore serve DIR` (with TCP and a token when asked, and
    `extra` arguments such as `--tls-cert`) and waits until it serves."""
    args = [str(tinystore_bin()), "serve", str(dir)]
    token = address = None
    if tcp:
        token = "python-binding-test-token-0123456789"
        token_file = dir.with_suffix(".token")
        token_file.write_text(token)
        address = f"127.0.0.1:{free_port()}"
        args += ["--tcp", address, "--token-file", str(token_file)]
    args += extra or []
    log_path = dir.with_suffix(".log")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log)
    server = Server(dir=dir, process=process, tcp=address, token=token)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"tinystore serve exited: {log_path.read_text()}")
        if "serving" in log_path.read_text() and (dir / "tinystore.sock").exists():
            return server
        time.sleep(0.01)
    stop_server(server)
    raise TimeoutError(f"tinystore serve did not start: {log_path.read_text()}")


def stop_server(server: Server) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    served = start_server(tmp_path / "served", tcp=True)
    try:
        yield served
    finally:
        stop_server(served)
