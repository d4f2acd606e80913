"""`make bench-languages`: tinystore through `tinystore serve` beside each
language's most used Redis lock, in one run.

Starts a redis-server on a free loopback port and `tinystore serve` on a
temporary directory, runs each language's runner (bench/languages/*/)
against both, and collects the JSON line each prints per row into
OUT/results.jsonl, with the run's context (versions, load average) in
OUT/context.json. bench/languages/report.py turns them into the table.

Usage: python bench/languages/run.py --tinystore BIN --secs S --out DIR
       --rust BIN --go BIN [--only rust,python,node,go]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, ready) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.05)
    sys.exit(f"bench-languages: {what} did not start within 30 s")


def port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tinystore", required=True)
    ap.add_argument("--secs", type=float, default=3.0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rust", required=True, help="the built Rust runner")
    ap.add_argument("--go", required=True, help="the built Go runner")
    ap.add_argument("--only", default="rust,python,node,go")
    args = ap.parse_args()
    # The runners run in their own folders: make the paths absolute.
    args.tinystore, args.rust, args.go = (str(Path(p).resolve()) for p in (args.tinystore, args.rust, args.go))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    secs = str(args.secs)

    with tempfile.TemporaryDirectory(prefix="tinystore-languages-") as tmp:
        port = free_port()
        redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp],
            stdout=subprocess.DEVNULL,
        )
        store = Path(tmp) / "store"
        server = subprocess.Popen([args.tinystore, "serve", str(store)], stderr=subprocess.DEVNULL)
        sock = store / "tinystore.sock"
        try:
            wait_for("redis-server", lambda: port_open(port))
            wait_for("tinystore serve", sock.exists)
            url = f"redis://127.0.0.1:{port}/"
            runners = {
                "rust": [args.rust, str(sock), url, secs],
                "python": [sys.executable, str(HERE / "python" / "runner.py"), str(sock), url, secs],
                "node": ["node", str(HERE / "node" / "runner.js"), str(sock), url, secs],
                "go": [args.go, str(sock), f"127.0.0.1:{port}", secs],
            }
            context = {
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "load_before": os.getloadavg(),
                "cpus": os.cpu_count(),
                "cpu": next(
                    (ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")),
                    platform.machine(),
                ),
                "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30),
                "secs": args.secs,
                "redis": version(["redis-server", "--version"]),
                "python": platform.python_version(),
                "node": version(["node", "--version"]),
                "go": version(["go", "version"]) if shutil.which("go") else "unknown",
            }
            context["exits"] = []
            # Rows per runner: 2 systems x 2 holder counts, Python twice (sync, asyncio).
            expected = {"rust": 4, "python": 8, "node": 4, "go": 4}
            rows = []
            for name in args.only.split(","):
                print(f"bench-languages: {name}", file=sys.stderr, flush=True)
                done = subprocess.run(runners[name], stdout=subprocess.PIPE, text=True, cwd=HERE / name)
                printed = done.stdout.splitlines()
                if done.returncode != 0 and len(printed) < expected[name]:
                    sys.exit(f"bench-languages: the {name} runner failed ({done.returncode})")
                if done.returncode != 0:
                    # Every row was measured, but the process failed on its way
                    # out: kept in the report, not hidden.
                    print(f"bench-languages: the {name} runner exited with {done.returncode} after its rows", file=sys.stderr)
                    context["exits"].append({"runner": name, "returncode": done.returncode})
                for line in printed:
                    row = json.loads(line)
                    print(
                        f"  {row['language']:<6} {row['variant']:<15} {row['system']:<9} {row['holders']:>2}:"
                        f" {row['pairs_per_sec']:>9,.0f} pairs/s  p50 {row['p50_us']:>7,.0f} µs  p99 {row['p99_us']:>8,.0f} µs",
                        file=sys.stderr,
                    )
                    rows.append(row)
            context["load_after"] = os.getloadavg()
        finally:
            stop(server)
            stop(redis)
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (out / "context.json").write_text(json.dumps(context, indent=1) + "\n")


if __name__ == "__main__":
    main()
