// The addon's typings of src/acquiring.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeLease, NativePermit } from './lease'

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
