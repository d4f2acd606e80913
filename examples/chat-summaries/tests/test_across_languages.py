"""The README's scene across processes and languages, against one server: for
every ordered pair, worker A in the first language is stopped with SIGSTOP
past its TTL, worker B in the second takes the key and saves, A is resumed
and its late save is refused: by the fenced update (`--save column`) and by
the guard (`--save guard`: a fence from one language checked by another's
guard). The fences one language writes compare right in SQL against those
another writes. And all four languages read
vectors/fences.json alike."""

from __future__ import annotations

import itertools
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from conftest import LANGUAGES, ROOT, Served, program

PAIRS = list(itertools.product(LANGUAGES, LANGUAGES))


SAVES = ["column", "guard"]


def start_worker(lang: str, served: Served, db: Path, ttl_ms: int, save: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        program(lang)
        + ["--db", str(db), "--store", str(served.dir), "hold-and-save", "--chat", "42", "--ttl-ms", str(ttl_ms), "--save", save],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def expect(proc: subprocess.Popen[str], word: str) -> list[str]:
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    if not line or line[0] != word:
        rest = proc.stdout.read() if proc.poll() is not None else ""
        err = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
        raise AssertionError(f"expected {word}, got {line} {rest} {err}")
    return line[1:]


def go_on(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("save\n")
    proc.stdin.flush()


@pytest.mark.parametrize("save", SAVES)
@pytest.mark.parametrize("a_lang,b_lang", PAIRS, ids=[f"{a}-then-{b}" for a, b in PAIRS])
def test_a_paused_worker_is_refused_across_languages(served: tuple[Served, Path], a_lang: str, b_lang: str, save: str) -> None:
    server, tmp = served
    db = tmp / "chat.db"
    subprocess.run(program(a_lang) + ["--db", str(db), "--store", str(server.dir), "migrate"], check=True, capture_output=True)

    a = start_worker(a_lang, server, db, ttl_ms=400, save=save)
    (a_fence,) = expect(a, "HELD")
    a.send_signal(signal.SIGSTOP)  # a long garbage collection: A stops renewing
    try:
        deadline = time.monotonic() + 20
        while server.holder_of("summaries", "42") == a_fence:
            assert time.monotonic() < deadline, "the server never ended A's lease"
            time.sleep(0.05)

        b = start_worker(b_lang, server, db, ttl_ms=15_000, save=save)
        (b_fence,) = expect(b, "HELD")
        assert int(b_fence) > int(a_fence)
        go_on(b)
        assert expect(b, "SAVED") == ["1", b_fence]
        assert expect(b, "RELEASED") == ["ok"]
        assert b.wait(timeout=20) == 0
    finally:
        a.send_signal(signal.SIGCONT)

    go_on(a)
    assert expect(a, "SAVED") == ["0", a_fence], "A's late write is refused"
    assert expect(a, "RELEASED") == ["lease_lost"], "A learns its lease was lost"
    assert a.wait(timeout=20) == 0

    with sqlite3.connect(db) as conn:
        summary, fence = conn.execute("select summary, summary_fence from chats where id = 42").fetchone()
        if save == "guard":
            (fence,) = conn.execute("select fence from tinystore_fences where resource = 'chats/42'").fetchone()
    assert summary == f"summary by {b_lang}"
    assert fence == b_fence.zfill(40), "B's language wrote the 40-digit text"
    assert fence > a_fence.zfill(40), "and it compares above A's as text"


def test_every_language_reads_the_fence_vectors_alike() -> None:
    vectors = ROOT / "vectors" / "fences.json"
    outputs = {}
    for lang in LANGUAGES:
        done = subprocess.run(program(lang) + ["fences", "--vectors", str(vectors)], check=True, capture_output=True, text=True)
        outputs[lang] = done.stdout.splitlines()
    first = outputs[LANGUAGES[0]]
    assert len([line for line in first if line.startswith("CASE ")]) >= 10
    assert all(line.endswith("True True") or line.endswith("true true") for line in first if line.startswith("ORDERED "))
    assert all(line.endswith(" invalid") for line in first if line.startswith("INVALID "))
    for lang, lines in outputs.items():
        normalized = [line.replace("True", "true") for line in lines]
        assert normalized == [line.replace("True", "true") for line in first], f"{lang} differs from {LANGUAGES[0]}"
