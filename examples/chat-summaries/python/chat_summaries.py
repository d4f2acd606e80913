"""chat-summaries in Python: summary workers that hold ``summaries`` for a
chat and save with the fenced conditional update (``--save column``) or
through the guard (``--save guard``). See ../README.md for the commands,
which every language's program shares."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field

import chat_db
import tinystore
import torture

COMMANDS = "migrate, work, scene, hold-and-save, torture, fences"
COUNT_MASK = (1 << 64) - 1


class UsageError(Exception):
    """A bad command line."""


@dataclass
class Args:
    db: str = ""
    store: str = ""
    command: str = ""
    flags: dict[str, str] = field(default_factory=dict)

    def number(self, flag: str, default: int) -> int:
        value = self.flags.get(flag)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError:
            raise UsageError(f"--{flag} takes a whole number, not {value!r}") from None

    def guarded(self) -> bool:
        """``--save guard``: saves go through tinystore.guard; ``--save
        column`` (the default): the fenced update of docs/fences.md."""
        save = self.flags.get("save", "column")
        if save not in ("column", "guard"):
            raise UsageError(f"--save takes column or guard, not {save!r}")
        return save == "guard"


def parse_args(argv: list[str]) -> Args:
    args = Args()
    it = iter(argv)
    for arg in it:
        if arg.startswith("--"):
            flag = arg[2:]
            value = next(it, None)
            if value is None:
                raise UsageError(f"--{flag} needs a value")
            if flag == "db":
                args.db = value
            elif flag == "store":
                args.store = value
            else:
                args.flags[flag] = value
        else:
            args.command = arg
    if not args.command:
        raise UsageError(f"a command is required: {COMMANDS}")
    return args


def open_store(target: str) -> tinystore.Store:
    """A store directory is opened (or reached through its socket when
    served); an address is connected to."""
    if target.startswith(("unix:", "tcp://", "tls://", "etcd://")):
        return tinystore.connect(target)
    return tinystore.open(target)


def summarize(history: list[str], by: str) -> str:
    return f"{len(history)} messages, summarized by {by}"


async def work(args: Args, store: tinystore.Store) -> None:
    chats, workers, rounds = args.number("chats", 5), args.number("workers", 3), args.number("rounds", 2)
    chat_db.seed(chat_db.open_db(args.db), chats)
    summaries = store.locks("summaries")

    async def worker(w: int) -> None:
        conn = chat_db.open_db(args.db)
        for round_ in range(rounds):
            for chat in range(1, chats + 1):
                async with summaries.hold(chat) as lease:
                    summary = summarize(chat_db.history(conn, chat), f"worker {w}")
                    fence = f"{lease.fence:040d}"
                    changed = chat_db.save(conn, chat, summary, fence)
                    print(f"worker {w} round {round_} chat {chat}: fence {lease.fence} saved {changed}")
                await asyncio.sleep(0)  # let the other workers in

    await asyncio.gather(*(worker(w) for w in range(workers)))


def save(args: Args, db: chat_db.Db, chat: int, summary: str, fence: int) -> tinystore.Stale | int:
    """Saves as ``--save`` says: the rows the fenced update changed, or for
    the guard 1 when saved and its refusal when refused."""
    if args.guarded():
        refused = db.save_guarded(chat, summary, fence)
        return 1 if refused is None else refused
    return db.save(chat, summary, fence)


async def scene(args: Args, store: tinystore.Store) -> bool:
    guarded = args.guarded()
    db = chat_db.Db(args.db)
    db.add_chat(42, "chat 42")
    ttl_ms = args.number("ttl-ms", 300)
    summaries = store.locks("summaries")
    a = await summaries.acquire(42, ttl=ttl_ms / 1000, renew=False)
    print(f"1. Worker A holds chat 42 with fence {a.fence} and pauses past its ttl of {ttl_ms}ms.")

    async def worker_b() -> tuple[int, tinystore.Stale | int]:
        db_b = chat_db.Db(args.db)
        async with summaries.hold(42) as lease:
            return lease.fence, save(args, db_b, 42, "summary by B", lease.fence)

    (b_fence, b_saved), _ = await asyncio.gather(worker_b(), asyncio.sleep(2 * ttl_ms / 1000))
    b_changed = 0 if isinstance(b_saved, tinystore.Stale) else b_saved
    print(f"2. A's lease ran out. Worker B holds chat 42 with fence {b_fence} and saves: {b_changed} row changed.")
    a_saved = save(args, db, 42, "summary by A", a.fence)
    if isinstance(a_saved, tinystore.Stale):
        outcome = (
            f"refused by the guard with stale: fence {a_saved.fence} is below fence {a_saved.largest}, "
            f"recorded for {a_saved.resource}; its update rolled back"
        )
    else:
        outcome = "refused, 0 rows changed" if a_saved == 0 else "ACCEPTED (the fence failed)"
    print(f"3. A wakes and saves with fence {a.fence}: {outcome}.")
    summary, fence = db.kept(42)
    if guarded:
        print(f"chat.db keeps: {json.dumps(summary)}; tinystore_fences keeps chats/42 = {db.recorded(42)}")
    else:
        print(f"chat.db keeps: {json.dumps(summary)} with fence {fence}")
    a_refused = isinstance(a_saved, tinystore.Stale) if guarded else a_saved == 0
    return a_refused and b_changed == 1


def hold_and_save(args: Args, store: tinystore.Store) -> None:
    chat = args.number("chat", 42)
    db = chat_db.Db(args.db)
    db.add_chat(chat, "chat")
    ttl = args.number("ttl-ms", 15_000) / 1000
    saved = False
    try:
        with store.locks(args.flags.get("name", "summaries")).hold(chat, ttl=ttl) as lease:
            print(f"HELD {lease.fence}")
            sys.stdin.readline()
            # Saved whether or not the lease is still held: the fence is
            # what refuses a late write.
            saved_by = save(args, db, chat, "summary by python", lease.fence)
            changed = 0 if isinstance(saved_by, tinystore.Stale) else saved_by
            print(f"SAVED {changed} {lease.fence}")
            saved = True
    except tinystore.Error as err:
        if not saved:
            raise
        print(f"RELEASED {err.code}")
    else:
        print("RELEASED ok")


def fences(args: Args) -> None:
    """The fence vectors through this language's API; see ../README.md."""
    path = args.flags.get("vectors")
    if path is None:
        raise UsageError("--vectors FILE is required")
    with open(path, encoding="utf-8") as f:
        vectors = json.load(f)
    for case in vectors["cases"]:
        fence = tinystore.parse_fence(case["value"])
        print(f"CASE {fence} {tinystore.fence_text(fence)} {fence >> 64} {fence & COUNT_MASK}")
    for a_text, b_text in vectors["ordered"]:
        a, b = tinystore.parse_fence(a_text), tinystore.parse_fence(b_text)
        as_texts = tinystore.fence_text(a) < tinystore.fence_text(b)
        print(f"ORDERED {a} {b} {str(a < b).lower()} {str(as_texts).lower()}")
    for bad in vectors["invalid"]:
        try:
            code = f"ACCEPTED:{tinystore.parse_fence(bad)}"
        except tinystore.Error as err:
            code = err.code
        print(f"INVALID {json.dumps(bad, ensure_ascii=False)} {code}")


def run(argv: list[str]) -> bool:
    args = parse_args(argv)
    if args.command == "fences":
        fences(args)
        return True
    args.guarded()  # a bad --save fails before anything runs
    if not args.db or not args.store:
        raise UsageError("--db PATH|URL and --store DIR|ADDRESS are required")
    if chat_db.is_postgres(args.db):
        chat_db.Db(args.db)
        if args.command not in ("migrate", "scene", "hold-and-save"):
            raise UsageError(f"{args.command} runs on a SQLite file; --db postgresql:// takes migrate, scene and hold-and-save")
    else:
        chat_db.open_db(args.db)
    if args.command == "migrate":
        print(f"migrated {args.db}")
        return True
    store = open_store(args.store)
    try:
        if args.command == "work":
            asyncio.run(work(args, store))
        elif args.command == "scene":
            return asyncio.run(scene(args, store))
        elif args.command == "hold-and-save":
            hold_and_save(args, store)
        elif args.command == "torture":
            t = torture.run(
                store,
                args.db,
                args.flags.get("worker", "python"),
                args.number("chats", 4),
                args.number("seconds", 10),
                args.number("ttl-ms", 300) / 1000,
                args.number("pause-ms", 20),
                args.flags.get("ways") == "all",
            )
            print(f"DONE saves={t.saves} lost={t.lost} errors={t.errors} ways={t.ways}")
        else:
            raise UsageError(f"unknown command {args.command!r}: {COMMANDS}")
        return True
    finally:
        store.close()


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    try:
        return 0 if run(sys.argv[1:]) else 1
    except Exception as err:
        if not isinstance(err, (UsageError, tinystore.Error, OSError, ValueError, KeyError, *chat_db.errors())):
            raise
        print(f"chat-summaries: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
