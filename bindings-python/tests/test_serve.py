"""Serving from inside a program and the packaged command: ``serve(dir)``
lets another process hold keys of the store; the console script's
``tinystore`` (the CLI run in-process) answers ``--help`` and stops ``serve``
cleanly on SIGINT; and a second process that opens an owned, unserved store
is told how to serve it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tinystore

# A process that holds key 1 of group "x" in the store DIR (argv[1]) and
# prints the fence; what another program on the machine would do.
HOLDER = """
import sys, tinystore
with tinystore.open(sys.argv[1]) as store:
    with store.locks("x").hold(1) as lease:
        print(lease.fence)
"""

# The console script's entry point, as `venv/bin/tinystore ARGS` runs it.
CLI = "import sys; from tinystore._cli import main; sys.argv[0] = 'tinystore'; main()"


def wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert process.poll() is None, f"the process exited with {process.returncode}"
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.02)


def test_serve_lets_another_process_hold(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with tinystore.serve(data) as server:
        assert server.socket == data / "tinystore.sock" and server.socket.exists()
        with tinystore.open(data) as here:
            mine = here.locks("x").try_acquire_sync(1)
            assert mine is not None
            mine.release_sync()
        held = subprocess.run([sys.executable, "-c", HOLDER, str(data)], capture_output=True, text=True, timeout=60)
        assert held.returncode == 0, held.stderr
        assert int(held.stdout) > mine.fence
    assert not (data / "tinystore.sock").exists()
    server.close()  # idempotent


def test_second_process_is_told_how_to_serve(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with tinystore.open(data):
        other = subprocess.run([sys.executable, "-c", HOLDER, str(data)], capture_output=True, text=True, timeout=60)
    assert other.returncode != 0
    assert "InUse" in other.stderr and "is not served" in other.stderr
    assert f"tinystore serve {data}" in other.stderr and "tinystore.serve(dir)" in other.stderr


def test_serve_refuses_a_store_another_process_owns(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with tinystore.open(data):
        code = f"import tinystore; tinystore.serve({str(data)!r})"
        other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert other.returncode != 0 and "InUse" in other.stderr


def test_console_script_help() -> None:
    done = subprocess.run([sys.executable, "-c", CLI, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for command in ("serve", "hold", "status", "backup", "restore", "demo"):
        assert command in done.stdout


def test_console_script_usage_error_exits_2() -> None:
    done = subprocess.run([sys.executable, "-c", CLI, "no-such-command"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "no-such-command" in done.stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_console_script_serve_stops_cleanly_on_signal(tmp_path: Path, signum: signal.Signals) -> None:
    data = tmp_path / "data"
    process = subprocess.Popen([sys.executable, "-c", CLI, "serve", str(data)], stderr=subprocess.PIPE)
    try:
        wait_for(data / "tinystore.sock", process)
        held = subprocess.run([sys.executable, "-c", HOLDER, str(data)], capture_output=True, text=True, timeout=60)
        assert held.returncode == 0, held.stderr
        process.send_signal(signum)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert b"stopped cleanly" in err and b"Traceback" not in err
    assert not (data / "tinystore.sock").exists()
