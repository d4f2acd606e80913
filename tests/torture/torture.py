"""The torture test: one server, many workers in several languages holding
random chats and saving through the fenced update into one SQLite file,
while a chaos driver stops workers past their TTL (SIGSTOP, SIGCONT), kills
workers (SIGKILL), kills the server (SIGKILL) and restarts it with its clock
stepped backwards. Half the workers of each language reach the server on its
Unix socket, the other half over TLS with a client certificate (mutual TLS,
certificates from tests/tls/make-certs.sh). On a served store every
worker holds the other ways too (--ways all): several chats at once, read
and write leases of a read-write lock, weighted permits, some capped by a
max_hold. Then check.py proves from the history that nothing was violated.

With --etcd the store is on etcd instead: a three-member cluster whose
members live in network namespaces of their own (needs root), workers
reaching every member from different starting members; the chaos driver
cuts one member (the leader or not) off from the others and heals the cut,
in place of killing the server. There is no audit log on etcd, so the check
is what the saves alone prove (check.check_saves).

Usage: python torture.py [--seconds S] [--workers N] [--languages rust,python,go] [--out DIR] [--etcd]
Prints a JSON report; exits 1 on a violation, 2 when the run itself failed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import check
import etcd

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
EXAMPLE = ROOT / "examples" / "chat-summaries"
PROGRAMS: dict[str, list[str]] = {
    "rust": [str(TARGET / "debug" / "chat-summaries")],
    "python": [str(ROOT / ".venv-python" / "bin" / "python"), str(EXAMPLE / "python" / "chat_summaries.py")],
    "node": ["node", str(EXAMPLE / "node" / "chat-summaries.mjs")],
    "go": [str(TARGET / "chat-summaries-go")],
}
TTL_MS = 300
# A worker pauses up to this long in each hold before it saves.
PAUSE_MS = 20
# etcd's shortest lease with the test cluster's timings is 1 s. A hand-over
# on etcd takes milliseconds, not microseconds, so workers pause longer in
# each hold (still renewed) for a stop to land inside a hold as often.
ETCD_TTL_MS = 1000
ETCD_PAUSE_MS = 300
CHATS = 4


class Run:
    def __init__(self, out: Path, seconds: float, languages: list[str], workers: int, on_etcd: bool) -> None:
        self.out = out
        self.etcd = etcd.Cluster(out) if on_etcd else None
        self.ttl_ms = ETCD_TTL_MS if on_etcd else TTL_MS
        self.pause_ms = ETCD_PAUSE_MS if on_etcd else PAUSE_MS
        self.store = out / "store"
        self.db = out / "chat.db"
        self.audit = out / "audit.jsonl"
        self.deadline = time.monotonic() + seconds
        self.languages = languages
        self.faults: dict[str, int] = {
            "sigstop": 0, "worker_sigkill": 0, "server_sigkill": 0, "clock_steps_back": 0, "etcd_member_cut_off": 0,
        }
        self.lock = threading.Lock()
        self.server: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[str] | None] = [None] * workers
        self.done_lines: list[str] = []
        self.certs = out / "certs"
        subprocess.run(["sh", str(ROOT / "tests" / "tls" / "make-certs.sh"), str(self.certs)], check=True)
        # One port for every run of the server, so that TLS workers find it
        # again after a restart.
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.tls_port: int = s.getsockname()[1]

    def start_server(self, clock_offset_ms: int = 0) -> None:
        cmd = [
            str(TARGET / "debug" / "tinystore"), "serve", str(self.store),
            "--audit", str(self.audit), "--grace", f"{2 * self.ttl_ms}ms",
            "--clock-offset-ms", str(clock_offset_ms),
            "--tcp", f"127.0.0.1:{self.tls_port}",
            "--tls-cert", str(self.certs / "server.pem"), "--tls-key", str(self.certs / "server.key"),
            "--tls-client-ca", str(self.certs / "ca.pem"),
        ]
        log = open(self.out / "server.log", "ab")
        # A killed server leaves its socket behind: remove it, so that the
        # wait below is for the new server's, and no worker started before
        # the new server serves finds the store unserved and opens it itself.
        socket = self.store / "tinystore.sock"
        socket.unlink(missing_ok=True)
        self.server = subprocess.Popen(cmd, stdout=log, stderr=log)
        limit = time.monotonic() + 30
        while not socket.exists():
            if self.server.poll() is not None or time.monotonic() > limit:
                raise RuntimeError("tinystore serve did not start; see server.log")
            time.sleep(0.02)

    def address(self, i: int) -> str:
        """Worker i's way to the server: the Unix socket for the first of
        each language's pairs, TLS with a client certificate for the second.
        The socket's address, not the directory: a worker that starts while
        the server is down must wait for it, never open the store itself
        (which `open DIR` would do). On etcd, every member, from a
        different first member per worker."""
        if self.etcd is not None:
            return self.etcd.address(i, f"torture-{os.getpid()}")
        if (i // len(self.languages)) % 2 == 0:
            return f"unix:{self.store / 'tinystore.sock'}"
        c = self.certs
        return f"tls://localhost:{self.tls_port}?ca={c / 'ca.pem'}&cert={c / 'client.pem'}&key={c / 'client.key'}"

    def start_worker(self, i: int) -> None:
        lang = self.languages[i % len(self.languages)]
        left = max(1, int(self.deadline - time.monotonic()))
        cmd = PROGRAMS[lang] + [
            "--db", str(self.db), "--store", self.address(i), "torture",
            "--worker", f"{lang}-{i}", "--chats", str(CHATS), "--seconds", str(left), "--ttl-ms", str(self.ttl_ms), "--pause-ms", str(self.pause_ms),
        ]
        if self.etcd is None:
            # Half its holds of the other ways: several chats, reads, writes,
            # weighted permits, some capped by a max_hold (check.py checks
            # them from the audit log, which only a served store has).
            cmd += ["--ways", "all"]
        log = open(self.out / f"worker-{i}.log", "a")
        self.workers[i] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True)

    def pause(self, proc: subprocess.Popen[str]) -> None:
        """SIGSTOP past the TTL, then SIGCONT, off the chaos thread."""
        try:
            proc.send_signal(signal.SIGSTOP)
            time.sleep(3 * self.ttl_ms / 1000)
        finally:
            proc.send_signal(signal.SIGCONT)

    def kill_server(self, rng: random.Random) -> float:
        """SIGKILLs the server and restarts it with its clock set back;
        returns how long until the next outage."""
        assert self.server is not None
        self.server.send_signal(signal.SIGKILL)
        self.server.wait()
        self.faults["server_sigkill"] += 1
        back = -rng.randrange(1_000, 3_600_000)
        self.faults["clock_steps_back"] += 1
        time.sleep(rng.uniform(0.05, 0.3))
        self.start_server(clock_offset_ms=back)
        return rng.uniform(3, 6)

    def cut_member(self, rng: random.Random) -> float:
        """Cuts an etcd member off for 1.5 to 3 s, then heals the cut;
        returns how long until the next outage."""
        assert self.etcd is not None
        self.etcd.isolate(rng)
        self.faults["etcd_member_cut_off"] += 1
        time.sleep(rng.uniform(1.5, 3.0))
        self.etcd.heal()
        return rng.uniform(2, 4)

    def chaos(self) -> None:
        rng = random.Random(os.environ.get("TORTURE_SEED", "7"))
        # An outage: the server killed, or on etcd a member cut off.
        outage = self.kill_server if self.etcd is None else self.cut_member
        every = 8 if self.etcd is None else 5
        outages_due = max(1, int((self.deadline - time.monotonic()) / every))
        next_outage = time.monotonic() + 2
        while time.monotonic() < self.deadline - 2:
            time.sleep(rng.uniform(0.2, 0.6))
            i = rng.randrange(len(self.workers))
            proc = self.workers[i]
            if proc is None or proc.poll() is not None:
                continue
            roll = rng.random()
            if outages_due and time.monotonic() >= next_outage:
                gap = outage(rng)
                outages_due -= 1
                next_outage = time.monotonic() + gap
            elif roll < 0.6:
                self.faults["sigstop"] += 1
                threading.Thread(target=self.pause, args=(proc,), daemon=True).start()
            else:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                self.faults["worker_sigkill"] += 1
                self.start_worker(i)

    def finish(self) -> None:
        for proc in self.workers:
            if proc is None:
                continue
            try:
                out, _ = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            self.done_lines += [line for line in out.splitlines() if line.startswith("DONE")]
        if self.server is not None:
            self.server.send_signal(signal.SIGTERM)
            self.server.wait(timeout=20)
        if self.etcd is not None:
            self.etcd.stop()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--languages", default="rust,python,go")
    parser.add_argument("--out", default="", help="keep the run's logs, store and audit log here (else a temp folder, removed when the run passes)")
    parser.add_argument("--etcd", action="store_true", help="the store on a namespaced etcd cluster, cut and healed")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="torture-"))
    out.mkdir(parents=True, exist_ok=True)
    verdict = run_and_judge(args, out)
    if verdict == 0 and not args.out:
        # A passing run's folder only fills the disk (an etcd cluster's data
        # is about 180 MB); a failing one is kept for its logs.
        shutil.rmtree(out, ignore_errors=True)
        print(f"passed; removed {out} (--out DIR keeps a run's files)")
    else:
        print(f"the run's files are in {out}")
    return verdict


def run_and_judge(args: argparse.Namespace, out: Path) -> int:
    """Runs the workers, the server or etcd cluster and the chaos for
    args.seconds in out, then checks what the store kept: 0 when it holds,
    1 on a violation, 2 when the run proves nothing."""
    run = Run(out, args.seconds, args.languages.split(","), args.workers, args.etcd)
    try:
        if run.etcd is None:
            run.start_server()
        for i in range(args.workers):
            run.start_worker(i)
        run.chaos()
    finally:
        run.finish()
    if run.etcd is None:
        summary = check.check(str(run.audit), str(run.db))
    else:
        summary = check.check_saves(str(run.db))
    saves = sum(int(line.split("saves=")[1].split()[0]) for line in run.done_lines)
    report = {
        "seconds": args.seconds,
        "workers": args.workers,
        "workers_over_tls": sum(1 for i in range(args.workers) if run.address(i).startswith("tls://")),
        "languages": run.languages,
        "faults": run.faults,
        "workers_finished": len(run.done_lines),
        "saves_reported_by_workers": saves,
        **summary,
        "out": str(out),
    }
    print(json.dumps(report, indent=2))
    if summary["violations"]:
        return 1
    if run.etcd is None:
        # The workers hold the other ways too: each must show in the log.
        ways = ["grants_rwlock_read", "grants_rwlock_write", "grants_semaphore", "renewals"]
        missing = [way for way in ways if not summary.get(way)]
        if missing:
            print(f"the log has no {', '.join(missing)}: it proves nothing of them", file=sys.stderr)
            return 2
    if summary["saves_accepted"] == 0:
        print("the run saved nothing: it proves nothing", file=sys.stderr)
        return 2
    # A late save needs a stop inside a hold's body. Through the server that
    # is most of a worker's time; on etcd hand-overs take longer and stopped
    # workers hold up their keys, so a short run may see none: there the cuts
    # are what must have happened, and only a long run must refuse one.
    late_saves_due = run.faults["sigstop"] > 3 and (run.etcd is None or args.seconds >= 120)
    if summary["saves_refused"] == 0 and late_saves_due:
        print("no late save was ever refused: it proves nothing", file=sys.stderr)
        return 2
    if run.etcd is not None and run.faults["etcd_member_cut_off"] == 0:
        print("no etcd member was cut off: it proves nothing about cuts", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
