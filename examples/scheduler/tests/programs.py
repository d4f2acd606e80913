"""Where each language's scheduler program is (see ../README.md), and the
languages to test: $LANGUAGES, as for the other examples."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
EXAMPLE = ROOT / "examples" / "scheduler"

PROGRAMS: dict[str, list[str]] = {
    "rust": [str(TARGET / "debug" / "scheduler")],
    "python": [str(ROOT / ".venv-python" / "bin" / "python"), str(EXAMPLE / "python" / "scheduler.py")],
    "node": ["node", str(EXAMPLE / "node" / "scheduler.mjs")],
    "go": [str(TARGET / "scheduler-go")],
}

LANGUAGES = [lang for lang in PROGRAMS if lang in os.environ.get("LANGUAGES", "rust python node go").split()]
