"""Proves from a torture run's history that tinystore kept its promises.

Inputs: the server's audit log (every grant and end, across every restart,
in the engine's order) and the shared SQLite resource's save_log (every
fenced save, accepted or refused, in the order the resource saw them).

Checks:
1. No fence was given twice or out of order, across every restart (LOCK-02):
   the fences of the audit's grants strictly increase.
2. For each key, the fences the resource accepted strictly increase in the
   order it accepted them, and each is a fence the store gave for that key.
3. While the server was up, no two leases on one key overlapped.
4. Every refused write was refused because a larger fence had been
   accepted before it.

On etcd there is no audit log: check_saves applies the rules the saves
alone can prove. Every hold saves once, so no fence may appear in two saves
(a fence given twice would); checks 2 and 4 as above, minus "given for it".

Usage: python check.py AUDIT_LOG CHAT_DB  (prints a JSON summary; exit 1 on a violation)
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import defaultdict
from typing import Any


def check(audit_path: str, db_path: str) -> dict[str, object]:
    violations: list[str] = []
    grants = 0
    opens = 0
    last_fence = -1
    given: dict[str, set[int]] = defaultdict(set)
    holder: dict[str, int] = {}
    with open(audit_path) as f:
        for n, line in enumerate(f, 1):
            ev = json.loads(line)
            if ev["ev"] == "open":
                opens += 1
                holder.clear()  # the leases of the run before are gone with it
                continue
            if not ev["fenced"] or ev["name"] != "summaries":
                continue
            key = ev["key"]
            if ev["ev"] == "grant":
                grants += 1
                fence = int(ev["fence"])
                if fence <= last_fence:
                    violations.append(f"line {n}: fence {fence} given after {last_fence}")
                last_fence = max(last_fence, fence)
                given[key].add(fence)
                if key in holder:
                    violations.append(f"line {n}: key {key} granted to lease {ev['lease']} while {holder[key]} held it")
                holder[key] = ev["lease"]
            elif ev["ev"] == "end":
                if holder.get(key) == ev["lease"]:
                    del holder[key]

    saves = check_saves(db_path, given)
    return {"server_runs": opens, "grants": grants, **saves, "violations": violations + saves["violations"]}


def check_saves(db_path: str, given: dict[str, set[int]] | None = None) -> dict[str, Any]:
    """Checks 2 and 4 from the resource's save_log, and that no fence was
    saved twice; with `given` (from an audit log), that each saved fence was
    given for its key. Returns the saves accepted and refused, and the
    violations."""
    violations: list[str] = []
    conn = sqlite3.connect(db_path)
    accepted = refused = 0
    saved_by: dict[int, int] = {}
    last_accepted: dict[str, int] = {}
    for seq, chat, fence_text, worker, ok, kept in conn.execute(
        "select seq, chat, fence, worker, accepted, kept from save_log order by seq"
    ):
        key, fence = str(chat), int(fence_text)
        if given is not None and fence not in given[key]:
            violations.append(f"save {seq}: fence {fence} for chat {key} was never given for it")
        if fence in saved_by:
            violations.append(f"save {seq}: fence {fence} was saved before, by save {saved_by[fence]}: given twice")
        saved_by[fence] = seq
        if ok:
            accepted += 1
            if fence <= last_accepted.get(key, -1):
                violations.append(f"save {seq}: chat {key} accepted {fence} after {last_accepted[key]}")
            last_accepted[key] = fence
        else:
            refused += 1
            if not kept or int(kept) <= fence:
                violations.append(f"save {seq}: chat {key} refused {fence} while it kept {kept!r}")
            if int(kept or 0) != last_accepted.get(key):
                violations.append(f"save {seq}: chat {key} kept {kept} but the last accepted was {last_accepted.get(key)}")
    return {"saves_accepted": accepted, "saves_refused": refused, "violations": violations}


def main() -> int:
    summary = check(sys.argv[1], sys.argv[2])
    print(json.dumps(summary, indent=2))
    return 1 if summary["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
