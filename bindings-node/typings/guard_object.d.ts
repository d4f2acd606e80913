// The addon's typings of src/guard_object.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeGuardObserved, NativeGuardStep } from './guard_step'

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
