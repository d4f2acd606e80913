'use strict'
// Locks and Semaphore: a group's acquire, tryAcquire and hold. An acquire is
// the core's cancellable one: an AbortSignal gives it up, and the core
// releases a lease granted as it did, so none leaks. hold ends with the
// core's rule (endHold).
const { InvalidError, mappedSync, settled } = require('./errors')
const { describe, keyText, nativeOptions, signalOf } = require('./convert')
const { Lease, Permit } = require('./lease')
const { acquired, eitherSignal, holding } = require('./hold')

/**
 * @template {import('../native').NativeLease | import('../native').NativePermit} N
 * @template {Lease | Permit} H
 */
class Group {
  /** @type {import('../native').NativeLocks | import('../native').NativeSemaphore} */
  #native
  /** @type {AbortSignal | undefined} */
  #signal
  /** @type {(held: N) => H} */
  #wrap
  /** @type {string} */
  #name

  /**
   * @param {import('../native').NativeLocks | import('../native').NativeSemaphore} group
   * @param {AbortSignal | undefined} signal
   * @param {(held: N) => H} wrap
   */
  constructor(group, signal, wrap) {
    this.#native = group
    this.#signal = signal
    this.#wrap = wrap
    this.#name = group.name
  }

  /** The group's name (kept, not asked of the addon on every call). */
  get name() {
    return this.#name
  }

  /**
   * Waits first come first served for `key` and holds it, until `wait`
   * runs out (WaitTimeoutError) or the signal aborts (its reason).
   * @param {string | number | bigint} key
   * @param {{ ttl?: number, wait?: number, renew?: boolean, signal?: AbortSignal }} [options]
   * @returns {Promise<H>}
   */
  async acquire(key, options) {
    const text = keyText(key)
    const opts = nativeOptions(options, this.name)
    const signal = eitherSignal(this.#signal, signalOf(options, this.name))
    signal?.throwIfAborted()
    const group = this.#native
    const acquiring = mappedSync(() => group.acquiring(text, opts))
    const held = /** @type {N} */ (await acquired(acquiring, signal, `${this.name} ${text}`))
    return this.#wrap(held)
  }

  /**
   * Holds `key` if it is free now; else resolves to null.
   * @param {string | number | bigint} key
   * @param {{ ttl?: number, renew?: boolean }} [options]
   * @returns {Promise<H | null>}
   */
  async tryAcquire(key, options) {
    const text = keyText(key)
    const opts = nativeOptions(options, this.name)
    const group = this.#native
    const held = /** @type {N | null} */ (await settled(() => group.tryAcquire(text, opts)))
    return held && this.#wrap(held)
  }

  /**
   * Acquires `key`, runs `fn` with the lease, and releases it however `fn`
   * ends; resolves to what `fn` returned. `fn`'s own error first; else, when
   * the lease was lost before `fn` ended, ClosedError (its store closed) or
   * LeaseLostError (it ran out, its connection broke); the core decides.
   * @template T
   * @param {string | number | bigint} key
   * @param {(held: H) => T | PromiseLike<T>} fn
   * @param {{ ttl?: number, wait?: number, renew?: boolean, signal?: AbortSignal }} [options]
   * @returns {Promise<T>}
   */
  async hold(key, fn, options) {
    if (typeof fn !== 'function') throw new InvalidError(`hold on ${this.name} needs a function, not ${describe(fn)}`)
    return holding(await this.acquire(key, options), fn)
  }
}

/**
 * A group of exclusive locks, one per key; its leases carry fences.
 * @extends {Group<import('../native').NativeLease, Lease>}
 */
class Locks extends Group {
  /**
   * @param {import('../native').NativeLocks} group
   * @param {AbortSignal | undefined} signal
   */
  constructor(group, signal) {
    super(group, signal, held => new Lease(held))
  }
}

/**
 * A group of semaphores: up to `limit` holders per key; permits have no fence.
 * @extends {Group<import('../native').NativePermit, Permit>}
 */
class Semaphore extends Group {
  /**
   * @param {import('../native').NativeSemaphore} group
   * @param {number} limit
   * @param {AbortSignal | undefined} signal
   */
  constructor(group, limit, signal) {
    super(group, signal, held => new Permit(held))
    /** The most holders a key allows at once. @readonly */
    this.limit = limit
  }
}

module.exports = { Locks, Semaphore }
