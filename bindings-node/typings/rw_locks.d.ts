// The addon's typings of src/rw_locks.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeLeaseAcquiring, NativePermitAcquiring } from './acquiring'
import type { NativeLease, NativePermit } from './lease'
import type { NativeWatcher } from './watch'

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
