"""Shared pieces of the cross-language tests: where each language's
chat-summaries program is, and a served store to run them against."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
EXAMPLE = ROOT / "examples" / "chat-summaries"

# The command that runs each language's program (see ../README.md).
PROGRAMS: dict[str, list[str]] = {
    "rust": [str(TARGET / "debug" / "chat-summaries")],
    "python": [
        str(ROOT / ".venv-python" / "bin" / "python"),
        str(EXAMPLE / "python" / "chat_summaries.py"),
    ],
    "node": ["node", str(EXAMPLE / "node" / "chat-summaries.mjs")],
    "go": [str(TARGET / "chat-summaries-go")],
}

LANGUAGES = [lang for lang in PROGRAMS if lang in os.environ.get("LANGUAGES", "rust python node go").split()]


def program(lang: str) -> list[str]:
    return PROGRAMS[lang]


class Served:
    """`tinystore serve` on a fresh store directory, stopped with SIGTERM."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "store"
        self.proc = subprocess.Popen(
            [str(TARGET / "debug" / "tinystore"), "serve", str(self.dir)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        socket = self.dir / "tinystore.sock"
        deadline = time.monotonic() + 30
        while not socket.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"tinystore serve did not start: {self.proc.stderr}")
            time.sleep(0.02)

    def status(self) -> dict:
        out = subprocess.run(
            [str(TARGET / "debug" / "tinystore"), "status", str(self.dir), "--json"],
            check=True,
            capture_output=True,
            text=True,
        )
        return json.loads(out.stdout)

    def holder_of(self, name: str, key: str) -> str | None:
        for held in self.status()["held"]:
            if held["name"] == name and held["key"] == key:
                return str(held["fence"])
        return None

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)


@pytest.fixture
def served() -> Iterator[tuple[Served, Path]]:
    with tempfile.TemporaryDirectory() as tmp:
        server = Served(Path(tmp))
        try:
            yield server, Path(tmp)
        finally:
            server.stop()
