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
    with open(doc_path) as f:
        doc = f.read()
    if BEGIN in doc and END in doc:
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        doc = head + block + tail
    else:
        doc = doc.rstrip() + "\n\n## Against the peers\n\n" + block + "\n"
    with open(doc_path, "w") as f:
        f.write(doc)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
