// The addon's typings of src/store.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeElection } from './election'
import type { NativeLocks, NativeSemaphore } from './group'
import type { NativeRwLocks } from './rw_locks'
import type { NativeStatus } from './status'

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
 * Connects to a store served by `tinystore serve` at `address`
 * (`unix:PATH`, `tcp://HOST:PORT`, a socket's path or a served directory),
 * with the token a TCP server asks for.
 */
export declare function connectStore(address: string, token?: string | undefined | null): Promise<NativeStore>

/** Opens the store directory `dir`, making it if missing. */
export declare function openStore(dir: string): Promise<NativeStore>
