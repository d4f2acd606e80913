"""A program that used the binding through a real `tinystore serve` exits
cleanly with work in flight: grants on their way to its event loop,
acquires still waiting, leases being lost. Each run is a real child
process; the exit races the binding's threads, so it runs many times."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from conftest import Server

HERE = Path(__file__).resolve().parent
RUNS = 40


def run_worker(address: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, str(HERE / "exit_worker.py"), address, "0.2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, done.stderr


def test_exit_with_work_in_flight(server: Server) -> None:
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(run_worker, [server.socket] * RUNS))
    failed = [(status, stderr) for status, stderr in outcomes if status != 0 or "panic" in stderr]
    assert not failed, f"{len(failed)} of {RUNS} exits failed; first: {failed[0]}"
