'use strict'
// Lease (from a lock, with a fence) and Permit (from a semaphore, without):
// thin wrappers of the addon's, with `signal` and `Symbol.asyncDispose`.
// Holding is what they share with an election's Leadership (election.js).
const { fromNative, settled } = require('./errors')

/** The key of the method that ends a hold; group.js's, not the public API's. */
const endHold = Symbol('endHold')
/** The key of the method that gives the addon's object; the test kit's (testing.js), not the public API's. */
const nativeHeld = Symbol('nativeHeld')

/**
 * What a lease, a permit and a leadership share.
 * @template {import('../native').NativeLease | import('../native').NativePermit | import('../native').NativeLeadership} N
 */
class Holding {
  /** @type {N} */
  #native
  /** @type {AbortController | undefined} */
  #lost

  /** @param {N} native */
  constructor(native) {
    this.#native = native
  }

  /** The group's (or election's) name. */
  get name() {
    return this.#native.name
  }

  /** The TTL in milliseconds. */
  get ttl() {
    return this.#native.ttl
  }

  /** Whether it is still held: false once released, run out or lost. */
  get held() {
    return this.#native.held
  }

  /**
   * Aborts, with a LeaseLostError (or the error that ended it) as its
   * reason, when this is lost: run out, store closed, connection broken,
   * or released (resigned). Made on first use.
   * @returns {AbortSignal}
   */
  get signal() {
    if (!this.#lost) {
      const controller = new AbortController()
      this.#lost = controller
      this.#native.lost().then(
        reason => controller.abort(fromNative(reason)),
        err => controller.abort(fromNative(err)),
      )
    }
    return this.#lost.signal
  }

  /** The addon's object, for the test kit (testing.js). */
  [nativeHeld]() {
    return this.#native
  }

  /** Extends it by its TTL; rejects with LeaseLostError when it ran out. */
  renew() {
    const held = this.#native
    return settled(() => held.renew())
  }

  /**
   * Releases it as the end of a hold whose body returned (`bodyOk`) or
   * threw `err`, by the core's rule: after the body's own error, nothing
   * to add; else ClosedError or LeaseLostError when it was lost before
   * the body ended. Whether `err` is only the abort of `signal` (its
   * reason, or an AbortError it caused) is all this tells the core.
   * @param {boolean} bodyOk
   * @param {unknown} [err]
   * @returns {Promise<void>}
   */
  [endHold](bodyOk, err) {
    const held = this.#native
    const aborted = this.#lost?.signal
    const cancelledByLoss =
      !bodyOk &&
      aborted !== undefined &&
      aborted.aborted &&
      (err === aborted.reason || (err instanceof Error && err.cause === aborted.reason))
    return settled(() => held.endHold(bodyOk, cancelledByLoss))
  }
}

/**
 * What a lease and a permit share.
 * @template {import('../native').NativeLease | import('../native').NativePermit} N
 * @extends {Holding<N>}
 */
class Held extends Holding {
  /** @type {N} */
  #native

  /** @param {N} native */
  constructor(native) {
    super(native)
    this.#native = native
  }

  /** The key held, as text (an integer key is its decimal). */
  get key() {
    return this.#native.key
  }

  /**
   * Releases it; idempotent; when it was lost first, rejects with
   * ClosedError (its store closed) or LeaseLostError (it ran out, its
   * connection broke).
   */
  release() {
    const held = this.#native
    return settled(() => held.release())
  }

  /** Releases it at the end of an `await using` block. */
  [Symbol.asyncDispose]() {
    return this.release()
  }
}

/** @extends {Held<import('../native').NativeLease>} */
class Lease extends Held {
  /** @type {import('../native').NativeLease} */
  #native
  /** @type {bigint | undefined} */
  #fence

  /** @param {import('../native').NativeLease} native */
  constructor(native) {
    super(native)
    this.#native = native
  }

  /** The fence: larger than every fence the store gave before; every digit kept. */
  get fence() {
    this.#fence ??= this.#native.fence
    return this.#fence
  }

  /**
   * Tells its store that a guard refused a write under this lease to
   * `resource` as stale, for the store to count per group; never blocks
   * nor throws. The guards call it when given the lease.
   * @param {string} resource
   * @returns {void}
   */
  reportRefused(resource) {
    this.#native.reportRefused(resource)
  }
}

/** @extends {Held<import('../native').NativePermit>} */
class Permit extends Held {}

module.exports = { Holding, Lease, Permit, endHold, nativeHeld }
