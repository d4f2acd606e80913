"""Turns `make bench-languages`'s results (bench/languages/run.py) into one
Markdown table and a plot, and puts them into docs/benchmarks.md between
`<!-- languages:begin -->` and `<!-- languages:end -->`.

Usage: python bench/languages/report.py OUT_DIR docs/benchmarks.md docs/bench-languages.png
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from update_doc import put_block  # noqa: E402

BEGIN, END = "<!-- languages:begin -->", "<!-- languages:end -->"
ORDER = ["Rust", "Python", "Node", "Go"]


def table(rows: list[dict]) -> tuple[str, list[tuple[str, int, float, float]]]:
    """The Markdown table, and (case, holders, tinystore, redis) for the plot."""
    by = {(r["language"], r["variant"], r["system"], r["holders"]): r for r in rows}
    cases = sorted(
        {(r["language"], r["variant"]) for r in rows},
        key=lambda c: (ORDER.index(c[0]) if c[0] in ORDER else 99, c[1]),
    )
    lines = [
        "| language | holders | tinystore pairs/s | p50 / p99 µs | Redis lock pairs/s | p50 / p99 µs"
        " | tinystore/Redis | tinystore/Rust client |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    plotted = []
    for holders in sorted({r["holders"] for r in rows}):
        rust = by.get(("Rust", "tokio tasks", "tinystore", holders))
        for language, variant in cases:
            ts = by.get((language, variant, "tinystore", holders))
            rd = by.get((language, variant, "redis", holders))
            if not ts or not rd:
                continue
            vs_rust = f"{ts['pairs_per_sec'] / rust['pairs_per_sec']:.2f}" if rust else ""
            lines.append(
                f"| {language} ({variant}) | {holders} | {ts['pairs_per_sec']:,.0f} |"
                f" {ts['p50_us']:,.0f} / {ts['p99_us']:,.0f} | {rd['pairs_per_sec']:,.0f} |"
                f" {rd['p50_us']:,.0f} / {rd['p99_us']:,.0f} | {ts['pairs_per_sec'] / rd['pairs_per_sec']:.2f}× |"
                f" {vs_rust} |"
            )
            plotted.append((f"{language}\n{variant}", holders, ts["pairs_per_sec"], rd["pairs_per_sec"]))
    return "\n".join(lines), plotted


def locks_used(rows: list[dict]) -> str:
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        seen.setdefault((r["language"], r["variant"]), {})[r["system"]] = r["lock"]
    out = ["| language | tinystore | Redis lock |", "|---|---|---|"]
    for (language, variant), locks in seen.items():
        out.append(f"| {language} ({variant}) | {locks.get('tinystore', '')} | {locks.get('redis', '')} |")
    return "\n".join(out)


def cgo(rows: list[dict]) -> str:
    found = [r for r in rows if "cgo_calls_per_pair" in r and r["system"] == "tinystore"]
    return ", ".join(f"{r['cgo_calls_per_pair']:.1f} at {r['holders']}" for r in found)


def plot(plotted: list[tuple[str, int, float, float]], png: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    holders = sorted({h for _, h, _, _ in plotted})
    fig, axes = plt.subplots(1, len(holders), figsize=(6 * len(holders), 4.5), squeeze=False)
    for ax, h in zip(axes[0], holders):
        cases = [c for c in plotted if c[1] == h]
        xs = range(len(cases))
        ax.bar([x - 0.2 for x in xs], [c[2] for c in cases], 0.4, label="tinystore serve")
        ax.bar([x + 0.2 for x in xs], [c[3] for c in cases], 0.4, label="the language's Redis lock")
        ax.set_xticks(list(xs), [c[0] for c in cases], fontsize=8)
        ax.set_title(f"{h} concurrent holder{'s' if h > 1 else ''}, 1,000 random keys")
        ax.set_ylabel("acquire+release pairs/s")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main(out_dir: str, doc_path: str, png: str) -> None:
    rows = [json.loads(ln) for ln in Path(out_dir, "results.jsonl").read_text().splitlines() if ln.strip()]
    ctx = json.loads(Path(out_dir, "context.json").read_text())
    md, plotted = table(rows)
    plot(plotted, png)
    load = lambda key: " / ".join(f"{x:.2f}" for x in ctx[key])  # noqa: E731
    block = "\n".join(
        [
            BEGIN,
            f"Command: `make bench-languages` (BENCH_SECS={ctx['secs']:g}: each row runs that many seconds)."
            f" Date: {ctx['date']}. Machine: {ctx['cpus']} cores ({ctx['cpu']}), {ctx['mem_gib']} GiB,"
            f" shared: load average (1 / 5 / 15 min) {load('load_before')} before the run and"
            f" {load('load_after')} after it. {ctx['redis']}; Python {ctx['python']}, Node {ctx['node']},"
            f" {ctx['go']}.",
            "",
            "Pairs per second: acquire then release a lock on a random key among 1,000, from 1 or 64"
            " concurrent holders; p50 / p99 of each pair's latency. tinystore/Rust client is the row's"
            " tinystore figure over the Rust client's at the same holders.",
            "",
            md,
            "",
            locks_used(rows),
            "",
            f"cgo calls per tinystore pair from Go: {cgo(rows)}." if cgo(rows) else "",
            "".join(
                f"The {e['runner']} runner exited with status {e['returncode']} after printing all its rows"
                f" (a negative status is the signal that ended it). "
                for e in ctx.get("exits", [])
            ),
            "",
            f"![pairs per second by language]({Path(png).name})",
            END,
        ]
    )
    Path(out_dir, "report.md").write_text(block + "\n")
    put_block(doc_path, BEGIN, END, block, "Languages beside Redis")
    print(block)


if __name__ == "__main__":
    main(*sys.argv[1:4])
