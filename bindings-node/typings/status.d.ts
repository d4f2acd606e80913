// The addon's typings of src/status.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

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
