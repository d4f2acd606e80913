"""The ``tinystore`` command: the package's console script, which runs the
command line (written once, in Rust) inside this process."""

from __future__ import annotations

import signal
import sys

from . import _native


def main() -> None:
    """Runs ``tinystore`` with this process's arguments and exits with its
    status. Ctrl-C and SIGTERM reach the command as they reach the
    ``tinystore`` binary: ``serve`` shuts down cleanly, others stop."""
    # Python turns SIGINT into KeyboardInterrupt between bytecodes, which
    # never come while the command runs: give the signal back its default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_native.cli_main(["tinystore", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
