// The addon's typings, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

/**
 * A change an observer gives: `done` once it ended, else `leader`
 * (missing when nobody leads).
 */
export interface NativeChange {
  done: boolean
  leader?: NativeLeader
}

/** One code of the core's table. */
export interface NativeCode {
  /** The code, as on the wire: `lease_lost`. */
  code: string
  /** The class of its errors: `LeaseLostError`. */
  className: string
}

/** A driver's or an SDK's error as it reports itself; core classifies it. */
export interface NativeDriverFailure {
  /** pg's `code` (a SQLSTATE such as `40001`). */
  sqlstate?: string
  /** SQLite's numeric result code, when the driver gives one. */
  sqliteCode?: number
  /** An S3 answer's HTTP status. */
  httpStatus?: number
  /**
   * A named code: better-sqlite3's (`SQLITE_BUSY`), the S3 service's
   * (`AccessDenied`), a socket's (`ECONNREFUSED`), or `connection` for a
   * connection lost without one.
   */
  errorCode?: string
  /** The driver's own message. */
  message: string
}

/**
 * One guarded DynamoDB transaction of `items` items of the caller's and
 * the register's.
 */
export declare class NativeDynamoCheck {
  /**
   * A guard of `fence` for `resource` in register table `table`, with
   * `items` items of the caller's in the same transaction.
   */
  constructor(table: string, resource: string, fence: bigint, items: number)
  /**
   * The first step (`transact`), or the end for bad input (`invalid`
   * before any call: a bad resource, an empty table name, over 99 items).
   */
  start(): NativeDynamoStep
  /** After the transaction was written. */
  written(): NativeDynamoStep
  /**
   * After the transaction was cancelled: each item's reason code in
   * order (`"None"` for an item that was fine; the register's last),
   * the register item's fence as returned (`null` when it was not; a
   * value that is not a string described), and the exception.
   */
  cancelled(codes: Array<string>, recorded: string | undefined | null, failure: NativeDriverFailure): NativeDynamoStep
  /**
   * After the register item was read: its fence (`null`: no item, or no
   * `fence`).
   */
  read(recorded?: string | undefined | null): NativeDynamoStep
  /** After a call failed otherwise, as the client reported. */
  failed(failure: NativeDriverFailure): NativeDynamoStep
}

/**
 * The DynamoDB guard's names and bound, from the core
 * (`tinystore::guard::dynamo_check`).
 */
export interface NativeDynamoGuardConstants {
  /** The register table unless the caller names another: `tinystore_fences`. */
  registerTable: string
  /** The most items of the caller's in one guarded transaction: 99. */
  maxItems: number
}

/** What lib/dynamodb.js does next, or the protocol's end. */
export interface NativeDynamoStep {
  /**
   * `transact` (the caller's items, then the register's put), `read`
   * (the register item, consistently) or `done`.
   */
  kind: string
  /** The register table of `transact` and `read`. */
  table?: string
  /** The register item's key (`resource`) of `transact` and `read`. */
  resource?: string
  /**
   * The register item's `fence` and the condition's `:fence` (40
   * digits) of `transact`.
   */
  fence?: string
  /** The condition's `:digits` (40, a number) of `transact`. */
  digits?: number
  /** The register put's `ConditionExpression` of `transact`. */
  condition?: string
  /**
   * The end of `done`: `accepted`, `refused` (the guard's own error) or
   * `driver` (the driver's error, classified).
   */
  verdict?: string
  /** The error of a `refused` or `driver` verdict. */
  error?: NativeError
}

/** The election called `name` of a store. */
export declare class NativeElection {
  /** The election's name. */
  get name(): string
  /**
   * Starts campaigning, first come first served, with `value`; the core
   * checks the name, value and options at the first poll.
   */
  campaigning(value: string, options?: Record<string, number | boolean | string> | undefined | null): NativeLeadershipAcquiring
  /**
   * The leader now, or `null`; at once when it can tell, else as a
   * promise.
   */
  leader(): NativeLeader | undefined | null | Promise<NativeLeader | undefined | null>
  /**
   * Starts observing now (an embedded store's observer is subscribed on
   * return).
   */
  observe(): NativeObserver
}

/**
 * A core error as a value: its code, its message, and for `stale` the
 * resource and fences it carries.
 */
export interface NativeError {
  code: string
  message: string
  stale?: NativeStale
}

/**
 * A request's fence header as read: `error` when malformed, else the
 * fence (`null`: no header).
 */
export interface NativeFenceHeader {
  error?: NativeError
  fence?: bigint
}

/** What the JS layer observed of the step it took. */
export interface NativeGuardObserved {
  /** `listed`, `written`, `deleted`, `got` or `failed`. */
  kind: string
  /** The keys a `list` found (every page). */
  keys?: Array<string>
  /** The metadata of the object a `get` found. */
  metadata?: Record<string, string>
  /** The driver's error, described. */
  failure?: NativeDriverFailure
}

/** What the JS layer does next, or the protocol's end. */
export interface NativeGuardStep {
  /** `list`, `put`, `delete`, `get`, `eval` or `done`. */
  kind: string
  /** What `list` lists. */
  prefix?: string
  /** The object `put`, `delete` and `get` act on. */
  key?: string
  /** The metadata `put` writes. */
  metadata?: Record<string, string>
  /** The Lua text `eval` runs (its SHA1 is what `EVALSHA` names). */
  script?: string
  /** The keys `eval` passes (`KEYS`). */
  keys?: Array<string>
  /** The arguments `eval` passes (`ARGV`). */
  args?: Array<string>
  /**
   * The end of `done`: `accepted`, `refused` (the guard's own error) or
   * `driver` (the driver's error, classified).
   */
  verdict?: string
  /** The error of a `refused` or `driver` verdict. */
  error?: NativeError
}

/** One held lease. */
export interface NativeHeldStatus {
  /** The group's name. */
  name: string
  /** The key. */
  key: string
  /** The fence; missing for a semaphore permit and a read lease. */
  fence?: bigint
  /** The lease's TTL in milliseconds. */
  ttl: number
  /** Milliseconds until it runs out unless renewed. */
  left: number
  /** Whether the store itself renews it. */
  renewing: boolean
  /** For an election's leadership: the leader's value. */
  leader?: string
  /** The kind of group: `lock`, `semaphore`, `rwlock` or `election`. */
  kind: string
  /** For a read-write lock's lease: `read` or `write`. */
  mode?: string
  /**
   * The places of its key it takes: a weighted permit's weight, all of
   * a read-write lock's for a write lease, else 1.
   */
  weight: number
  /**
   * What its holder said about itself when it acquired (by default its
   * `HOST:PID`); missing when it said nothing.
   */
  data?: string
}

/**
 * Fences over HTTP: the header names and statuses, from the core
 * (`tinystore::guard::http`).
 */
export interface NativeHttpGuardConstants {
  /** The request header that carries a fence: `Tinystore-Fence`. */
  fenceHeader: string
  /** The 409's header with the largest fence: `Tinystore-Fence-Largest`. */
  largestHeader: string
  /** The status of a stale request: 409. */
  conflict: number
  /** The status of a malformed fence header: 400. */
  badRequest: number
}

/** An election's leader: its value and its term. */
export interface NativeLeader {
  value: string
  fence: bigint
}

/**
 * Leading an election: a lease with the leader's value; its fence is the
 * term. Dropping it resigns.
 */
export declare class NativeLeadership {
  /** The value this leader campaigned with. */
  get value(): string
  /** The term, every digit kept. */
  get fence(): bigint
  /** The group's name. */
  get name(): string
  /** The TTL in milliseconds. */
  get ttl(): number
  /** Whether it is still held. */
  get held(): boolean
  /**
   * Extends it by its TTL; `lease_lost` when it already ran out.
   * At once when it can, else as a promise.
   */
  renew(): undefined | Promise<undefined>
  /**
   * Releases it (resigns, for a leadership); idempotent; when it
   * was lost first, `closed` (its
   * store closed) or `lease_lost` (it ran out, its connection broke).
   * At once when it can, else as a promise.
   */
  resign(): undefined | Promise<undefined>
  /**
   * Releases it as a hold's end, after a body that returned
   * (`bodyOk`) or threw (`cancelledByLoss`: only the abort of
   * its signal that the loss caused): the core's rule of what a
   * hold adds to its body's result. After a body's own error,
   * nothing (its error wins); else `closed` when its store
   * closed before the body ended, `lease_lost` when it ran out
   * or its connection broke. At once when it can, else as a
   * promise.
   */
  endHold(bodyOk: boolean, cancelledByLoss: boolean): undefined | Promise<undefined>
  /**
   * Resolves when it is lost (also after a release) with the
   * reason, the core error as JSON (as thrown errors carry it).
   */
  lost(): Promise<string>
  /**
   * The kit's `expire`: ends it as if its holder had paused past
   * its TTL; resolves once its loss was signalled.
   */
  testingExpire(): Promise<void>
}

/** An election's campaign under way. */
export declare class NativeLeadershipAcquiring {
  /**
   * The outcome, taken once: the holding itself when it is
   * granted at once, else a promise of it; `null` when it was
   * given up (or taken already). Fails with the acquire's error.
   */
  outcome(): NativeLeadership | undefined | null | Promise<NativeLeadership | undefined | null>
  /**
   * Gives the acquire up: idempotent; a lease granted as it gave
   * up is released. Nothing once the outcome was taken.
   */
  giveUp(): void
}

/** An exclusive hold on one key, with its fence. */
export declare class NativeLease {
  /** The fence, every digit kept. */
  get fence(): bigint
  /**
   * Tells its store that a guard refused a write under this lease to
   * `resource` as stale, for the store to count per group; never
   * blocks nor fails. The guards call it when given the lease.
   */
  reportRefused(resource: string): void
  /** The group's name. */
  get name(): string
  /** The TTL in milliseconds. */
  get ttl(): number
  /** Whether it is still held. */
  get held(): boolean
  /**
   * Extends it by its TTL; `lease_lost` when it already ran out.
   * At once when it can, else as a promise.
   */
  renew(): undefined | Promise<undefined>
  /**
   * Releases it (resigns, for a leadership); idempotent; when it
   * was lost first, `closed` (its
   * store closed) or `lease_lost` (it ran out, its connection broke).
   * At once when it can, else as a promise.
   */
  release(): undefined | Promise<undefined>
  /**
   * Releases it as a hold's end, after a body that returned
   * (`bodyOk`) or threw (`cancelledByLoss`: only the abort of
   * its signal that the loss caused): the core's rule of what a
   * hold adds to its body's result. After a body's own error,
   * nothing (its error wins); else `closed` when its store
   * closed before the body ended, `lease_lost` when it ran out
   * or its connection broke. At once when it can, else as a
   * promise.
   */
  endHold(bodyOk: boolean, cancelledByLoss: boolean): undefined | Promise<undefined>
  /**
   * Resolves when it is lost (also after a release) with the
   * reason, the core error as JSON (as thrown errors carry it).
   */
  lost(): Promise<string>
  /** The key held, as text. */
  get key(): string
  /**
   * The kit's `expire`: ends it as if its holder had paused past
   * its TTL; resolves once its loss was signalled.
   */
  testingExpire(): Promise<void>
}

/** A lock's (or a read-write lock's write) acquire under way. */
export declare class NativeLeaseAcquiring {
  /**
   * The outcome, taken once: the holding itself when it is
   * granted at once, else a promise of it; `null` when it was
   * given up (or taken already). Fails with the acquire's error.
   */
  outcome(): NativeLease | undefined | null | Promise<NativeLease | undefined | null>
  /**
   * Gives the acquire up: idempotent; a lease granted as it gave
   * up is released. Nothing once the outcome was taken.
   */
  giveUp(): void
}

/** A lock group's acquire of several keys under way. */
export declare class NativeLeasesAcquiring {
  /**
   * The outcome, taken once: the holding itself when it is
   * granted at once, else a promise of it; `null` when it was
   * given up (or taken already). Fails with the acquire's error.
   */
  outcome(): Array<NativeLease> | undefined | null | Promise<Array<NativeLease> | undefined | null>
  /**
   * Gives the acquire up: idempotent; a lease granted as it gave
   * up is released. Nothing once the outcome was taken.
   */
  giveUp(): void
}

/** A group of exclusive locks, one per key. */
export declare class NativeLocks {
  /** The group's name. */
  get name(): string
  /**
   * Starts watching `key` now (an embedded store's watch is
   * subscribed on return); the core checks the key at the first
   * `next`.
   */
  watch(key: string): NativeWatcher
  /** Starts watching every key of the group now. */
  watchAll(): NativeWatcher
  /**
   * Starts waiting first come first served for `key`; the core
   * checks the name, key and options at the first poll.
   */
  acquiring(key: string, options?: Record<string, number | boolean | string> | undefined | null): NativeLeaseAcquiring
  /**
   * Holds `key` if it is free now, else `null`; at once when it
   * can tell, else as a promise.
   */
  tryAcquire(key: string, options?: Record<string, number | boolean | string> | undefined | null): NativeLease | undefined | null | Promise<NativeLease | undefined | null>
  /**
   * Starts waiting for every key of `keys` (a lease each, in the order
   * of `keys`) or none; the core checks the keys and options at the
   * first poll, and a give-up leaves none held.
   */
  acquiringAll(keys: Array<string>, options?: Record<string, number | boolean | string> | undefined | null): NativeLeasesAcquiring
}

/**
 * The object-storage guard's names and bound, from the core
 * (`tinystore::guard::object`).
 */
export interface NativeObjectGuardConstants {
  /** The metadata key that holds an object's fence: `tinystore-fence`. */
  metadataKey: string
  /** The metadata key of a guarded delete's tombstone: `tinystore-deleted`. */
  tombstoneKey: string
  /**
   * How many times a guarded read lists in all when the object it
   * lists is deleted before its get.
   */
  maxTries: number
}

/** One guarded read of a bucket's key: the largest fence's object. */
export declare class NativeObjectRead {
  /** A read of `bucket`/`key`. */
  constructor(bucket: string, key: string)
  /** The first step (a listing), or the end for a bad bucket or key. */
  start(): NativeGuardStep
  /** The step after `observed`, the answer to the step last given. */
  observe(observed: NativeGuardObserved): NativeGuardStep
  /**
   * After an accepted end: the fence of the object the last get read,
   * or `null` when there is none (none listed, or a tombstone).
   */
  found(): bigint | null
}

/** One guarded write of a fence to a bucket's key. */
export declare class NativeObjectWrite {
  /**
   * A guarded put of `fence` to `bucket`/`key` with the caller's own
   * `metadata`, or with `tombstone` a guarded delete (an empty
   * tombstone that keeps the fence).
   */
  constructor(bucket: string, key: string, fence: bigint, metadata: Record<string, string> | undefined | null, tombstone: boolean)
  /** The first step (a listing), or the end for bad input. */
  start(): NativeGuardStep
  /** The step after `observed`, the answer to the step last given. */
  observe(observed: NativeGuardObserved): NativeGuardStep
}

/** Every change of an election's leader, in order. */
export declare class NativeObserver {
  /**
   * The next change: at once when it is there, else as a promise;
   * `done` once it ended. Fails once with why it ended (`closed`,
   * `limit`).
   */
  next(): NativeChange | Promise<NativeChange>
  /**
   * Stops observing: a `next` under way and every later one give
   * `done`. Idempotent.
   */
  close(): void
}

/** One of a semaphore key's places; it has no fence. */
export declare class NativePermit {
  /** The group's name. */
  get name(): string
  /** The TTL in milliseconds. */
  get ttl(): number
  /** Whether it is still held. */
  get held(): boolean
  /**
   * Extends it by its TTL; `lease_lost` when it already ran out.
   * At once when it can, else as a promise.
   */
  renew(): undefined | Promise<undefined>
  /**
   * Releases it (resigns, for a leadership); idempotent; when it
   * was lost first, `closed` (its
   * store closed) or `lease_lost` (it ran out, its connection broke).
   * At once when it can, else as a promise.
   */
  release(): undefined | Promise<undefined>
  /**
   * Releases it as a hold's end, after a body that returned
   * (`bodyOk`) or threw (`cancelledByLoss`: only the abort of
   * its signal that the loss caused): the core's rule of what a
   * hold adds to its body's result. After a body's own error,
   * nothing (its error wins); else `closed` when its store
   * closed before the body ended, `lease_lost` when it ran out
   * or its connection broke. At once when it can, else as a
   * promise.
   */
  endHold(bodyOk: boolean, cancelledByLoss: boolean): undefined | Promise<undefined>
  /**
   * Resolves when it is lost (also after a release) with the
   * reason, the core error as JSON (as thrown errors carry it).
   */
  lost(): Promise<string>
  /** The key held, as text. */
  get key(): string
  /**
   * The kit's `expire`: ends it as if its holder had paused past
   * its TTL; resolves once its loss was signalled.
   */
  testingExpire(): Promise<void>
}

/** A semaphore's (or a read-write lock's read) acquire under way. */
export declare class NativePermitAcquiring {
  /**
   * The outcome, taken once: the holding itself when it is
   * granted at once, else a promise of it; `null` when it was
   * given up (or taken already). Fails with the acquire's error.
   */
  outcome(): NativePermit | undefined | null | Promise<NativePermit | undefined | null>
  /**
   * Gives the acquire up: idempotent; a lease granted as it gave
   * up is released. Nothing once the outcome was taken.
   */
  giveUp(): void
}

/** One guarded write of a fence to a Redis key. */
export declare class NativeRedisCheck {
  /** `SET key value`, guarded by `fence`. */
  static set(key: string, value: string, fence: bigint): NativeRedisCheck
  /** `DEL key`, guarded by `fence`; the fence stays recorded. */
  static del(key: string, fence: bigint): NativeRedisCheck
  /**
   * `HSET key field value ...` of `fields`, each `[field, value]`,
   * guarded by `fence`.
   */
  static hset(key: string, fields: Array<Array<string>>, fence: bigint): NativeRedisCheck
  /**
   * The caller's own Lua `body`, run behind the check with `KEYS` the
   * data key then `keys` and `ARGV` `args`, guarded by `fence`.
   */
  static script(key: string, body: string, keys: Array<string>, args: Array<string>, fence: bigint): NativeRedisCheck
  /** The first step (`eval`), or the end for bad input. */
  start(): NativeGuardStep
  /** The end, after the script answered `reply` (each element as text). */
  reply(reply: Array<string>): NativeGuardStep
  /** The end, after the call failed in the client, as it reported. */
  failed(failure: NativeDriverFailure): NativeGuardStep
}

/** A group's late writes refused by guards. */
export interface NativeRefusedStatus {
  /** The group's name (`other` past the first 1,000 groups counted). */
  name: string
  /** The kind of group, as in a held lease's. */
  kind: string
  /** How many writes its leases' guards refused as stale. */
  refused: number
}

/**
 * A group of read-write locks, one per key: readers share a key, a
 * writer holds it alone; first come first served.
 */
export declare class NativeRwLocks {
  /** The group's name. */
  get name(): string
  /**
   * Starts watching `key` now (an embedded store's watch is
   * subscribed on return); the core checks the key at the first
   * `next`.
   */
  watch(key: string): NativeWatcher
  /** Starts watching every key of the group now. */
  watchAll(): NativeWatcher
  /**
   * Starts waiting first come first served to read `key`; the core
   * checks the name, key and options at the first poll.
   */
  acquiringRead(key: string, options?: Record<string, number | boolean | string> | undefined | null): NativePermitAcquiring
  /** Starts waiting first come first served to write `key`. */
  acquiringWrite(key: string, options?: Record<string, number | boolean | string> | undefined | null): NativeLeaseAcquiring
  /**
   * Reads `key` if no writer holds it or waits for it now, else `null`;
   * at once when it can tell, else as a promise.
   */
  tryAcquireRead(key: string, options?: Record<string, number | boolean | string> | undefined | null): NativePermit | undefined | null | Promise<NativePermit | undefined | null>
  /**
   * Writes `key` if nobody holds it or waits for it now, else `null`;
   * at once when it can tell, else as a promise.
   */
  tryAcquireWrite(key: string, options?: Record<string, number | boolean | string> | undefined | null): NativeLease | undefined | null | Promise<NativeLease | undefined | null>
}

/** A group of semaphores: up to `limit` holders per key at once. */
export declare class NativeSemaphore {
  /** The group's name. */
  get name(): string
  /**
   * Starts watching `key` now (an embedded store's watch is
   * subscribed on return); the core checks the key at the first
   * `next`.
   */
  watch(key: string): NativeWatcher
  /** Starts watching every key of the group now. */
  watchAll(): NativeWatcher
  /**
   * Starts waiting first come first served for `key`; the core
   * checks the name, key and options at the first poll.
   */
  acquiring(key: string, options?: Record<string, number | boolean | string> | undefined | null): NativePermitAcquiring
  /**
   * Holds `key` if it is free now, else `null`; at once when it
   * can tell, else as a promise.
   */
  tryAcquire(key: string, options?: Record<string, number | boolean | string> | undefined | null): NativePermit | undefined | null | Promise<NativePermit | undefined | null>
}

/** A store served on its Unix socket by this process until `close`. */
export declare class NativeServer {
  /** The path of the socket it serves on. */
  get socket(): string
  /**
   * Stops serving cleanly: leases released, waiters told `closed`, the
   * socket removed. Idempotent.
   */
  close(): Promise<void>
}

/** What a `stale` error is about. */
export interface NativeStale {
  resource: string
  fence: bigint
  largest: bigint
}

/**
 * The state of a store: its epoch, the fences given, the leases held and
 * the keys with callers waiting, one page of each (by name, then key).
 */
export interface NativeStatus {
  /** The store's epoch: the high 64 bits of its fences. */
  epoch: bigint
  /** How many fences the store gave since it opened. */
  fencesGiven: number
  /** The last fence given, if any. */
  lastFence?: bigint
  /** Milliseconds of grace left after an unclean stop, if any. */
  graceLeft?: number
  /** The leases held now (this page of them). */
  held: Array<NativeHeldStatus>
  /** The keys with callers waiting (this page of them). */
  waiting: Array<NativeWaitingStatus>
  /** How many leases are held in all. */
  heldTotal: number
  /** How many keys have callers waiting in all. */
  waitingTotal: number
  /** Whether more held leases or keys with waiters come after this page. */
  more: boolean
  /** Whether it is a test store, whose time the test kit controls. */
  testing: boolean
  /**
   * The keys whose first caller has waited longest, longest first (at
   * most 10, whatever the page; empty on etcd).
   */
  longestWaits: Array<NativeWaitingStatus>
  /**
   * The late writes guards refused, per group, as the leases' holders
   * told the store since it opened (empty on etcd), by name then kind.
   */
  lateWritesRefused: Array<NativeRefusedStatus>
}

/** An open store, owned by this process or reached over a connection. */
export declare class NativeStore {
  /** The group of exclusive locks called `name`, with its options. */
  locks(name: string, options?: Record<string, number | boolean | string> | undefined | null): NativeLocks
  /** The group of semaphores called `name`, `limit` holders per key. */
  semaphore(name: string, limit: number, options?: Record<string, number | boolean | string> | undefined | null): NativeSemaphore
  /** The group of read-write locks called `name`, with its options. */
  rwLocks(name: string, options?: Record<string, number | boolean | string> | undefined | null): NativeRwLocks
  /** The election called `name`, with its options. */
  election(name: string, options?: Record<string, number | boolean | string> | undefined | null): NativeElection
  /**
   * The store's status: the `limit` held leases and keys with waiters
   * (default 1,000) after the first `offset` of each; the core checks
   * the limit.
   */
  status(offset?: number | undefined | null, limit?: number | undefined | null): Promise<NativeStatus>
  /** Releases every lease, fails every waiter with `closed`. Idempotent. */
  close(): Promise<void>
  /** The kit's `advance` on this store: its time `ms` milliseconds on. */
  testingAdvance(ms: number): Promise<void>
  /** The kit's `expire_key` on this store: how many leases it ended. */
  testingExpireKey(name: string, key: string): Promise<number>
}

/**
 * A test store: a new store in a temporary directory whose time the test
 * controls, embedded or served by this process, until `close`.
 */
export declare class NativeTestStore {
  /** The store. */
  get store(): NativeStore
  /** Where other processes connect (`unix:PATH`), when served. */
  get address(): string | null
  /** The store's directory, removed on close. */
  get dir(): string
  /**
   * Closes the store, stops its server when served, and removes the
   * directory. Idempotent.
   */
  close(): Promise<void>
}

/** One guarded put of a fence to one object. */
export declare class NativeVersionedCheck {
  /**
   * A guarded put of `fence` to the object `resource` (`BUCKET/NAME` or
   * `CONTAINER/NAME`) on `store` (`gcs` or `azure`).
   */
  constructor(store: string, resource: string, fence: bigint)
  /** The first step (`read`), or the end for a bad resource. */
  start(): NativeVersionedStep
  /**
   * After a read found the object at `version`, with its fence metadata
   * (`null` when it has none).
   */
  found(version: string, fence?: string | undefined | null): NativeVersionedStep
  /** After a read found no object. */
  absent(): NativeVersionedStep
  /** After the put landed. */
  written(): NativeVersionedStep
  /**
   * After the put's condition failed (412, or Azure's 409
   * `BlobAlreadyExists`).
   */
  conditionFailed(): NativeVersionedStep
  /** After a read or a put failed otherwise, as the client reported. */
  failed(failure: NativeDriverFailure): NativeVersionedStep
}

/** The versioned guard's names and bound, from the core. */
export interface NativeVersionedGuardConstants {
  /** The metadata key of the fence on GCS: `tinystore-fence`. */
  gcsMetadataKey: string
  /** The metadata key of the fence on Azure: `tinystore_fence`. */
  azureMetadataKey: string
  /** How many conditional puts a guarded put makes in all: 5. */
  maxTries: number
}

/** What lib/gcs.js or lib/azure.js does next, or the protocol's end. */
export interface NativeVersionedStep {
  /** `read` (the object's version and metadata), `put` or `done`. */
  kind: string
  /**
   * The version `put` is conditional on (a generation or an ETag, as the
   * read gave it); absent: the object must not exist yet.
   */
  version?: string
  /** The metadata key `put` sets to `fence`. */
  metadataKey?: string
  /** The fence `put` records, 40 digits. */
  fence?: string
  /**
   * The end of `done`: `accepted`, `refused` (the guard's own error) or
   * `driver` (the driver's error, classified).
   */
  verdict?: string
  /** The error of a `refused` or `driver` verdict. */
  error?: NativeError
}

/** A key with callers waiting for it. */
export interface NativeWaitingStatus {
  /** The group's name. */
  name: string
  /** The key. */
  key: string
  /** The kind of group, as in a held lease's. */
  kind: string
  /** How many callers wait. */
  waiters: number
  /** Milliseconds the first caller in line has waited; none on etcd. */
  waited?: number
}

/**
 * One event: `kind` is `granted` (`key`, `fence`, `data`), `released`
 * (`key`, `fence`), `lost` (`key`, `fence`, `cause`), `queue` (`key`,
 * `length`) or `lagged` (`missed`); the fields a kind has not are absent.
 */
export interface NativeWatchEvent {
  kind: string
  key?: string
  fence?: bigint
  data?: string
  cause?: string
  length?: number
  missed?: number
}

/** What a watcher's `next` gives: `done` once it ended, else `event`. */
export interface NativeWatchNext {
  done: boolean
  event?: NativeWatchEvent
}

/** The events of a watched key or group, in the store's order. */
export declare class NativeWatcher {
  /**
   * The next event: at once when it is there, else as a promise; `done`
   * once it ended. Fails once with why it ended (`closed`,
   * `unavailable`, `invalid` for a bad key).
   */
  next(): NativeWatchNext | Promise<NativeWatchNext>
  /**
   * Stops watching: a `next` under way and every later one give `done`.
   * Idempotent.
   */
  close(): void
}

/**
 * Runs the `tinystore` command line on `args` (the program's name first)
 * on this thread until it ends, and gives its exit status. For a process
 * that runs only the command (the package's `bin`): SIGINT and SIGTERM get
 * their default action back first, so that the command's own handling
 * (`serve` stops cleanly) is the only one. Node's handlers, which the
 * command's would call in turn, re-raise the signal and never return.
 */
export declare function cliMain(args: Array<string>): number

/**
 * Connects to a store served by `tinystore serve` at `address`
 * (`unix:PATH`, `tcp://HOST:PORT`, a socket's path or a served directory),
 * with the token a TCP server asks for.
 */
export declare function connectStore(address: string, token?: string | undefined | null): Promise<NativeStore>

/** The core's table of error codes, in its order, with each one's class. */
export declare function errorCodes(): Array<NativeCode>

/**
 * Throws the core error of `code` with `message`, as any call of the
 * addon fails with one: with `stale` given, the core's `stale` error for
 * it (its own message); an unknown code throws `invalid`.
 */
export declare function errorThrow(code: string, message: string, stale?: NativeStale | undefined | null): void

/**
 * The 40-digit zero-padded text of a fence, which orders as text the way
 * fences order as numbers. Refuses a bigint below 0 or above 2^128-1.
 */
export declare function fenceText(fence: bigint): string

/** The DynamoDB guard's names and bound. */
export declare function guardDynamoConstants(): NativeDynamoGuardConstants

/**
 * The class core gives a driver's error: `missing_table`,
 * `serialization`, `permission`, `unavailable` or `other`.
 */
export declare function guardFailureClass(failure: NativeDriverFailure): string

/** The HTTP helpers' header names and statuses. */
export declare function guardHttpConstants(): NativeHttpGuardConstants

/** Reads a request's fence header (`null`: missing) with the core's parser. */
export declare function guardHttpParse(value?: string | undefined | null): NativeFenceHeader

/**
 * Reads the answer to a request that carried `fence`, as a guard's check
 * on `resource` seen from the client (the core's `read_answer`): its
 * status and its `Tinystore-Fence-Largest` header (`null`: absent; sent
 * twice, joined by commas). `null` when accepted; else the `stale` error
 * (a guard in the service refused the write) or the `io` error saying
 * what the answer was.
 */
export declare function guardHttpReadAnswer(status: number, largest: string | undefined | null, resource: string, fence: bigint): NativeError | null

/**
 * The status a service answers for an error of code `code` (409 for
 * `stale`, 400 for `invalid`), or `null` for any other.
 */
export declare function guardHttpStatus(code: string): number | null

/** The header value that carries `fence`. */
export declare function guardHttpValue(fence: bigint): string

/**
 * The statement that makes `tinystore_fences` if it is missing, for
 * `dialect` (`"sqlite"` or `"postgres"`).
 */
export declare function guardMigration(dialect: string): string

/** The object-storage guard's names and bound. */
export declare function guardObjectConstants(): NativeObjectGuardConstants

/** The step after the last statement of `slot` changed `changed` rows. */
export declare function guardSqlChanged(slot: number, changed: number): string

/** The step after the last statement of `slot` failed in the driver. */
export declare function guardSqlFailed(slot: number, failure: NativeDriverFailure): string

/**
 * The step after the last query of `slot` read `row` (its first
 * column as text; absent: no row).
 */
export declare function guardSqlRow(slot: number, row?: string | undefined | null): string

/**
 * Begins the check of `fence` for `resource` in `dialect` (`"sqlite"`:
 * `?` placeholders; `"postgres"`: `$1`) as `slot`; `in_transaction` is
 * whether the handle has a transaction open. Gives its first step.
 */
export declare function guardSqlStart(slot: number, dialect: string, resource: string, fence: bigint, inTransaction: boolean): string

/** The text of the statement numbered `n` in a step. */
export declare function guardSqlText(n: number): string

/**
 * Checks the caller's own metadata names for a guarded put to `resource`
 * on `store` (`gcs` or `azure`): the guard's own key, in any case and
 * spelling, is `invalid`.
 */
export declare function guardVersionedCheckMetadata(store: string, resource: string, keys: Array<string>): void

/** The versioned guard's names and bound. */
export declare function guardVersionedConstants(): NativeVersionedGuardConstants

/** Opens the store directory `dir`, making it if missing. */
export declare function openStore(dir: string): Promise<NativeStore>

/** An embedded test store: this process owns it. */
export declare function openTestStore(): Promise<NativeTestStore>

/**
 * Parses a fence's decimal with the core's strict parser: ASCII digits
 * only, leading zeros allowed, at most 2^128-1.
 */
export declare function parseFence(text: string): bigint

/**
 * Serves the store directory `dir` (made if missing) on its socket so
 * that other processes' `open(dir)` reach it.
 */
export declare function serveStore(dir: string): Promise<NativeServer>

/**
 * A test store served by this process on its Unix socket (as `tinystore
 * serve --testing` would), its store connected to it.
 */
export declare function serveTestStore(): Promise<NativeTestStore>
