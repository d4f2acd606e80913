'use strict'
// Lease (from a lock, with a fence) and Permit (from a semaphore, without):
// thin wrappers of the addon's, with `signal` and `Symbol.asyncDispose`.
const { fromNative, settled } = require('./errors')

/**
 * What a lease and a permit share.
 * @template {import('../native').NativeLease | import('../native').NativePermit} N
 */
class Held {
  /** @type {N} */
  #native
  /** @type {AbortController | undefined} */
  #lost

  /** @param {N} native */
  constructor(native) {
    this.#native = native
  }

  /** The group's name. */
  get name() {
    return this.#native.name
  }

  /** The key held, as text (an integer key is its decimal). */
  get key() {
    return this.#native.key
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
   * or released. Made on first use.
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

  /** Extends it by its TTL; rejects with LeaseLostError when it ran out. */
  renew() {
    const held = this.#native
    return settled(() => held.renew())
  }

  /** Releases it; idempotent; rejects with LeaseLostError when it ran out first. */
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
}

/** @extends {Held<import('../native').NativePermit>} */
class Permit extends Held {}

module.exports = { Lease, Permit }
