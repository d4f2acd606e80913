"""What OpenTelemetry costs a hold: bench/hold.py's embedded cases in a
child process per mode, the modes alternating, ROUNDS times: ``absent``
(opentelemetry cannot be imported), ``no-provider`` (installed, no
provider set) and ``provider`` (an SDK TracerProvider and MeterProvider
set, spans batched to an exporter that drops them). Prints each mode's
median of its rounds' medians. Run by `make bench-otel-python`. Figures:
docs/benchmarks.md, "OpenTelemetry when absent"."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROUNDS = int(os.environ.get("TINYSTORE_BENCH_ROUNDS", "3"))
HOLDS = int(os.environ.get("TINYSTORE_BENCH_HOLDS", "40000"))
"""Holds per case and run (bench/hold.py's embedded figure by default)."""
MODES = ("absent", "no-provider", "provider")

CHILD = """
import json, sys, tempfile
from pathlib import Path
mode = sys.argv[1]
if mode == "absent":
    sys.modules["opentelemetry"] = None  # type: ignore
elif mode == "provider":
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Drop(SpanExporter):
        def export(self, spans):  # type: ignore[no-untyped-def]
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Drop()))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider())
sys.path.insert(0, sys.argv[2])
import hold, tinystore
with tempfile.TemporaryDirectory() as tmp, tinystore.open(Path(tmp) / "store") as store:
    print(json.dumps(hold.cases(store, int(sys.argv[3]))))
"""


def run(mode: str) -> dict[str, float]:
    bench = str(Path(__file__).resolve().parent)
    out = subprocess.run([sys.executable, "-c", CHILD, mode, bench, str(HOLDS)], check=True, capture_output=True, text=True)
    rates: dict[str, float] = json.loads(out.stdout)
    return rates


def main() -> None:
    seen: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    for _ in range(ROUNDS):
        for mode in MODES:
            seen[mode].append(run(mode))
    names = list(seen[MODES[0]][0])
    print(f"python otel bench: {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, {ROUNDS} rounds, embedded holds/s")
    print("| case | " + " | ".join(MODES) + " |")
    print("| --- |" + " ---: |" * len(MODES))
    for name in names:
        medians = [statistics.median(r[name] for r in seen[mode]) for mode in MODES]
        print(f"| {name} | " + " | ".join(f"{m:,.0f}" for m in medians) + " |")


if __name__ == "__main__":
    main()
