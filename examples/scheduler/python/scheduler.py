"""scheduler in Python: workers campaign in the election ``scheduler``; only
the leader runs the job, and it runs it with its term, so a leader that
paused past its TTL cannot run it after its successor did. See ../README.md
for the commands, which every language's program shares."""

from __future__ import annotations

import asyncio
import sqlite3
import sys

import jobs_db
import tinystore

COMMANDS = "scene, run, lead-and-run"


class UsageError(Exception):
    """A bad command line."""


def parse_args(argv: list[str]) -> tuple[str, dict[str, str]]:
    """The command and the ``--flag value`` pairs."""
    command, flags = "", {}
    it = iter(argv)
    for arg in it:
        if not arg.startswith("--"):
            command = arg
            continue
        value = next(it, None)
        if value is None:
            raise UsageError(f"{arg} needs a value")
        flags[arg[2:]] = value
    if not command:
        raise UsageError(f"a command is required: {COMMANDS}")
    for needed in ("db", "store"):
        if needed not in flags:
            raise UsageError(f"--{needed} is required")
    return command, flags


def number(flags: dict[str, str], flag: str, default: int) -> int:
    try:
        return int(flags.get(flag, default))
    except ValueError:
        raise UsageError(f"--{flag} takes a whole number, not {flags[flag]!r}") from None


def open_store(target: str) -> tinystore.Store:
    """A store directory is opened (or reached through its socket when
    served); an address is connected to."""
    if target.startswith(("unix:", "tcp://", "etcd://")):
        return tinystore.connect(target)
    return tinystore.open(target)


async def scene(store: tinystore.Store, db: str, ttl_ms: int) -> bool:
    """Leader A pauses past its TTL; B leads with a larger term and runs the
    job; A wakes, runs it with its old term, and is refused."""
    election = store.election("scheduler")
    a = await election.campaign("worker-a", ttl=ttl_ms / 1000, renew=False)
    print(f"1. Worker A leads with term {a.fence} and pauses past its ttl of {ttl_ms}ms.")

    async def worker_b() -> tuple[int, int]:
        async with election.lead("worker-b") as b:
            return b.fence, jobs_db.run_job(jobs_db.open_db(db), "worker-b", b.fence)

    (b_term, b_changed), _ = await asyncio.gather(worker_b(), asyncio.sleep(2 * ttl_ms / 1000))
    print(f"2. A's leadership ran out. Worker B leads with term {b_term} and runs the job: {b_changed} row changed.")
    a_changed = jobs_db.run_job(jobs_db.open_db(db), "worker-a", a.fence)
    outcome = "refused, 0 rows changed" if a_changed == 0 else "ACCEPTED (the term failed)"
    print(f"3. A wakes and runs the job with term {a.fence}: {outcome}.")
    try:
        await a.resign()
        told = "nothing"
    except tinystore.Error as err:
        told = err.code
    print(f"4. A learns it no longer leads: {told}.")
    runs, by, term = jobs_db.kept(jobs_db.open_db(db))
    print(f"jobs.db keeps: {runs} run(s), last by {by} with term {term}")
    return a_changed == 0 and b_changed == 1 and told == "lease_lost"


async def run(store: tinystore.Store, db: str, workers: int, terms: int, ticks: int) -> bool:
    """``workers`` campaign in turn; each leader runs the job ``ticks`` times
    in its term, then resigns, until ``terms`` leaders have led: the last
    one gives up the campaigns still waiting (they never lead) before it
    resigns. An observer prints each change of leader."""
    election = store.election("scheduler")
    observer = election.observe()
    ran: list[int] = []
    campaigns: list[asyncio.Task[None]] = []

    async def watch() -> None:
        async for leader in observer:
            print("LEADER -" if leader is None else f"LEADER {leader.value} {leader.fence}")

    async def worker(w: int) -> None:
        conn = jobs_db.open_db(db)
        while True:
            async with election.lead(f"worker-{w}") as leadership:
                for _ in range(ticks):
                    changed = jobs_db.run_job(conn, leadership.value, leadership.fence)
                    ran.append(changed)
                    print(f"RAN {leadership.value} {leadership.fence} {changed}")
                    await asyncio.sleep(0.01)
                if len(ran) >= terms * ticks:
                    others = [c for c in campaigns if c is not asyncio.current_task()]
                    for other in others:
                        other.cancel()
                    await asyncio.gather(*others, return_exceptions=True)
                    return

    watching = asyncio.create_task(watch())
    campaigns.extend(asyncio.create_task(worker(w)) for w in range(1, workers + 1))
    for outcome in await asyncio.gather(*campaigns, return_exceptions=True):
        if isinstance(outcome, Exception):  # not the CancelledError of a campaign given up
            raise outcome
    await asyncio.sleep(0.05)
    observer.close()
    await watching
    runs, by, term = jobs_db.kept(jobs_db.open_db(db))
    print(f"jobs.db keeps: {runs} run(s), last by {by} with term {term}")
    return all(ran) and len(ran) == terms * ticks


def lead_and_run(store: tinystore.Store, db: str, value: str, ttl_ms: int) -> None:
    """For tests across processes: leads, prints ``LEADING <term>``, waits
    for a line on stdin, runs the job (whether or not it still leads: the
    term is what refuses a late run), prints ``RAN <rows changed> <term>``,
    then resigns and prints ``RESIGNED ok`` or ``RESIGNED <error code>``."""
    conn = jobs_db.open_db(db)
    ran = False
    try:
        with store.election("scheduler", ttl=ttl_ms / 1000).lead(value) as leadership:
            print(f"LEADING {leadership.fence}")
            sys.stdin.readline()
            print(f"RAN {jobs_db.run_job(conn, value, leadership.fence)} {leadership.fence}")
            ran = True
    except tinystore.Error as err:
        if not ran:
            raise
        print(f"RESIGNED {err.code}")
    else:
        print("RESIGNED ok")


def main(argv: list[str]) -> int:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    try:
        command, flags = parse_args(argv)
        db = flags["db"]
        jobs_db.open_db(db)
        with open_store(flags["store"]) as store:
            if command == "scene":
                return 0 if asyncio.run(scene(store, db, number(flags, "ttl-ms", 300))) else 1
            if command == "run":
                workers, terms, ticks = number(flags, "workers", 3), number(flags, "terms", 5), number(flags, "ticks", 2)
                return 0 if asyncio.run(run(store, db, workers, terms, ticks)) else 1
            if command == "lead-and-run":
                lead_and_run(store, db, flags.get("value", "python"), number(flags, "ttl-ms", 15_000))
                return 0
            raise UsageError(f"unknown command {command!r}: {COMMANDS}")
    except (UsageError, tinystore.Error, sqlite3.Error, OSError) as err:
        print(f"scheduler: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
