"""Proves from a torture run's history that tinystore kept its promises.

Inputs: the server's audit log (every grant, renewal and end, across every
restart, in the engine's order) and the shared SQLite resource's save_log
(every fenced save, accepted or refused, in the order the resource saw
them).

Checks of the audit log (check_audit), for every kind of key (lock,
semaphore, read-write lock, election):
1. No fence was given twice or out of order, across every restart (LOCK-02):
   the fences of the audit's grants strictly increase; a lease carries one
   exactly when it is fenced (a lock's, a write lease's, a leader's).
3. While the server was up, no key ever had a lease that excludes others
   (a lock's, a write lease's, a leader's) together with any other holder,
   and the weights held on a key never passed its limit (a semaphore's
   limit; a read-write lock's RW_PLACES readers).
5. No lease was renewed past its max_hold (no renewal at or after its
   deadline, none running out later than it), and none ended later than its
   deadline plus SLACK_US of scheduling.
6. Every end is of a lease that held its key, and with clean=True (the
   server stopped cleanly) every grant ended.

Checks of the saves (check_saves):
2. For each key, the fences the resource accepted strictly increase in the
   order it accepted them, and each is a fence the store gave for that key.
4. Every refused write was refused because a larger fence had been
   accepted before it.

On etcd there is no audit log: check_saves applies the rules the saves
alone can prove. Every hold saves once, so no fence may appear in two saves
(a fence given twice would); checks 2 and 4 as above, minus "given for it".

Usage: python check.py AUDIT_LOG CHAT_DB  (prints a JSON summary; exit 1 on a violation)
       python check.py --audit AUDIT_LOG [--clean]  (the audit log alone)
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

# How many places a read-write lock key has: a reader takes one, a writer all.
RW_PLACES = 1_000_000
# How late past its max_hold a lease may end: the scheduler's wake-up on a
# loaded machine.
SLACK_US = 500_000
# The lock group whose fences the chat-summaries workers save with.
SAVED_GROUP = "summaries"


@dataclass
class Held:
    """A lease while it holds its key, as its grant recorded it."""

    lease: int
    weight: int
    exclusive: bool
    ends_by_us: int | None


def exclusive(ev: dict[str, Any]) -> bool:
    """Whether a grant excludes every other holder of its key."""
    return ev["kind"] in ("lock", "election") or ev.get("mode") == "write"


def check_audit(audit_path: str, clean: bool = False) -> dict[str, Any]:
    """Checks 1, 3, 5 and 6 on an audit log. Returns the counts of grants
    (in all and by kind and mode), renewals and server runs; the fences
    given per key of SAVED_GROUP (`given`); and every violation found."""
    violations: list[str] = []
    counts: dict[str, int] = defaultdict(int)
    opens = 0
    last_fence = -1
    given: dict[str, set[int]] = defaultdict(set)
    # Per (kind, name, key): the leases holding it now, by lease id.
    holders: dict[tuple[str, str, str], dict[int, Held]] = defaultdict(dict)
    # Per lease id: the key it holds, for renewals.
    where: dict[int, tuple[str, str, str]] = {}
    limits: dict[tuple[str, str, str], int] = {}
    with open(audit_path) as f:
        for n, line in enumerate(f, 1):
            try:
                ev = json.loads(line)
            except json.JSONDecodeError as err:
                violations.append(f"line {n}: not JSON ({err})")
                continue
            what = ev.get("ev")
            if what == "open":
                opens += 1
                holders.clear()  # the leases of the run before are gone with it
                where.clear()
                limits.clear()
                continue
            slot = (ev.get("kind", "lock" if ev.get("fenced") else "semaphore"), ev["name"], ev["key"])
            label = f"{slot[0]} {slot[1]}/{slot[2]}"
            lease = ev["lease"]
            if what == "grant":
                counts["grants"] += 1
                counts[f"grants_{slot[0]}" + (f"_{ev['mode']}" if ev.get("mode") else "")] += 1
                violations += check_grant(n, ev, label, holders[slot], limits.get(slot))
                limits[slot] = ev.get("limit", 1)
                fence = ev.get("fence")
                if fence is not None:
                    fence = int(fence)
                    if fence <= last_fence:
                        violations.append(f"line {n}: fence {fence} given after {last_fence}")
                    last_fence = max(last_fence, fence)
                    if slot[0] == "lock" and slot[1] == SAVED_GROUP:
                        given[slot[2]].add(fence)
                holders[slot][lease] = Held(lease, ev.get("weight", 1), exclusive(ev), ev.get("ends_by_us"))
                where[lease] = slot
            elif what == "renew":
                counts["renewals"] += 1
                held = holders[slot].get(lease)
                if held is None or where.get(lease) != slot:
                    violations.append(f"line {n}: lease {lease} renewed on {label} it did not hold")
                elif held.ends_by_us is not None:
                    if ev["at_us"] >= held.ends_by_us:
                        violations.append(f"line {n}: lease {lease} on {label} renewed at {ev['at_us']} us, past its max_hold at {held.ends_by_us}")
                    if ev["expires_us"] > held.ends_by_us:
                        violations.append(f"line {n}: lease {lease} on {label} renewed to {ev['expires_us']} us, past its max_hold at {held.ends_by_us}")
            elif what == "end":
                held = holders[slot].pop(lease, None)
                where.pop(lease, None)
                if held is None:
                    violations.append(f"line {n}: lease {lease} ended on {label} it did not hold")
                elif held.ends_by_us is not None and "at_us" in ev and ev["at_us"] > held.ends_by_us + SLACK_US:
                    late_ms = (ev["at_us"] - held.ends_by_us) / 1000
                    violations.append(f"line {n}: lease {lease} on {label} ended {late_ms:.1f} ms past its max_hold")
                if not holders[slot]:
                    del holders[slot]
                    limits.pop(slot, None)
            else:
                violations.append(f"line {n}: an unknown event: {line.strip()}")
    if clean:
        for (kind, name, key), held_now in holders.items():
            if held_now:
                violations.append(f"{kind} {name}/{key}: leases {sorted(held_now)} never ended, though the server stopped cleanly")
    return {"server_runs": opens, **counts, "given": given, "violations": violations}


def check_grant(n: int, ev: dict[str, Any], label: str, held: dict[int, Held], limit_now: int | None) -> list[str]:
    """The violations of one grant against its key's holders: exclusion,
    weights within the limit, a fence exactly when fenced, and a max_hold
    deadline where one was asked."""
    out: list[str] = []
    lease, weight, limit = ev["lease"], ev.get("weight", 1), ev.get("limit", 1)
    if ev.get("fenced") != (ev.get("fence") is not None):
        out.append(f"line {n}: {label} granted {'without' if ev.get('fenced') else 'with'} a fence")
    if held and exclusive(ev):
        out.append(f"line {n}: {label} granted to lease {lease} while lease {sorted(held)} held it")
    elif any(h.exclusive for h in held.values()):
        alone = [h.lease for h in held.values() if h.exclusive]
        out.append(f"line {n}: {label} granted to lease {lease} while lease {alone} held it alone")
    if limit_now is not None and limit != limit_now:
        out.append(f"line {n}: {label} granted with limit {limit} while its holders have {limit_now}")
    expected_limit = {"lock": 1, "election": 1, "rwlock": RW_PLACES}.get(ev.get("kind", ""), limit)
    if limit != expected_limit:
        out.append(f"line {n}: {label} has limit {limit}; a {ev.get('kind')} has {expected_limit}")
    if ev.get("mode") == "write" and weight != limit:
        out.append(f"line {n}: a write lease on {label} takes {weight} of {limit} places, not all")
    if not 1 <= weight <= limit:
        out.append(f"line {n}: {label} granted weight {weight} outside 1..{limit}")
    used = sum(h.weight for h in held.values())
    if used + weight > limit:
        out.append(f"line {n}: {label} granted weight {weight} to lease {lease} while {used} of its {limit} places were taken")
    max_hold_ms, ends_by = ev.get("max_hold_ms"), ev.get("ends_by_us")
    if (max_hold_ms is None) != (ends_by is None):
        out.append(f"line {n}: {label} granted with max_hold_ms {max_hold_ms} but deadline {ends_by}")
    elif max_hold_ms is not None and abs(ends_by - ev["at_us"] - 1000 * max_hold_ms) > 1000:
        out.append(f"line {n}: {label} granted at {ev['at_us']} us with max_hold {max_hold_ms} ms but deadline {ends_by}")
    return out


def check(audit_path: str, db_path: str) -> dict[str, object]:
    """Every check: the audit log's, then the saves' against the fences it
    gave."""
    audit = check_audit(audit_path)
    given = audit.pop("given")
    saves = check_saves(db_path, given)
    return {**audit, **saves, "violations": audit["violations"] + saves["violations"]}


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
    if sys.argv[1] == "--audit":
        summary = check_audit(sys.argv[2], clean="--clean" in sys.argv[3:])
        summary["given"] = {key: len(fences) for key, fences in summary["given"].items()}
    else:
        summary = check(sys.argv[1], sys.argv[2])
    print(json.dumps(summary, indent=2))
    return 1 if summary["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
