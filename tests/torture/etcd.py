"""The etcd side of the torture test: a three-member cluster whose members
live in network namespaces of their own (core/tests/etcd_netns.sh), so
that the chaos driver can cut one member off from the others (the leader
or not) and heal the cut, as a failing switch would. Needs root."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "core" / "tests" / "etcd_netns.sh"


class Cluster:
    def __init__(self, out: Path) -> None:
        self.dir = out / "etcd"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.isolated: int | None = None
        subprocess.run(["bash", str(SCRIPT), "start", str(self.dir)], check=True)
        self.members = (self.dir / "endpoints").read_text().strip().split(",")

    def address(self, i: int, prefix: str) -> str:
        """Worker i's address: every member, starting from a different one
        for each worker, so that some workers talk to the member cut off."""
        start = i % len(self.members)
        order = self.members[start:] + self.members[:start]
        return f"etcd://{','.join(order)}/{prefix}"

    def isolate(self, rng: random.Random) -> int:
        """Cuts a random member off from the other two, both ways."""
        n = rng.randrange(1, len(self.members) + 1)
        subprocess.run(["bash", str(SCRIPT), "isolate", str(self.dir), str(n)], check=True)
        self.isolated = n
        return n

    def heal(self) -> None:
        subprocess.run(["bash", str(SCRIPT), "heal", str(self.dir)], check=True)
        self.isolated = None

    def stop(self) -> None:
        subprocess.run(["bash", str(SCRIPT), "stop", str(self.dir)], check=False)
