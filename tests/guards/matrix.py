"""The guard's conformance matrix: runs each language's runner, gathers
the `MATRIX <language> <backend> <scenario> <result>` lines they print,
and prints one table (scenario x backend rows, a column per language).

Fails when a runner exits non-zero, when a cell says FAIL, or when a cell
that vectors/guards.json names is missing from a runner's lines.

    python3 tests/guards/matrix.py rust='cargo test ...' python='...'

Run under tests/guards/with-postgres.sh and with-s3.sh, which give the
runners $TINYSTORE_PG_URL and $TINYSTORE_S3_URL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "guards.json"


def main(argv: list[str]) -> int:
    runners = dict(arg.split("=", 1) for arg in argv)
    if not runners:
        print("usage: matrix.py LANGUAGE='COMMAND' ...", file=sys.stderr)
        return 2
    vectors = json.loads(VECTORS.read_text())
    cells = [(b, s["name"]) for s in vectors["scenarios"] for b in s["backends"]]
    results: dict[tuple[str, str, str], str] = {}
    problems = []
    for language, command in runners.items():
        print(f"matrix: {language}: {command}", flush=True)
        run = subprocess.run(command, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in run.stdout.splitlines():
            parts = line.split(" ", 5)
            if len(parts) >= 5 and parts[0] == "MATRIX" and parts[1] == language:
                results[(language, parts[2], parts[3])] = " ".join(parts[4:])
        if run.returncode != 0:
            problems.append(f"{language}: the runner exited {run.returncode}")
            print(run.stdout[-6000:], file=sys.stderr)
    width = max(len(f"{b} {s}") for b, s in cells)
    print(f"\n{'backend scenario'.ljust(width)}  " + "  ".join(l.ljust(10) for l in runners))
    for backend, scenario in cells:
        row = []
        for language in runners:
            result = results.get((language, backend, scenario))
            if result is None:
                problems.append(f"{language} {backend} {scenario}: no result")
                row.append("MISSING")
            elif result.startswith(("FAIL", "skipped")):
                problems.append(f"{language} {backend} {scenario}: {result}")
                row.append("FAIL")
            else:
                row.append(result.split(" ", 1)[0])
        print(f"{f'{backend} {scenario}'.ljust(width)}  " + "  ".join(r.ljust(10) for r in row))
    ok = sum(1 for r in results.values() if r == "ok")
    print(f"\nmatrix: {ok} cells ok of {len(cells) * len(runners)}")
    for problem in problems:
        print(f"matrix: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
