#!/usr/bin/env python3
"""Runs the Rust test kit's own tests many times in a row:

    repeat_rust.py RUNS -- CARGO TEST ARGS...

Builds the test binaries once (CARGO TEST ARGS... --no-run), then runs, RUNS
times, the core crate's `testing::` tests and the command's
`serve::testing::` tests, each binary by itself; prints one line
`rust: N runs, F failures, T s` and exits 1 when any run failed, after
printing the first failure's output.
"""

import json
import subprocess
import sys
import time

# The test modules of the kit, by the package whose integration binary
# holds them.
FILTERS = {"tinystore": "testing::", "tinystore-cli": "serve::testing::"}


def binaries(cargo):
    """(package, path) of each integration test binary cargo built."""
    out = subprocess.run(
        cargo + ["--no-run", "--message-format=json"],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    found = []
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if msg["target"]["name"] != "integration":
            continue
        # `path+file:///.../core#tinystore@0.1.0`, or `...#0.1.0` when the
        # folder is named as the package.
        source, fragment = msg["package_id"].rsplit("#", 1)
        package = fragment.split("@")[0] if "@" in fragment else source.rsplit("/", 1)[-1]
        if package in FILTERS:
            found.append((package, msg["executable"]))
    if {p for p, _ in found} != set(FILTERS):
        sys.exit(f"expected integration binaries of {sorted(FILTERS)}, found {found}")
    return found


def main():
    runs = int(sys.argv[1])
    cargo = sys.argv[sys.argv.index("--") + 1 :]
    built = binaries(cargo)
    failures = 0
    first = None
    start = time.monotonic()
    for _ in range(runs):
        for package, exe in built:
            run = subprocess.run(
                [exe, "-q", FILTERS[package]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
            if run.returncode != 0 or " 0 passed" in run.stdout:
                failures += 1
                first = first or run.stdout
    took = time.monotonic() - start
    print(f"rust: {runs} runs, {failures} failures, {took:.0f} s")
    if failures:
        print(first)
        sys.exit(1)


if __name__ == "__main__":
    main()
