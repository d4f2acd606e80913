'use strict'
// Locks and Semaphore: a group's acquire, tryAcquire and hold. A wait that an
// AbortSignal ends drops the core's wait through a native Cancel, so no
// lease leaks; a lease granted as the signal aborts is released.
const native = require('./native')
const { InvalidError, TinystoreInternalError, settled } = require('./errors')
const { describe, keyText, nativeOptions, signalOf } = require('./convert')
const { Lease, Permit } = require('./lease')

/**
 * The signal that ends a wait: the call's, the group's, or either.
 * @param {AbortSignal | undefined} group
 * @param {AbortSignal | undefined} call
 */
function eitherSignal(group, call) {
  if (group && call) return AbortSignal.any([group, call])
  return call ?? group
}

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

  /**
   * @param {import('../native').NativeLocks | import('../native').NativeSemaphore} group
   * @param {AbortSignal | undefined} signal
   * @param {(held: N) => H} wrap
   */
  constructor(group, signal, wrap) {
    this.#native = group
    this.#signal = signal
    this.#wrap = wrap
  }

  /** The group's name. */
  get name() {
    return this.#native.name
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
    const cancel = signal ? new native.Cancel() : null
    const onAbort = () => cancel?.cancel()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const group = this.#native
      const held = /** @type {N | null} */ (await settled(() => group.acquire(text, opts, cancel)))
      if (signal?.aborted) {
        if (held) await settled(() => held.release()).catch(() => {})
        signal.throwIfAborted()
      }
      if (!held) throw new TinystoreInternalError(`the wait for ${this.name} ${text} ended with no lease and no abort`)
      return this.#wrap(held)
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
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
   * ends; resolves to what `fn` returned. A lease lost before `fn` ended
   * turns a success into LeaseLostError; it never hides `fn`'s own error.
   * @template T
   * @param {string | number | bigint} key
   * @param {(held: H) => T | PromiseLike<T>} fn
   * @param {{ ttl?: number, wait?: number, renew?: boolean, signal?: AbortSignal }} [options]
   * @returns {Promise<T>}
   */
  async hold(key, fn, options) {
    if (typeof fn !== 'function') throw new InvalidError(`hold on ${this.name} needs a function, not ${describe(fn)}`)
    const held = await this.acquire(key, options)
    let value
    try {
      value = await fn(held)
    } catch (err) {
      await held.release().catch(() => {})
      throw err
    }
    await held.release()
    return value
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
