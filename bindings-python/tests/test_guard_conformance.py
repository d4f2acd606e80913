"""The guard's conformance matrix (tests/guard_conformance.py, a script)
run as it runs on its own, against the PostgreSQL at $TINYSTORE_PG_URL and
moto's S3 at $TINYSTORE_S3_URL that `make test-python` starts: it fails
when any cell does, showing the matrix. Without both servers it skips,
unless TINYSTORE_REQUIRE_PG=1 or TINYSTORE_REQUIRE_S3=1, when it fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

RUNNER = Path(__file__).with_name("guard_conformance.py")


def test_every_cell_of_the_matrix_is_green() -> None:
    missing = [name for name in ("TINYSTORE_PG_URL", "TINYSTORE_S3_URL") if not os.environ.get(name)]
    if missing:
        if os.environ.get("TINYSTORE_REQUIRE_PG") == "1" or os.environ.get("TINYSTORE_REQUIRE_S3") == "1":
            pytest.fail(f"{' and '.join(missing)} unset, and TINYSTORE_REQUIRE_* forbids skipping the matrix")
        pytest.skip(f"{' and '.join(missing)} unset: run under tests/guards/with-postgres.sh and with-s3.sh")
    run = subprocess.run([sys.executable, str(RUNNER)], capture_output=True, text=True, timeout=600)
    lines = [line for line in run.stdout.splitlines() if line.startswith("MATRIX python ")]
    assert run.returncode == 0, f"the matrix failed:\n{run.stdout}\n{run.stderr}"
    with open(REPO / "vectors" / "guards.json", encoding="utf-8") as f:
        cells = sum(len(s["backends"]) for s in json.load(f)["scenarios"])
    assert len(lines) == cells, f"{len(lines)} cells printed, {cells} in the scenarios:\n{run.stdout}"
    assert all(line.split()[4] in ("ok", "n/a") for line in lines), run.stdout
