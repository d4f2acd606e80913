"""Puts the bench's Markdown report into docs/benchmarks.md, between the
markers `<!-- peers:begin -->` and `<!-- peers:end -->`, with the command,
the machine and the date.

Usage: python bench/update_doc.py target/bench/report.md docs/benchmarks.md
"""

import datetime
import os
import sys

BEGIN, END = "<!-- peers:begin -->", "<!-- peers:end -->"


def machine() -> str:
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    return f"{os.cpu_count()} cores, {mem_kb / 1024 / 1024:.0f} GiB"


def main(report_path: str, doc_path: str) -> None:
    with open(report_path) as f:
        report = f.read().strip()
    today = datetime.date.today().isoformat()
    block = (
        f"{BEGIN}\n"
        f"Command: `make bench`. Machine: {machine()}. Date: {today}.\n\n"
        f"{report}\n\n![throughput against clients](bench-throughput.png)\n{END}"
    )
    put_block(doc_path, BEGIN, END, block, "Against the peers")


def put_block(doc_path: str, begin: str, end: str, block: str, heading: str) -> None:
    """Replaces what stands between `begin` and `end` in the doc with `block`
    (which starts and ends with them); without the markers, appends `block`
    under a new section `heading`."""
    with open(doc_path) as f:
        doc = f.read()
    if begin in doc and end in doc:
        head, rest = doc.split(begin, 1)
        _, tail = rest.split(end, 1)
        doc = head + block + tail
    else:
        doc = doc.rstrip() + f"\n\n## {heading}\n\n" + block + "\n"
    with open(doc_path, "w") as f:
        f.write(doc)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
