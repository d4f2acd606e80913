// The addon's typings of src/several.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeLease } from './lease'

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
