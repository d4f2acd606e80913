// The addon's typings of src/election.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

/**
 * A change an observer gives: `done` once it ended, else `leader`
 * (missing when nobody leads).
 */
export interface NativeChange {
  done: boolean
  leader?: NativeLeader
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
