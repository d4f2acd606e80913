"""Draws throughput against clients from the bench's results JSON.

Usage: python bench/plot.py target/bench/report.json docs/bench-throughput.png
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(results_path: str, png_path: str) -> None:
    with open(results_path) as f:
        results = json.load(f)["results"]
    systems: dict[str, list[tuple[int, float]]] = {}
    for r in results:
        if r["workload"].startswith("random"):
            systems.setdefault(r["system"], []).append((r["clients"], r["pairs_per_sec"]))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, points in sorted(systems.items()):
        points.sort()
        ax.plot([c for c, _ in points], [p for _, p in points], marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("clients")
    ax.set_ylabel("acquire+release pairs per second")
    ax.set_title("Lock throughput on loopback, random keys among 1,000")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
