// The typings of the npm package `tinystore`: locks whose every exclusive
// lease carries a fence. Times are in milliseconds. Kept by hand beside
// lib/; the tests compile against them with `tsc --strict`.

/** A key: text, or an integer (a number or a bigint), which is its decimal. */
export type Key = string | number | bigint

/** Options of a group or a call; a call's override the group's. */
export interface Options {
  /** How long a lease lives after its grant or last renewal (default 15 000; 10 ms to 24 h). */
  ttl?: number
  /** How long acquire may wait (default: until the signal aborts). */
  wait?: number
  /** Whether a held lease is renewed every ttl/3 until released (default true). */
  renew?: boolean
  /**
   * The longest a lease is kept after its grant, renewals included (10 ms
   * to 30 days; default: no cap): past it, it is renewed no more, runs out,
   * and its holder is told (its signal aborts with a LeaseLostError naming
   * max_hold).
   */
  maxHold?: number
  /**
   * What the holder says about itself, kept with the lease: shown by
   * `status()` (`HeldStatus.data`) and given to watchers. At most 1024
   * bytes of UTF-8 (longer rejects with an InvalidError, nothing granted);
   * default this process's `HOST:PID`; `''` attaches nothing. An election
   * refuses it (a leader is known by its value).
   */
  data?: string
  /** Ends a wait: the acquire rejects with the signal's reason and no lease leaks. */
  signal?: AbortSignal
}

/** Options of `tryAcquire`, which never waits. */
export type TryOptions = Omit<Options, 'wait' | 'signal'>

/** Options of a semaphore's acquire and hold (and of the semaphore). */
export interface PermitOptions extends Options {
  /** How many of the key's places the permit takes, all or nothing: 1 (the default) to the limit. */
  weight?: number
}

/** Options of a semaphore's `tryAcquire`. */
export type TryPermitOptions = Omit<PermitOptions, 'wait' | 'signal'>

/** Options of `connect`. */
export interface ConnectOptions {
  /** The server's token, for TCP addresses. */
  token?: string
}

/** Opens the store directory `dir`, making it if missing; connects to it when it is served. */
export declare function open(dir: string): Promise<Store>

/**
 * Connects to a store served by `tinystore serve` at `address`: `unix:PATH`,
 * `tcp://HOST:PORT` (with a token), a socket's path or a served directory.
 */
export declare function connect(address: string, options?: ConnectOptions): Promise<Store>

/**
 * Serves the store directory `dir` (made if missing) on `DIR/tinystore.sock`
 * until the server is closed, so that `open(dir)` in other processes reaches
 * it, as `tinystore serve DIR` does. Rejects with InUseError when another
 * process owns `dir`.
 */
export declare function serve(dir: string): Promise<Server>

/** A store served by this process; `close` stops serving. */
export declare class Server {
  private constructor()
  /** The path of the Unix socket it serves on. */
  readonly socket: string
  /** Stops serving cleanly: leases released, waiters fail with ClosedError, the socket removed. Idempotent. */
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** Parses a fence's decimal strictly: ASCII digits only, leading zeros allowed, at most 2^128-1. */
export declare function parseFence(text: string): bigint

/** The 40-digit zero-padded text of a fence, which orders as text the way fences order as numbers. */
export declare function fenceText(fence: bigint): string

/** An open store, owned by this process or reached over a connection. */
export declare class Store {
  private constructor()
  /** The group of exclusive locks called `name`, with its options. */
  locks(name: string, options?: Options): Locks
  /** The group of semaphores called `name`: up to `limit` places per key. */
  semaphore(name: string, limit: number, options?: PermitOptions): Semaphore
  /**
   * The group of read-write locks called `name` (apart from the lock group
   * and semaphore of that name): readers share a key, a writer holds it
   * alone; first come first served.
   */
  rwLocks(name: string, options?: Options): RwLocks
  /** The election called `name` (apart from the lock group and semaphore of that name), with its options. */
  election(name: string, options?: Options): Election
  /**
   * The store's state: its epoch, the fences given, each held lease and
   * each key with callers waiting: the `limit` of each (1 to 10,000;
   * default 1,000) after the first `offset`, by name then key.
   */
  status(options?: StatusOptions): Promise<Status>
  /** Releases every lease and fails every waiter with ClosedError. Idempotent. */
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** Which page of a status: the `limit` after the first `offset`. */
export interface StatusOptions {
  offset?: number
  limit?: number
}

/** The state of a store: one page of its held leases and keys with waiters. */
export interface Status {
  /** The store's epoch: the high 64 bits of its fences. */
  readonly epoch: bigint
  /** How many fences the store gave since it opened. */
  readonly fencesGiven: number
  /** The last fence given, or null. */
  readonly lastFence: bigint | null
  /** Milliseconds of grace left after an unclean stop (no grants until then), or null. */
  readonly graceLeft: number | null
  /** The leases held now (this page of them). */
  readonly held: readonly HeldStatus[]
  /** The keys with callers waiting (this page of them). */
  readonly waiting: readonly WaitingStatus[]
  /** How many leases are held in all. */
  readonly heldTotal: number
  /** How many keys have callers waiting in all. */
  readonly waitingTotal: number
  /** Whether more held leases or keys with waiters come after this page. */
  readonly more: boolean
  /**
   * Whether it is a test store, whose time the test kit (`tinystore/testing`)
   * controls: made by the kit, or served with `tinystore serve --testing`.
   */
  readonly testing: boolean
  /**
   * The keys whose first caller has waited longest, longest first: at most
   * 10, whatever the page (empty on etcd).
   */
  readonly longestWaits: readonly WaitingStatus[]
  /**
   * The late writes guards refused, per group, as the leases' holders told
   * the store since it opened, by name then kind: every group, whatever the
   * page (empty on etcd, which counts none).
   */
  readonly lateWritesRefused: readonly RefusedStatus[]
}

/** A group's late writes refused by guards. */
export interface RefusedStatus {
  /** The group's name (`other` past the first 1,000 groups counted). */
  readonly name: string
  /** The kind of group. */
  readonly kind: Kind
  /** How many writes its leases' guards refused as stale. */
  readonly refused: number
}

/** One held lease, as a status shows it. */
export interface HeldStatus {
  readonly name: string
  readonly key: string
  /** The fence; null for a semaphore permit and a read lease. */
  readonly fence: bigint | null
  /** The TTL in milliseconds. */
  readonly ttl: number
  /** Milliseconds until it runs out unless renewed. */
  readonly left: number
  /** Whether the store itself renews it. */
  readonly renewing: boolean
  /** For an election's leadership (its key is empty): the leader's value; else null. */
  readonly leader: string | null
  /** The kind of group it is held in. */
  readonly kind: Kind
  /** For a read-write lock's lease: 'read' or 'write'; else null. */
  readonly mode: 'read' | 'write' | null
  /** The places of its key it takes: a weighted permit's weight, all of a read-write lock's (1,000,000) for a write lease, else 1. */
  readonly weight: number
  /** What its holder said about itself when it acquired (`{ data }`; by default its `HOST:PID`); null when it said nothing. */
  readonly data: string | null
}

/** A kind of group, as a status shows it. */
export type Kind = 'lock' | 'semaphore' | 'rwlock' | 'election'

/** A key with callers waiting for it. */
export interface WaitingStatus {
  readonly name: string
  readonly key: string
  /** The kind of group it is in. */
  readonly kind: Kind
  /** How many callers wait. */
  readonly waiters: number
  /** Milliseconds the first caller in line has waited; null on etcd. */
  readonly waited: number | null
}

/**
 * What a group of locks and a group of semaphores share; `H` is what holding
 * a key gives, `O` and `T` the options of its acquire and tryAcquire.
 */
declare abstract class Group<H, O extends Options = Options, T extends TryOptions = TryOptions> {
  protected constructor()
  readonly name: string
  /** Waits first come first served for `key` and holds it. */
  acquire(key: Key, options?: O): Promise<H>
  /** Holds `key` if it is free now; else null. */
  tryAcquire(key: Key, options?: T): Promise<H | null>
  /**
   * Acquires `key`, runs `fn`, and releases what it held however `fn` ends;
   * resolves to what `fn` returned. `fn`'s own error first (an error in
   * releasing never hides it); else, when the lease was lost before `fn`
   * ended, ClosedError if its store closed, LeaseLostError if it ran out or
   * its connection broke.
   */
  hold<R>(key: Key, fn: (held: H) => R | PromiseLike<R>, options?: O): Promise<R>
  /**
   * The events of `key` from now on, in the store's order (see Watcher),
   * until the signal aborts, `break` (or `return()`), or the error that
   * ends it: ClosedError, UnavailableError, InvalidError for a bad key
   * (at the first `next`).
   */
  watch(key: Key, options?: WatchOptions): Watcher
  /** The events of every key of the group from now on, as `watch` gives one key's. */
  watchAll(options?: WatchOptions): Watcher
}

/** A group of exclusive locks, one per key; its leases carry fences. */
export declare class Locks extends Group<Lease> {
  /**
   * Holds every key of `keys` or none: a lease each, in the order of
   * `keys`, each with its own fence (1 to 1,024 keys; one named twice is
   * InvalidError). Keys are taken in one order for every caller, so callers
   * naming overlapping keys in any order never deadlock. `wait` covers all
   * the keys together; a timeout (WaitTimeoutError), an error or an abort
   * of the signal leaves none held.
   */
  acquireAll(keys: Iterable<Key>, options?: Options): Promise<Lease[]>
  /**
   * Acquires every key of `keys` as `acquireAll` does, runs `fn` with the
   * leases (in the order of `keys`) and a signal that aborts when any of
   * them is lost, and releases them all however `fn` ends; resolves to what
   * `fn` returned. As `hold`: `fn`'s own error first; else, when a lease was
   * lost before `fn` ended, ClosedError or LeaseLostError (the first loss
   * stands for all).
   */
  holdAll<R>(keys: Iterable<Key>, fn: (leases: Lease[], signal: AbortSignal) => R | PromiseLike<R>, options?: Options): Promise<R>
}

/**
 * A group of semaphores: up to `limit` places per key; permits have no
 * fence. A permit takes `weight` places (default 1), all or nothing, first
 * come first served.
 */
export declare class Semaphore extends Group<Permit, PermitOptions, TryPermitOptions> {
  /** The most places a key has. */
  readonly limit: number
}

/**
 * A group of read-write locks, one per key: readers share a key, a writer
 * holds it alone. First come first served: a waiting writer holds back the
 * readers that came after it, so writers never starve. A read gives a
 * Permit (no fence), a write a Lease with a fence.
 */
export declare class RwLocks {
  private constructor()
  readonly name: string
  /**
   * The events of `key` from now on, in the store's order (see Watcher: a
   * write lease's grant with its fence, a read lease's without),
   * until the signal aborts, `break` (or `return()`), or the error that
   * ends it: ClosedError, UnavailableError, InvalidError for a bad key
   * (at the first `next`).
   */
  watch(key: Key, options?: WatchOptions): Watcher
  /** The events of every key of the group from now on, as `watch` gives one key's. */
  watchAll(options?: WatchOptions): Watcher
  /** Waits first come first served to read `key`: shared with other readers, after every writer that came first. */
  acquireRead(key: Key, options?: Options): Promise<Permit>
  /** Waits first come first served to write `key`: alone, with a fence. */
  acquireWrite(key: Key, options?: Options): Promise<Lease>
  /** Reads `key` if no writer holds it or waits for it now; else null. */
  tryAcquireRead(key: Key, options?: TryOptions): Promise<Permit | null>
  /** Writes `key` if nobody holds it or waits for it now; else null. */
  tryAcquireWrite(key: Key, options?: TryOptions): Promise<Lease | null>
  /** Reads `key`, runs `fn`, and releases the permit however `fn` ends, as `Locks.hold` does. */
  holdRead<R>(key: Key, fn: (permit: Permit) => R | PromiseLike<R>, options?: Options): Promise<R>
  /** Writes `key`, runs `fn`, and releases the lease however `fn` ends, as `Locks.hold` does. */
  holdWrite<R>(key: Key, fn: (lease: Lease) => R | PromiseLike<R>, options?: Options): Promise<R>
}

/** What a lease, a permit and a leadership share. */
declare abstract class Holding {
  protected constructor()
  /** The group's (or election's) name. */
  readonly name: string
  /** The TTL in milliseconds. */
  readonly ttl: number
  /** Whether it is still held: false once released (resigned), run out or lost. */
  readonly held: boolean
  /** Aborts when it is lost or released (resigned); its reason is a TinystoreError (LeaseLostError, ClosedError, ...). */
  readonly signal: AbortSignal
  /** Extends it by its TTL; rejects with LeaseLostError when it ran out. */
  renew(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** What a lease and a permit share. */
declare abstract class Held extends Holding {
  /** The key held, as text. */
  readonly key: string
  /** Releases it; idempotent; when it was lost first, rejects with ClosedError (store closed) or LeaseLostError (ran out, connection broke). */
  release(): Promise<void>
}

/** A semaphore's hold on a key, or a read-write lock's read: it has no fence. */
export declare class Permit extends Held {}

/** A lock's (or a read-write lock's write) hold on a key, with its fence. */
export declare class Lease extends Held {
  /** Larger than every fence the store gave before; every digit kept. */
  readonly fence: bigint
  /**
   * Tells its store that a guard refused a write under this lease to
   * `resource` as stale, for the store to count per group (status,
   * metrics). Never blocks nor throws: a served store is sent a message
   * nobody answers, dropped if it cannot go at once; etcd counts none. The
   * guards call it when given the lease itself.
   */
  reportRefused(resource: string): void
}

/** An election's leader as everyone sees it. */
export interface Leader {
  /** What the leader said it is when it campaigned. */
  readonly value: string
  /** Its term: larger than every earlier leader's. */
  readonly fence: bigint
}

/** Options of `watch` and `watchAll`. */
export interface WatchOptions {
  /** Ends the watcher (as `break` does). */
  signal?: AbortSignal
}

/**
 * One thing that happened on a watched key, or to the watcher itself:
 * `granted` (a lease with its fence, null for a permit or a read lease, and
 * its holder's data, null when it attached none), `released`, `lost` (with
 * its cause: `expired`, its TTL or `maxHold` ran out; `disconnected`, its
 * holder's connection ended; `closed`, the store closed), `queue` (how
 * many acquires wait for the key now) or `lagged` (the watcher fell 1,024
 * events behind: `missed` were dropped, never to be seen).
 */
export type WatchEvent =
  | { readonly kind: 'granted'; readonly key: string; readonly fence: bigint | null; readonly data: string | null }
  | { readonly kind: 'released'; readonly key: string; readonly fence: bigint | null }
  | { readonly kind: 'lost'; readonly key: string; readonly fence: bigint | null; readonly cause: 'expired' | 'disconnected' | 'closed' }
  | { readonly kind: 'queue'; readonly key: string; readonly length: number }
  | { readonly kind: 'lagged'; readonly missed: number }

/**
 * The events of a watched key or group, in the store's order, from the
 * moment it was made (`status()` tells what is held then). A watcher that
 * falls 1,024 events behind never slows the store or anyone else: the
 * events it had no room for are dropped and it reads one `lagged` event
 * where they were, then goes on. Ends when the signal aborts, on `break`
 * (or `return()`), `close()`, or with the error that ended it
 * (ClosedError, UnavailableError).
 */
export declare class Watcher implements AsyncIterableIterator<WatchEvent> {
  private constructor()
  next(): Promise<IteratorResult<WatchEvent, undefined>>
  /** Stops watching (what `break` in a `for await` calls). */
  return(): Promise<IteratorResult<WatchEvent, undefined>>
  /** Stops watching: a `next` under way and every later one are done. Idempotent. */
  close(): void
  [Symbol.asyncIterator](): Watcher
}

/** Options of `observe`. */
export interface ObserveOptions {
  /** Ends the observer (as `break` does). */
  signal?: AbortSignal
}

/**
 * An election: a lock whose holder is named, the leader. Its fence is the
 * leader's term, larger for every later leader.
 */
export declare class Election {
  private constructor()
  readonly name: string
  /**
   * Waits first come first served until this caller leads with `value`
   * (text of at most 1,024 bytes); rejects with WaitTimeoutError when
   * `wait` runs out, with the signal's reason when it aborts (a campaign
   * given up never leads).
   */
  campaign(value: string, options?: Options): Promise<Leadership>
  /**
   * Campaigns, runs `fn` while leading and resigns however `fn` ends;
   * resolves to what `fn` returned. As `hold`: `fn`'s own error first; else,
   * when the leadership was lost before `fn` ended (`l.signal` aborted),
   * ClosedError if its store closed, LeaseLostError if it ran out or its
   * connection broke.
   */
  lead<T>(value: string, fn: (leadership: Leadership) => T | PromiseLike<T>, options?: Options): Promise<T>
  /** The leader now, or null when nobody leads. */
  leader(): Promise<Leader | null>
  /**
   * Every change of leader from now on, in order, with no gap and no
   * repeat: the leader now (or null) first, then each change, null when
   * nobody leads. `break` in a `for await`, `close()` or the signal ends it.
   */
  observe(options?: ObserveOptions): Observer
}

/** Leading an election: its fence is the term. */
export declare class Leadership extends Holding {
  /** The value this leader campaigned with. */
  readonly value: string
  /** The term: larger than every earlier leader's; every digit kept. */
  readonly fence: bigint
  /** Stops leading: the next in the queue leads at once. Idempotent; when it was lost first, rejects with ClosedError or LeaseLostError. */
  resign(): Promise<void>
}

/**
 * The changes of an election's leader, pushed as they happen. It ends with
 * ClosedError when its store closes and LimitError when it fell more than
 * 1,024 changes behind (observe again then).
 */
export declare class Observer implements AsyncIterableIterator<Leader | null> {
  private constructor()
  next(): Promise<IteratorResult<Leader | null, undefined>>
  /** Stops observing; what `break` in a `for await` calls. */
  return(): Promise<IteratorResult<Leader | null, undefined>>
  /** Stops observing: a `next` under way and every later one are done. Idempotent. */
  close(): void
  [Symbol.asyncIterator](): Observer
}

/** An error code of tinystore, the same on the wire and in every language. */
export type Code =
  | 'timeout'
  | 'lease_lost'
  | 'in_use'
  | 'closed'
  | 'invalid'
  | 'limit'
  | 'unauthorized'
  | 'corrupt'
  | 'io'
  | 'unavailable'
  | 'internal'
  | 'stale'

/** Every error tinystore raises; `code` says which. */
export declare class TinystoreError extends Error {
  constructor(code: Code, message: string, options?: ErrorOptions)
  readonly code: Code
}

declare class CodeError<C extends Code> extends TinystoreError {
  constructor(message: string, options?: ErrorOptions)
  readonly code: C
}

/** `timeout`: a wait ran out before the key was free. */
export declare class WaitTimeoutError extends CodeError<'timeout'> {}
/** `lease_lost`: the lease ran out, was released, or its store or connection went away. */
export declare class LeaseLostError extends CodeError<'lease_lost'> {}
/** `in_use`: the store directory is owned by another process that does not serve it. */
export declare class InUseError extends CodeError<'in_use'> {}
/** `closed`: the store or connection was closed. */
export declare class ClosedError extends CodeError<'closed'> {}
/** `invalid`: a bad name, key, TTL, fence text or argument. */
export declare class InvalidError extends CodeError<'invalid'> {}
/** `limit`: a documented limit was passed. */
export declare class LimitError extends CodeError<'limit'> {}
/** `unauthorized`: a TCP client did not authenticate, or gave a wrong token. */
export declare class UnauthorizedError extends CodeError<'unauthorized'> {}
/** `corrupt`: kv.db could not be read as a tinystore database. */
export declare class CorruptError extends CodeError<'corrupt'> {}
/** `io`: an operating-system I/O error. */
export declare class IoError extends CodeError<'io'> {}
/** `unavailable`: the server could not be reached. */
export declare class UnavailableError extends CodeError<'unavailable'> {}
/** `internal`: a bug or an unexpected state. */
export declare class TinystoreInternalError extends CodeError<'internal'> {}
/**
 * `stale`: a guard refused a write: its fence is below the largest one
 * recorded for its resource. Carries the resource and both fences.
 */
export declare class StaleError extends TinystoreError {
  constructor(message: string, detail: { resource: string; fence: bigint; largest: bigint }, options?: ErrorOptions)
  readonly code: 'stale'
  /** The resource the refused write was for, e.g. "chats/42". */
  readonly resource: string
  /** The refused write's fence. */
  readonly fence: bigint
  /** The largest fence recorded for the resource (above `fence`). */
  readonly largest: bigint
}

/** The class for each code. */
export declare const errorClasses: {
  readonly timeout: typeof WaitTimeoutError
  readonly lease_lost: typeof LeaseLostError
  readonly in_use: typeof InUseError
  readonly closed: typeof ClosedError
  readonly invalid: typeof InvalidError
  readonly limit: typeof LimitError
  readonly unauthorized: typeof UnauthorizedError
  readonly corrupt: typeof CorruptError
  readonly io: typeof IoError
  readonly unavailable: typeof UnavailableError
  readonly internal: typeof TinystoreInternalError
  readonly stale: typeof StaleError
}

/** The SQL a guard speaks ('mysql': MySQL 8 and MariaDB 10.5 or later). */
export type GuardDialect = 'sqlite' | 'postgres' | 'mysql'

/** A better-sqlite3 `Database`, as the guard uses it (told apart by `prepare` and `inTransaction`). */
export interface GuardSqliteHandle {
  readonly inTransaction: boolean
  prepare(source: string): unknown
  exec(source: string): unknown
}

/** A pg `Client` or `PoolClient`, as the guard uses it (told apart by `query`). */
export interface GuardPgHandle {
  query(text: string, values?: unknown[]): Promise<unknown>
}

/**
 * A mysql2 `Connection` or `PoolConnection`, of `mysql2/promise` or of the
 * callback API, as the guard uses it (told apart at run time by `execute`
 * and `serverStatus`, or a `connection` that has them: the guard runs its
 * statements on the callback connection a promise one wraps). A `Pool`,
 * which has no `threadId`, is not one.
 */
export interface GuardMysqlHandle {
  readonly threadId: number | null
  execute(...args: never[]): unknown
}

/**
 * Guards: the fence compared where the write lands (docs/guards.md). Per
 * resource (a name such as "chats/42", 1 to 1024 bytes of UTF-8) the table
 * `tinystore_fences` keeps the largest fence that wrote to it; a check with
 * fence `f` is accepted when no fence above `f` was recorded (equal is
 * accepted: one lease may write many times) and records `f`; otherwise it
 * fails with StaleError. It runs in the caller's own transaction, beside
 * the write it guards, so a refusal rolls the write back with it.
 *
 * Errors, one policy for every guard: the guard's own outcomes are
 * TinystoreErrors (StaleError, CorruptError, InvalidError); an error the
 * driver raised is rethrown as it was (better-sqlite3's SqliteError, pg's
 * DatabaseError with its SQLSTATE in `code`, mysql2's error with its
 * `errno` and `sqlState`, the AWS SDK's, Google Cloud Storage's, Azure's), so the handler
 * you have for your driver keeps working, and `isSerializationFailure`
 * tells a serialization failure. The one exception is a missing register
 * table: InvalidError saying how to make it, the driver's error its `cause`.
 */
export declare namespace guard {
  /**
   * Checks and records `fence` for `resource` inside the transaction open
   * on a better-sqlite3 `db` (call it inside `db.transaction(...)`; else
   * InvalidError). Returns when accepted; throws StaleError when refused
   * (the transaction function then rolls back), CorruptError when the
   * recorded fence is not 40 digits, InvalidError for a resource that is
   * not a string, is empty, over 1,024 bytes, holds a NUL or a lone UTF-16
   * surrogate (it has no UTF-8 form), a fence that is not a bigint from 0
   * to 2^128-1, or a missing table (its `cause` the SqliteError).
   * better-sqlite3's own errors (SQLITE_BUSY, SQLITE_READONLY) are thrown
   * as they are. Given the lease itself rather than its fence, a refusal is
   * also told to its store (`lease.reportRefused`), which counts the late
   * writes refused per group, never blocking nor failing the check.
   */
  function check(db: GuardSqliteHandle, resource: string, fence: bigint | Lease): void
  /**
   * The same on a pg `Client` or `PoolClient`, inside the caller's `BEGIN`
   * (awaited first: a client idle outside a transaction is InvalidError);
   * rejects as above. On PostgreSQL a failed statement aborts the caller's
   * transaction: after a missing table (InvalidError) roll back. At READ
   * COMMITTED a second writer of the resource waits for the first's commit,
   * then the rule decides; at REPEATABLE READ and SERIALIZABLE it fails with
   * pg's own error, code '40001' (`isSerializationFailure` is true): retry
   * the whole transaction. pg's other errors (a lost connection, 42501
   * permission denied) are rejected with as they are.
   */
  function check(client: GuardPgHandle, resource: string, fence: bigint | Lease): Promise<void>
  /**
   * The same on a mysql2 connection (MySQL or MariaDB, InnoDB), inside the
   * caller's transaction (`beginTransaction()` or `BEGIN` awaited first; a
   * connection in autocommit that the server last reported outside a
   * transaction is InvalidError; with autocommit off the check's own
   * statement opens one). A second writer of the resource waits for the
   * first's commit, then the rule decides. mysql2's own errors are rejected
   * with as they are (`errno` 1142 permission denied, 1213 deadlock, 1205
   * lock wait timeout and 1020 record changed: `isSerializationFailure` is
   * true for the last three; retry the whole transaction); a missing table
   * (1146) is InvalidError with mysql2's error its `cause`.
   */
  function check(conn: GuardMysqlHandle, resource: string, fence: bigint | Lease): Promise<void>
  /** Makes the table tinystore_fences if it is missing (SQLite: at once). */
  function ensure(db: GuardSqliteHandle): void
  /** Makes the table tinystore_fences if it is missing (PostgreSQL). */
  function ensure(client: GuardPgHandle): Promise<void>
  /**
   * Makes the table tinystore_fences (InnoDB) if it is missing (MySQL,
   * MariaDB). DDL: the server commits any transaction open on `conn`
   * first, so run it outside your transactions.
   */
  function ensure(conn: GuardMysqlHandle): Promise<void>
  /** The migration that makes tinystore_fences, for your migration tool. */
  function migration(dialect: GuardDialect): string
  /**
   * Whether `err`, a driver's own error a guard let through, is a
   * serialization failure: pg's SQLSTATE 40001 or 40P01, SQLite busy or
   * locked (SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED), MySQL's and
   * MariaDB's errors 1213, 1205 and 1020 (mysql2's `errno`). A concurrent
   * transaction came first: roll back and run the whole transaction again.
   * The driver's error is described to the core, which classifies it.
   */
  function isSerializationFailure(err: unknown): boolean
}

/**
 * An `S3Client` of `@aws-sdk/client-s3` (v3), as the S3 guard uses it: it
 * sends `ListObjectsV2Command`, `PutObjectCommand`, `DeleteObjectCommand`
 * and `GetObjectCommand` through `send`.
 */
export interface GuardS3Client {
  send(command: any, options?: any): Promise<any>
}

/** What a guarded put or delete gives back: the SDK's PutObject output of its fence's object. */
export interface GuardS3PutOutput {
  readonly ETag?: string
  readonly VersionId?: string
  readonly [field: string]: unknown
}

/** What `guard.s3.put` writes. */
export interface GuardS3PutOptions {
  bucket: string
  key: string
  /** The body: a string is written as UTF-8. */
  body: string | Uint8Array
  /**
   * The lease's fence, a bigint from 0 to 2^128-1, or the Lease itself:
   * then a refusal is also told to its store.
   */
  fence: bigint | Lease
  /** Your own object metadata, written beside the guard's (whose keys it must not use). */
  metadata?: Record<string, string>
  contentType?: string
  cacheControl?: string
  contentDisposition?: string
  contentEncoding?: string
}

/** What `guard.s3.delete` deletes. */
export interface GuardS3DeleteOptions {
  bucket: string
  key: string
  /** The lease's fence, or the Lease itself (a refusal is then told to its store). */
  fence: bigint | Lease
}

/** What `guard.s3.get` reads: the largest fence's object. */
export interface GuardS3Object {
  /** Its body. */
  readonly body: Uint8Array
  /** The fence it was written with. */
  readonly fence: bigint
  /** Your own metadata written with it (the guard's keys left out). */
  readonly metadata: Record<string, string>
}

/**
 * The guard on S3 and S3-compatible object storage (docs/guards.md), on
 * your own `S3Client` (`@aws-sdk/client-s3`, an optional peer dependency,
 * required on the first call). A guarded object is one object per fence
 * under its key, `KEY/tinystore-fence/<fence as 40 digits>`, and what a
 * reader sees is the largest fence's: read it with `get`. A write lists
 * the key's fences (a larger one: StaleError, nothing written), puts its
 * own fence's object, and lists again: a larger fence now refuses it
 * (StaleError; its object is deleted, and no reader saw it), else it is
 * accepted and the smaller fences' objects are deleted. No interleaving of
 * writers lets a smaller fence be read over a larger one, whatever bodies
 * repeat; the same body again under a later fence is written like any
 * other. The refusal's resource is "BUCKET/KEY". Given the Lease itself
 * as `fence`, a refusal is also told to its store.
 */
export declare namespace guard.s3 {
  /** The metadata key holding an object's fence: "tinystore-fence". */
  export const METADATA_KEY: string
  /** The metadata key of the tombstone a delete leaves: "tinystore-deleted". */
  export const TOMBSTONE_KEY: string
  /** How many times a read lists in all when later writers delete what it listed before its get. */
  export const MAX_TRIES: number
  /**
   * Writes `body` to `bucket/key` with `fence`, unless a larger fence is
   * stored there. Rejects with StaleError (a larger fence is stored:
   * nothing of this write is left); CorruptError (an object under
   * KEY/tinystore-fence/ whose name is not 40 digits: put there by hand);
   * InvalidError (a client without `send`; a bucket or key that is not a
   * non-empty string, holds a lone UTF-16 surrogate, holds
   * "/tinystore-fence/", or is too long for its fences' objects to fit
   * S3's 1,024 bytes; a body of another kind; metadata whose values are not
   * strings or whose keys are the guard's own, in any case; a fence that is
   * not a bigint from 0 to 2^128-1). The SDK's own errors (AccessDenied, a
   * refused connection) are rejected with as they are.
   */
  export function put(client: GuardS3Client, options: GuardS3PutOptions): Promise<GuardS3PutOutput>
  /**
   * Deletes `bucket/key` under `fence`: a guarded write of an empty
   * tombstone (metadata tinystore-deleted: "true") that keeps the fence,
   * so that a late holder's put is still refused; `get` then reads none.
   * Deleting again is fine. Rejects as `put`.
   */
  function delete_(client: GuardS3Client, options: GuardS3DeleteOptions): Promise<GuardS3PutOutput>
  export { delete_ as delete }
  /**
   * Reads `bucket/key` as the guard keeps it: the largest fence's object,
   * or null when there is none (never written, or deleted). Rejects with
   * CorruptError and InvalidError as `put`, LimitError when later writers
   * deleted the object it listed before its get MAX_TRIES times in a row,
   * and the SDK's own errors as they are.
   */
  export function get(client: GuardS3Client, bucket: string, key: string): Promise<GuardS3Object | null>
}

/**
 * An ioredis client (`Redis` or `Cluster`), as the Redis guard uses it: it
 * sends `evalsha` and `eval` with the number of keys.
 */
export interface GuardIoredisClient {
  evalsha(sha: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>
}

/**
 * A node-redis client (the `redis` package, v4 and later: `createClient`'s
 * or `createCluster`'s, connected), as the Redis guard uses it: it sends
 * `evalSha` and `eval` with `{ keys, arguments }`.
 */
export interface GuardNodeRedisClient {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
}

/** The Redis clients the guard takes, told apart by their methods. */
export type GuardRedisClient = GuardIoredisClient | GuardNodeRedisClient

/** What `guard.redis.script` passes the caller's own script. */
export interface GuardRedisScriptOptions {
  /** The keys it touches besides the data key, `KEYS[2]` on: in the data key's hash slot. */
  keys?: string[]
  /** Its arguments, `ARGV`. */
  args?: string[]
}

/**
 * The guard on Redis and Valkey (docs/guards.md, "Redis and Valkey"), on
 * your own ioredis or node-redis client (optional peer dependencies; the
 * package requires neither). The fence of data key K is kept in a string
 * key beside it, in its hash slot: `{K}:tinystore-fence`, or, for a key
 * with a hash tag (`user:{42}:profile`), `user:{42}:profile:tinystore-fence`.
 * Each call is one Lua script, which Redis runs alone: it reads K's fence,
 * refuses the write when a larger one is recorded (StaleError, nothing
 * written; its resource is the key), else makes the write and records the
 * fence. Equal is accepted. The script is sent by its SHA1 (EVALSHA), and
 * again in full (EVAL) when the server does not have it (NOSCRIPT: after a
 * restart or SCRIPT FLUSH).
 *
 * Every call rejects with StaleError when refused; CorruptError, naming
 * the fence key, when it holds what is not a fence (a hand edit);
 * InvalidError, before any call, for a client of another kind, a key that
 * is not a string, is empty, over 1,024 bytes, holds a NUL or a lone UTF-16
 * surrogate, or a `}` outside a hash tag (no fence key can share its slot:
 * give it a hash tag), a value, field or argument that is not a string or
 * holds a lone surrogate, and a fence that is not a bigint from 0 to
 * 2^128-1. The client's own errors are rejected with as the client threw
 * them (a ReplyError or ErrorReply "WRONGTYPE ...", "NOPERM ...", a
 * refused or closed connection), and nothing is recorded then.
 */
export declare namespace guard.redis {
  /** `SET key value`, guarded by `fence`. */
  export function set(client: GuardRedisClient, key: string, value: string, fence: bigint | Lease): Promise<void>
  /**
   * `DEL key`, guarded by `fence`. The fence stays recorded, so a late
   * holder's write is still refused and cannot bring the key back.
   */
  function delete_(client: GuardRedisClient, key: string, fence: bigint | Lease): Promise<void>
  export { delete_ as delete }
  /**
   * `HSET key field value ...` of `fields`, guarded by `fence`; no field is
   * InvalidError. A write Redis refuses (the key holds another type:
   * WRONGTYPE) records nothing.
   */
  export function hset(client: GuardRedisClient, key: string, fields: Record<string, string>, fence: bigint | Lease): Promise<void>
  /**
   * Your own Lua `body`, run behind the check in the same script: when no
   * larger fence is recorded for `key`, the fence is recorded and `body`
   * runs with `KEYS[1]` = `key`, `KEYS[2]...` = `options.keys` (each in
   * `key`'s hash slot, else InvalidError) and `ARGV` = `options.args`;
   * resolves to its reply (null for nil), as the client gives replies.
   * Refused: StaleError and `body` does not run. A body that fails half-way
   * leaves what it wrote (Redis does not roll a script back) under the
   * recorded fence, and its error is the client's.
   */
  export function script(client: GuardRedisClient, key: string, body: string, fence: bigint | Lease, options?: GuardRedisScriptOptions): Promise<unknown>
}

/**
 * A DynamoDB client as the DynamoDB guard uses it: a `DynamoDBClient` of
 * `@aws-sdk/client-dynamodb` (v3; items as AttributeValues, `{ S: '42' }`)
 * or a `DynamoDBDocumentClient` of `@aws-sdk/lib-dynamodb` (items as plain
 * values, told apart by its class). The guard sends the SDK's commands
 * through `send`.
 */
export interface GuardDynamoClient {
  send(command: any, options?: any): Promise<any>
}

/** Where the register lives: `table` (default `tinystore_fences`). */
export interface GuardDynamoOptions {
  table?: string
}

/** `PutItem`'s parameters that one item of a transaction takes (a `Put`). */
export interface GuardDynamoPut {
  TableName: string
  Item: Record<string, any>
  ConditionExpression?: string
  ExpressionAttributeNames?: Record<string, string>
  ExpressionAttributeValues?: Record<string, any>
  ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE'
}

/** `UpdateItem`'s parameters that one item of a transaction takes (an `Update`). */
export interface GuardDynamoUpdate {
  TableName: string
  Key: Record<string, any>
  UpdateExpression: string
  ConditionExpression?: string
  ExpressionAttributeNames?: Record<string, string>
  ExpressionAttributeValues?: Record<string, any>
  ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE'
}

/** `DeleteItem`'s parameters that one item of a transaction takes (a `Delete`). */
export interface GuardDynamoDelete {
  TableName: string
  Key: Record<string, any>
  ConditionExpression?: string
  ExpressionAttributeNames?: Record<string, string>
  ExpressionAttributeValues?: Record<string, any>
  ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE'
}

/** `TransactWriteItems`' input: your items (at most 99) and the call's other parameters. */
export interface GuardDynamoTransactInput {
  TransactItems: any[]
  [parameter: string]: any
}

/**
 * The guard on DynamoDB (docs/guards.md, "DynamoDB"), on your own client
 * (`@aws-sdk/client-dynamodb`, and `@aws-sdk/lib-dynamodb` for a document
 * client: optional peer dependencies, required on the first call). Each
 * call is one `TransactWriteItems`: your items, then the register item's
 * conditional put (table `tinystore_fences` unless `options.table` names
 * another; key `resource`; `fence` the fence's 40 digits as a string),
 * which DynamoDB commits all or none. Equal is accepted. Given the Lease
 * itself rather than its fence, a refusal is also told to its store.
 *
 * Every call rejects with StaleError (a larger fence is recorded; nothing
 * written); CorruptError, naming the resource and the register table, for
 * a register `fence` that is not 40 digits or not a string (a hand edit);
 * InvalidError, before any call, for a client without `send`, a resource
 * that is not a string, is empty, over 1,024 bytes, holds a NUL or a lone
 * UTF-16 surrogate, an empty table name, more than 99 items of yours, a
 * parameter a transaction's item does not take (`ReturnValues`), a fence
 * that is not a bigint from 0 to 2^128-1. The SDK's own errors are
 * rejected with as the SDK threw them: a `TransactionCanceledException`
 * for a condition of yours (its `CancellationReasons`) or a conflict with
 * another transaction (`TransactionConflict`: `guard.isSerializationFailure`
 * is true; retry), `ResourceNotFoundException` for a missing table, the
 * socket's error (`ECONNREFUSED`) for a server gone. When an attempt's
 * answer was lost (a dropped connection, a timeout, a 5xx) and the SDK's
 * retry finds a larger fence, the call rejects with `unavailable` (the
 * unanswered attempt may have been written; whether it was is unknown),
 * not StaleError, and tells the store nothing.
 */
export declare namespace guard.dynamodb {
  /** The register table unless you name another: "tinystore_fences". */
  export const REGISTER_TABLE: string
  /** The most items of yours in one guarded transaction: 99. */
  export const MAX_ITEMS: number
  /**
   * Makes the register table if it is missing (key `resource`, a string;
   * on-demand billing) and waits until it is active.
   */
  export function ensure(client: GuardDynamoClient, options?: GuardDynamoOptions): Promise<void>
  /** `PutItem`'s parameters as one guarded transaction's `Put`. */
  export function putItem(client: GuardDynamoClient, resource: string, fence: bigint | Lease, put: GuardDynamoPut, options?: GuardDynamoOptions): Promise<void>
  /** `UpdateItem`'s parameters as one guarded transaction's `Update`. */
  export function updateItem(client: GuardDynamoClient, resource: string, fence: bigint | Lease, update: GuardDynamoUpdate, options?: GuardDynamoOptions): Promise<void>
  /**
   * `DeleteItem`'s parameters as one guarded transaction's `Delete`; the
   * register keeps the fence, so a late write stays refused.
   */
  export function deleteItem(client: GuardDynamoClient, resource: string, fence: bigint | Lease, del: GuardDynamoDelete, options?: GuardDynamoOptions): Promise<void>
  /**
   * `TransactWriteItems` of your `TransactItems` (at most 99) and the
   * call's other parameters, guarded by `fence` for `resource`; resolves
   * to the SDK's output.
   */
  export function transactWriteItems(client: GuardDynamoClient, resource: string, fence: bigint | Lease, input: GuardDynamoTransactInput, options?: GuardDynamoOptions): Promise<any>
}

/**
 * A `File` of `@google-cloud/storage` (`storage.bucket(b).file(name)`), as
 * the GCS guard uses it: `getMetadata` for the generation and the fence,
 * `save` on a generation.
 */
export interface GuardGcsFile {
  readonly name: string
  readonly bucket: { readonly name: string }
  getMetadata(options?: any): Promise<any>
  save(data: any, options?: any): Promise<any>
}

/** What `guard.gcs.save` writes besides the body. */
export interface GuardGcsSaveOptions {
  /** The object's content type. */
  contentType?: string
  /** Your own custom metadata, written beside the fence (not under the guard's key). */
  metadata?: Record<string, string>
}

/**
 * The guard on Google Cloud Storage (docs/guards.md, "Google Cloud Storage
 * and Azure Blob Storage"), on your own `File` (`@google-cloud/storage`, an
 * optional peer dependency the package never requires). The fence lives in
 * the object's metadata (`tinystore-fence`, 40 digits). A guarded save
 * reads the object's generation and fence, rejects with StaleError when
 * the fence is larger, and otherwise saves in one request on that
 * generation (`ifGenerationMatch`, 0 for a new object); a writer that came
 * in between (412) makes it read and decide again. An object written
 * without the guard has no fence and is taken over. The resource is
 * `"BUCKET/NAME"`. Given the Lease itself rather than its fence, a
 * refusal is also told to its store.
 *
 * Rejects with StaleError (nothing written); CorruptError for a fence
 * edited by hand; LimitError after MAX_TRIES saves lost to other writers in
 * a row; InvalidError, before any call, for a value that is not a File, an
 * empty bucket or object name, a resource the core refuses, a body that is
 * not a string or a Uint8Array, metadata whose values are not strings or
 * whose keys are the guard's own (in any case or spelling), a fence that is
 * not a bigint from 0 to 2^128-1. The client's own errors are rejected
 * with as it threw them (its `ApiError`, whose `code` is the HTTP status;
 * gaxios's error for a refused connection). When a save's attempt got no
 * answer (a dropped connection, a timeout, a 5xx or 408) and the client's
 * retry finds a larger fence, the call rejects with `unavailable` (the
 * unanswered attempt may have been written; whether it was is unknown),
 * not StaleError, and tells the store nothing: the guard wraps, once, the
 * `retryOptions.retryableErrorFn` of the file's Storage (it answers as
 * yours does). A delete cannot be guarded.
 */
export declare namespace guard.gcs {
  /** The metadata key holding the object's fence: "tinystore-fence". */
  export const METADATA_KEY: string
  /** How many conditional saves a guarded save makes in all: 5. */
  export const MAX_TRIES: number
  /** Saves `data` (a string, as UTF-8, or a Uint8Array) to `file` with `fence`. */
  export function save(file: GuardGcsFile, data: string | Uint8Array, fence: bigint | Lease, options?: GuardGcsSaveOptions): Promise<void>
}

/**
 * A `BlockBlobClient` of `@azure/storage-blob`
 * (`containerClient.getBlockBlobClient(name)`), as the Azure guard uses it:
 * `getProperties` for the ETag and the fence, `upload` on a condition.
 */
export interface GuardAzureBlockBlob {
  readonly containerName: string
  readonly name: string
  getProperties(options?: any): Promise<any>
  upload(body: any, contentLength: number, options?: any): Promise<any>
}

/**
 * The guard on Azure Blob Storage (docs/guards.md, "Google Cloud Storage
 * and Azure Blob Storage"), on your own `BlockBlobClient`
 * (`@azure/storage-blob`, an optional peer dependency the package never
 * requires). The fence lives in the blob's metadata (`tinystore_fence`, 40
 * digits, read back ignoring case). A guarded upload reads the blob's ETag
 * and fence, rejects with StaleError when the fence is larger, and
 * otherwise uploads (one Put Blob) with `ifMatch` on that ETag (`ifNoneMatch:
 * '*'` for a new blob); a writer that came in between (412 ConditionNotMet,
 * 409 BlobAlreadyExists) makes it read and decide again. A blob written
 * without the guard is taken over. The resource is `"CONTAINER/NAME"`.
 * Given the Lease itself rather than its fence, a refusal is also told to
 * its store.
 *
 * Rejects with StaleError (nothing written); CorruptError for a fence
 * edited by hand; LimitError after MAX_TRIES uploads lost in a row;
 * InvalidError, before any call, for a value that is not a
 * BlockBlobClient, an empty container or blob name, a resource the core
 * refuses, a body that is not a string or a Uint8Array, metadata whose
 * values are not strings or whose keys are the guard's own, your own
 * `conditions`, a fence that is not a bigint from 0 to 2^128-1. The
 * client's own errors are rejected with as it threw them (its `RestError`,
 * with `statusCode` and `code`). When an upload's attempt got no answer
 * (a dropped connection, a timeout, a 5xx or 408) and the client's retry
 * finds a larger fence, the call rejects with `unavailable` (the
 * unanswered attempt may have been written; whether it was is unknown),
 * not StaleError, and tells the store nothing: the guard adds, once, a
 * policy of its own to the client's pipeline, below its retry policy. A
 * delete cannot be guarded.
 */
export declare namespace guard.azure {
  /** The metadata key holding the blob's fence: "tinystore_fence". */
  export const METADATA_KEY: string
  /** How many conditional uploads a guarded upload makes in all: 5. */
  export const MAX_TRIES: number
  /**
   * Uploads `body` (a string, as UTF-8, or a Uint8Array) to `blob` with
   * `fence` and upload's other `options` (`blobHTTPHeaders`, `metadata`,
   * `tags`, `tier`, ...; not `conditions`: the guard's); resolves to the
   * SDK's upload response.
   */
  export function upload(blob: GuardAzureBlockBlob, body: string | Uint8Array, fence: bigint | Lease, options?: Record<string, any>): Promise<any>
}

/** A request as the HTTP helpers read it (node:http's IncomingMessage, Express's Request). */
export interface FencedRequest {
  readonly headers: Record<string, string | string[] | undefined>
  /** The request's fence, set by `http.middleware()` (undefined: it carried none). */
  tinystoreFence?: bigint
}

/** A response as the HTTP helpers answer it (node:http's ServerResponse, Express's Response). */
export interface FencedResponse {
  statusCode: number
  readonly headersSent: boolean
  setHeader(name: string, value: string): unknown
  end(body?: string): unknown
}

/** The header that carries `fence`: `{ 'Tinystore-Fence': '<decimal>' }` (InvalidError for a bad fence). */
export declare function fenceHeaders(fence: bigint): Record<string, string>

/**
 * Fences over HTTP (docs/guards.md). A request carries its fence in
 * `Tinystore-Fence` (a decimal); a service reads it, passes it to its
 * handler, and answers a StaleError with 409 Conflict and the largest fence
 * in `Tinystore-Fence-Largest`. The check itself stays a guard in the
 * handler's own transaction: a check made before the handler runs would let
 * a request that pauses in between through.
 */
export declare namespace http {
  /** "Tinystore-Fence". */
  const FENCE_HEADER: string
  /** "Tinystore-Fence-Largest". */
  const LARGEST_HEADER: string
  /** 409, the status of a stale request. */
  const CONFLICT: number
  /** 400, the status of a malformed fence header. */
  const BAD_REQUEST: number
  /** The header that carries `fence`. */
  function fenceHeaders(fence: bigint): Record<string, string>
  /**
   * `globalThis.fetch` with `fence` in the request's Tinystore-Fence
   * header. Each request is a guard's check seen from the client (an
   * OpenTelemetry span, backend `http`): a 409 carrying
   * Tinystore-Fence-Largest is a refusal, which, given the Lease itself, is
   * also told to its store. The response is given as it came.
   */
  function fetch(input: string | URL | Request, fence: bigint | Lease, init?: RequestInit): Promise<Response>
  /**
   * The fence a request carries: undefined without the header; throws
   * InvalidError naming the header when it is malformed (a sign, spaces,
   * hex, 2^128, or the header sent twice).
   */
  function readFence(req: Pick<FencedRequest, 'headers'>): bigint | undefined
  /** 409 for a StaleError, 400 for an InvalidError, else undefined. */
  function statusOf(err: unknown): number | undefined
  /**
   * A Connect/Express-style middleware: sets `req.tinystoreFence` and calls
   * `next()`, or answers 400 with the parser's message (text/plain) when the
   * header is malformed.
   */
  function middleware(): (req: FencedRequest, res: FencedResponse, next: (err?: unknown) => void) => void
  /**
   * A Connect/Express-style error handler: a StaleError becomes 409 with
   * Tinystore-Fence-Largest, an InvalidError 400 (the message as the
   * body); any other error goes on to `next(err)`.
   */
  function errorHandler(): (err: unknown, req: FencedRequest, res: FencedResponse, next: (err?: unknown) => void) => void
  /**
   * A node:http request listener: the middleware, then `handler` (sync or
   * async), whose errors the error handler answers; any other error is a
   * bare 500, handed to `onError`.
   */
  function fenced(
    handler: (req: FencedRequest & import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown,
    onError?: (err: unknown) => void,
  ): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void
}

export {}
