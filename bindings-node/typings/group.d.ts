// The addon's typings of src/group.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeLeaseAcquiring, NativePermitAcquiring } from './acquiring'
import type { NativeLease, NativePermit } from './lease'
import type { NativeLeasesAcquiring } from './several'
import type { NativeWatcher } from './watch'

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
