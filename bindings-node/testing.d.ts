// The typings of `tinystore/testing`, the test kit: a store whose time the
// test controls, so that a test of the user's own code can make a holder's
// lease run out on purpose, with no sleep. Times are in milliseconds. Kept
// by hand beside lib/testing.js; the tests compile against them.

import type { Key, Lease, Leadership, Permit, Store } from './index'

/** What the kit can end: a held lease, permit or leadership. */
export type Expirable = Lease | Permit | Leadership

/**
 * A test store: a new store in a temporary directory whose time the test
 * controls, embedded or served by this process. `close()` (or `await
 * using`) stops it and removes the directory; `testStore(t)` has the test
 * runner do it at the test's end.
 */
export declare class TestStore {
  private constructor()
  /** An embedded test store, owned by this process. */
  static open(): Promise<TestStore>
  /**
   * A served test store: served on a Unix socket by this process (as
   * `tinystore serve --testing` would), `store` connected to it, so a loss
   * travels the wire as in production; other processes connect to `address`.
   */
  static served(): Promise<TestStore>
  /** The store: a normal tinystore Store. */
  readonly store: Store
  /** Where other processes connect (`unix:PATH`) when served, else null. */
  readonly address: string | null
  /** The store's directory, removed on close. */
  readonly dir: string
  /** Moves the store's time `ms` milliseconds forward; see `advance`. */
  advance(ms: number): Promise<void>
  /** Ends `held` as if its holder had paused past its TTL; see `expire`. */
  expire(held: Expirable): Promise<void>
  /** Ends every lease held on `key` of the groups called `name`; see `expireKey`. */
  expireKey(name: string, key: Key): Promise<number>
  /**
   * Closes the store (holders learn they lost their leases, waiters fail
   * with ClosedError), stops its server when served, removes its
   * directory. Idempotent.
   */
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/**
 * Moves the time of `store` forward `ms` milliseconds at once: every lease
 * whose TTL runs out within ends as a lease that ran out does (its holder's
 * `signal` aborts with a LeaseLostError, the next waiter is granted with a
 * larger fence), renewing ones too. Waits (`wait`) keep the caller's time.
 * Rejects with InvalidError unless `store` is a test store (made by the
 * kit, or connected to `tinystore serve --testing`).
 */
export declare function advance(store: Store, ms: number): Promise<void>

/**
 * Ends `held` as if its holder had paused past its TTL; resolves once its
 * `signal` has aborted (with a LeaseLostError, code `lease_lost`) and
 * `held.held` is false. The next waiter is granted with a larger fence.
 * Rejects with LeaseLostError when it was no longer held, InvalidError
 * unless its store is a test store.
 */
export declare function expire(held: Expirable): Promise<void>

/**
 * Ends, as `expire` does, every lease held on `key` of the groups called
 * `name` (its lock group, semaphore and read-write locks; not an
 * election's); resolves to how many. Their `signal`s abort as the loss
 * reaches them. Rejects with InvalidError for a bad name or key, or unless
 * `store` is a test store.
 */
export declare function expireKey(store: Store, name: string, key: Key): Promise<number>

/** Options of `testStore`. */
export interface TestStoreOptions {
  /** A served test store (`TestStore.served()`) in place of an embedded one. */
  served?: boolean
}

/** A test's context that can run a cleanup at the test's end: node:test's `t`, vitest's test context. */
export type TestContext =
  | { after(fn: () => Promise<void>): unknown }
  | { onTestFinished(fn: () => Promise<void>): unknown }

/**
 * A TestStore for one test, closed (store, server, directory) when the
 * test ends, passed or failed, by the test runner: node:test's `t.after`
 * (`testStore(t)`); vitest's `onTestFinished` (`testStore(context)`, or
 * `testStore()` with `globals: true`); under jest, `testStore()`, closed by
 * an `afterEach` that loading `tinystore/testing` at the top of the test
 * file registered. Rejects with InvalidError, opening nothing, when it
 * finds no way to close the kit.
 */
export declare function testStore(context?: TestContext, options?: TestStoreOptions): Promise<TestStore>
export declare function testStore(options: TestStoreOptions): Promise<TestStore>
