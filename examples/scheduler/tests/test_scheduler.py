"""The scheduler example in each language: the scene (a leader paused past
its TTL, its late run refused by its term), leaders taking turns with an
observer that sees each of them once and in order, and leaders in two
processes (and languages) through one server."""

from __future__ import annotations

import itertools
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest
from programs import LANGUAGES, PROGRAMS

import tinystore


def kept(db: Path) -> tuple[int, str, int]:
    with sqlite3.connect(db) as conn:
        runs, by, term = conn.execute("select runs, last_run_by, term from jobs where name = 'nightly-report'").fetchone()
    return int(runs), str(by), int(term)


def run(lang: str, tmp: Path, *command: str) -> list[str]:
    done = subprocess.run(
        PROGRAMS[lang] + ["--db", str(tmp / "jobs.db"), "--store", str(tmp / "store"), *command],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_scene_refuses_the_paused_leaders_late_run(lang: str, tmp_path: Path) -> None:
    out = run(lang, tmp_path, "scene", "--ttl-ms", "300")
    a_term = int(out[0].split("term ")[1].split()[0])
    b_term = int(out[1].split("term ")[1].split()[0])
    assert a_term < b_term
    assert "refused, 0 rows changed" in out[2]
    assert out[3].endswith("lease_lost."), "A is told it lost"
    assert kept(tmp_path / "jobs.db") == (1, "worker-b", b_term)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_leaders_take_turns_and_the_observer_sees_each_once_in_order(lang: str, tmp_path: Path) -> None:
    out = run(lang, tmp_path, "run", "--workers", "3", "--terms", "4", "--ticks", "2")
    leaders = [line.split()[1:] for line in out if line.startswith("LEADER")]
    assert leaders[0] == ["-"] and leaders[-1] == ["-"], "nobody leads before and after"
    terms = [int(term) for _, term in leaders[1:-1]]
    assert len(terms) == 4 and terms == sorted(set(terms)), "four leaders, each once, terms rising"
    runs = [line.split()[1:] for line in out if line.startswith("RAN")]
    assert len(runs) == 8 and all(changed == "1" for _, _, changed in runs)
    assert {int(term) for _, term, _ in runs} == set(terms), "each leader ran the job with its own term"
    assert kept(tmp_path / "jobs.db")[0::2] == (8, terms[-1])


PAIRS = list(itertools.product(LANGUAGES, LANGUAGES))


def expect(proc: subprocess.Popen[str], word: str) -> list[str]:
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    assert line and line[0] == word, f"expected {word}, got {line}"
    return line[1:]


def lead_and_run(lang: str, socket: Path, db: Path, value: str, ttl_ms: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        PROGRAMS[lang]
        + ["--db", str(db), "--store", f"unix:{socket}", "lead-and-run", "--value", value, "--ttl-ms", str(ttl_ms)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def go_on(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("run\n")
    proc.stdin.flush()


@pytest.mark.parametrize("a_lang,b_lang", PAIRS, ids=[f"{a}-then-{b}" for a, b in PAIRS])
def test_a_paused_leader_is_refused_across_processes(a_lang: str, b_lang: str, tmp_path: Path) -> None:
    db = tmp_path / "jobs.db"
    with tinystore.serve(tmp_path / "store") as server:
        a = lead_and_run(a_lang, server.socket, db, "a", ttl_ms=400)
        try:
            (a_term,) = expect(a, "LEADING")
            a.send_signal(signal.SIGSTOP)  # past its TTL: no renewals
            try:
                b = lead_and_run(b_lang, server.socket, db, "b", ttl_ms=15_000)
                (b_term,) = expect(b, "LEADING")
                assert int(b_term) > int(a_term)
                go_on(b)
                assert expect(b, "RAN") == ["1", b_term]
                assert expect(b, "RESIGNED") == ["ok"]
                assert b.wait(timeout=20) == 0
            finally:
                a.send_signal(signal.SIGCONT)
            go_on(a)
            assert expect(a, "RAN") == ["0", a_term], "A's late run is refused"
            assert expect(a, "RESIGNED") == ["lease_lost"], "A learns it lost"
            assert a.wait(timeout=20) == 0
        finally:
            if a.poll() is None:
                a.kill()
    assert kept(db) == (1, "b", int(b_term))
