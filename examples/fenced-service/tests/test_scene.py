"""The fenced-service example's scene, over real HTTP on loopback, for
every worker language present (LANGUAGES narrows them: "rust python node
go", the default): `tinystore serve`, the service (service.py, wsgiref), and
two workers of the language holding key N of "summaries" in turn. A is
stopped with SIGSTOP past its TTL; B takes the key with a larger fence and
its post is answered 200; A, resumed, posts with its old fence and is
answered 409, its release finding the lease lost. The database then holds
B's summary and B's fence. Also: the service's 400s and 404 over HTTP."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
EXAMPLE = ROOT / "examples" / "fenced-service"
PYTHON = sys.executable

# Each language's worker (README.md), and the file that must exist for it.
WORKERS: dict[str, tuple[list[str], Path]] = {
    "python": ([PYTHON, str(EXAMPLE / "python" / "worker.py")], EXAMPLE / "python" / "worker.py"),
    "rust": ([str(TARGET / "debug" / "fenced-service-worker")], TARGET / "debug" / "fenced-service-worker"),
    "node": (["node", str(EXAMPLE / "node" / "worker.mjs")], EXAMPLE / "node" / "worker.mjs"),
    "go": ([str(TARGET / "fenced-service-worker-go")], TARGET / "fenced-service-worker-go"),
}
LANGUAGES = [lang for lang in os.environ.get("LANGUAGES", "rust python node go").split() if lang in WORKERS]
TTL_MS = 800


def start(args: list[str], **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen(args, text=True, **kw)  # type: ignore[call-overload, no-any-return]


@dataclass
class Scene:
    store: str
    service: str
    db: Path


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    server = start([str(TARGET / "debug" / "tinystore"), "serve", str(tmp_path / "store")], stdout=subprocess.DEVNULL)
    db = tmp_path / "chat.db"
    service = start(
        [PYTHON, str(EXAMPLE / "service.py"), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=open(tmp_path / "service.log", "w"),
    )
    try:
        sock = tmp_path / "store" / "tinystore.sock"
        deadline = time.monotonic() + 30
        while not sock.exists():
            assert server.poll() is None and time.monotonic() < deadline, "tinystore serve did not start"
            time.sleep(0.02)
        assert service.stdout is not None
        line = service.stdout.readline().split()
        assert line[:1] == ["LISTENING"], f"service.py did not start: {line}"
        yield Scene(f"unix:{sock}", line[1], db)
    finally:
        for proc in (service, server):
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)


class Worker:
    def __init__(self, lang: str, scene: Scene, chat: int) -> None:
        self.proc = start(
            WORKERS[lang][0]
            + ["--store", scene.store, "--service", scene.service, "--chat", str(chat), "--ttl-ms", str(TTL_MS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def line(self) -> list[str]:
        assert self.proc.stdout is not None
        got = self.proc.stdout.readline()
        assert got, f"the worker ended early (exit {self.proc.poll()})"
        return got.split()

    def go_on(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def end(self) -> int:
        return self.proc.wait(30)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_late_worker_is_answered_409(lang: str, scene: Scene) -> None:
    if not WORKERS[lang][1].exists():
        # make test-fenced-service names the workers it built: those must run.
        assert lang not in os.environ.get("FENCED_SERVICE_REQUIRE", "").split(), f"no {lang} worker at {WORKERS[lang][1]}"
        pytest.skip(f"the {lang} worker is not built: {WORKERS[lang][1]}")
    chat = 7
    a = Worker(lang, scene, chat)
    try:
        held = a.line()
        assert held[0] == "HELD", held
        fence_a = int(held[1])
        a.proc.send_signal(signal.SIGSTOP)  # A pauses past its TTL; its renewing stops with it
        b = Worker(lang, scene, chat)  # B waits for the key until A's lease runs out
        held = b.line()
        assert held[0] == "HELD", held
        fence_b = int(held[1])
        assert fence_b > fence_a
        b.go_on()
        assert b.line() == ["POSTED", "200", str(fence_b)]
        assert b.line() == ["RELEASED", "ok"]
        assert b.end() == 0
    finally:
        a.proc.send_signal(signal.SIGCONT)
    a.go_on()
    assert a.line() == ["POSTED", "409", str(fence_a)]
    assert a.line() == ["RELEASED", "lease_lost"]
    assert a.end() == 0
    conn = sqlite3.connect(scene.db)
    try:
        assert conn.execute("select summary from summaries where chat = ?", (chat,)).fetchall() == [
            (f"summary by {lang}",)
        ]
        assert conn.execute("select fence from tinystore_fences where resource = ?", (f"chats/{chat}",)).fetchall() == [
            (f"{fence_b:040d}",)
        ]
    finally:
        conn.close()


def post(url: str, headers: dict[str, str], body: bytes = b"text", method: str = "POST") -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(url, body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as got:
            return got.status, dict(got.headers), got.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read().decode()


def test_the_service_answers_bad_requests(scene: Scene) -> None:
    url = f"{scene.service}/chats/3/summary"
    assert post(url, {})[::2] == (400, "the request has no Tinystore-Fence header\n")
    status, _, body = post(url, {"Tinystore-Fence": "0x10"})
    assert status == 400 and body.startswith("header Tinystore-Fence: "), body
    assert post(f"{scene.service}/chats/x/summary", {"Tinystore-Fence": "1"})[0] == 404
    assert post(url, {"Tinystore-Fence": "1"}, method="PUT")[0] == 405
    assert post(url, {"Tinystore-Fence": "5"})[::2] == (200, "saved\n")
    status, headers, body = post(url, {"Tinystore-Fence": "4"})
    assert (status, headers["Tinystore-Fence-Largest"]) == (409, "5")
    assert "chats/3" in body
