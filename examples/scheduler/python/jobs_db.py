"""jobs.db: the schema, and the job's run guarded by the leader's term,
over the standard library's sqlite3."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA = Path(__file__).resolve().parent.parent / "schema.sql"
JOB = "nightly-report"


def open_db(path: str) -> sqlite3.Connection:
    """Opens jobs.db (autocommit, a 10 s busy timeout) with its schema."""
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    conn.executescript(SCHEMA.read_text())
    return conn


def run_job(conn: sqlite3.Connection, by: str, term: int) -> int:
    """Runs the job as the leader ``by`` of term ``term``: counted only when
    no later leader ran it (the term kept is at most this one; ``<=`` lets a
    leader run it many times in its term). Returns the rows changed: 0 for
    a deposed leader."""
    text = f"{term:040d}"
    return conn.execute(
        "update jobs set runs = runs + 1, last_run_by = ?, term = ? where name = ? and term <= ?",
        (by, text, JOB, text),
    ).rowcount


def kept(conn: sqlite3.Connection) -> tuple[int, str, str]:
    """The job's runs, who ran it last, and that leader's term."""
    runs, by, term = conn.execute("select runs, last_run_by, term from jobs where name = ?", (JOB,)).fetchone()
    return int(runs), str(by), str(term).lstrip("0")
