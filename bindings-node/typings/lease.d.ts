// The addon's typings of src/lease.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

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
