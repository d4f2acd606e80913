'use strict'
// Locks and Semaphore: a group's acquire, tryAcquire and hold (and each
// side of a read-write lock's, rw_locks.js). An acquire is the core's
// cancellable one: an AbortSignal gives it up, and the core releases a
// lease granted as it did, so none leaks. hold ends with the core's rule
// (endHold). Several keys of a lock group at once: several.js.
const { InvalidError, mappedSync, settled } = require('./errors')
const { describe, keyText, nativeOptions, signalOf } = require('./convert')
const { Lease, Permit } = require('./lease')
const { acquired, eitherSignal, holding } = require('./hold')
const { acquireAll, holdingAll } = require('./several')
const { watching } = require('./watch')

/** @typedef {import('./watch').Watcher} Watcher */
const otel = require('./otel')

/**
 * What a group's acquires are made of: the addon's lock group or
 * semaphore, or one side (read or write) of its read-write locks.
 * @template N
 * @typedef {{
 *   readonly name: string,
 *   acquiring(key: string, options?: import('./convert').NativeOptions): import('./hold').Acquiring<N>,
 *   tryAcquire(key: string, options?: import('./convert').NativeOptions): N | null | undefined | Promise<N | null | undefined>,
 *   watch(key: string): import('../native').NativeWatcher,
 *   watchAll(): import('../native').NativeWatcher,
 * }} Side
 */

/**
 * @template {import('../native').NativeLease | import('../native').NativePermit} N
 * @template {Lease | Permit} H
 */
class Group {
  /** @type {Side<N>} */
  #native
  /** @type {AbortSignal | undefined} */
  #signal
  /** @type {(held: N) => H} */
  #wrap
  /** @type {string} */
  #name
  /** @type {string} */
  #kind

  /**
   * @param {Side<N>} group
   * @param {AbortSignal | undefined} signal
   * @param {(held: N) => H} wrap
   * @param {string} kind the group's kind as status names it, for OpenTelemetry's spans (otel.js)
   */
  constructor(group, signal, wrap, kind) {
    this.#native = group
    this.#signal = signal
    this.#wrap = wrap
    this.#name = group.name
    this.#kind = kind
  }

  /** The group's name (kept, not asked of the addon on every call). */
  get name() {
    return this.#name
  }

  /**
   * Waits first come first served for `key` and holds it, until `wait`
   * runs out (WaitTimeoutError) or the signal aborts (its reason).
   * @param {string | number | bigint} key
   * @param {import('../index').PermitOptions} [options]
   * @returns {Promise<H>}
   */
  async acquire(key, options) {
    const text = keyText(key)
    const opts = nativeOptions(options, this.name)
    const signal = eitherSignal(this.#signal, signalOf(options, this.name))
    signal?.throwIfAborted()
    const group = this.#native
    const wait = otel.waiting(this.#kind, this.#name, text)
    if (wait) {
      let got
      try {
        const acquiring = mappedSync(() => group.acquiring(text, opts))
        got = this.#wrap(/** @type {N} */ (await acquired(acquiring, signal, `${this.name} ${text}`)))
      } catch (err) {
        wait.end(undefined, err)
        throw err
      }
      wait.end(/** @type {{ fence?: bigint }} */ (got))
      return got
    }
    const acquiring = mappedSync(() => group.acquiring(text, opts))
    const held = /** @type {N} */ (await acquired(acquiring, signal, `${this.name} ${text}`))
    return this.#wrap(held)
  }

  /**
   * Holds `key` if it is free now; else resolves to null.
   * @param {string | number | bigint} key
   * @param {import('../index').TryPermitOptions} [options]
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
   * The events of `key` from now on, in the store's order (see Watcher),
   * until the signal aborts, `break` (or `return()`), or the error that
   * ends it (ClosedError, UnavailableError; InvalidError for a bad key).
   * @param {string | number | bigint} key
   * @param {{ signal?: AbortSignal }} [options]
   * @returns {Watcher}
   */
  watch(key, options) {
    const text = keyText(key)
    const signal = eitherSignal(this.#signal, signalOf(options, this.name))
    const group = this.#native
    return watching(() => group.watch(text), signal)
  }

  /**
   * The events of every key of the group from now on, as `watch` gives
   * one key's.
   * @param {{ signal?: AbortSignal }} [options]
   * @returns {Watcher}
   */
  watchAll(options) {
    const signal = eitherSignal(this.#signal, signalOf(options, this.name))
    const group = this.#native
    return watching(() => group.watchAll(), signal)
  }

  /**
   * Acquires `key`, runs `fn` with the lease, and releases it however `fn`
   * ends; resolves to what `fn` returned. `fn`'s own error first; else, when
   * the lease was lost before `fn` ended, ClosedError (its store closed) or
   * LeaseLostError (it ran out, its connection broke); the core decides.
   * @template T
   * @param {string | number | bigint} key
   * @param {(held: H) => T | PromiseLike<T>} fn
   * @param {import('../index').PermitOptions} [options]
   * @returns {Promise<T>}
   */
  async hold(key, fn, options) {
    if (typeof fn !== 'function') throw new InvalidError(`hold on ${this.name} needs a function, not ${describe(fn)}`)
    const held = await this.acquire(key, options)
    const span = otel.holdingSpan(this.#kind, this.#name, held.key, /** @type {{ fence?: bigint }} */ (held))
    if (!span) return holding(held, fn)
    let value
    try {
      value = await span.run(() => holding(held, fn))
    } catch (err) {
      // lost: the core's LeaseLostError or ClosedError; fn's own error: released
      const code = /** @type {{ code?: unknown }} */ (err)?.code
      span.end(code === 'lease_lost' || code === 'closed' ? err : undefined)
      throw err
    }
    span.end()
    return value
  }
}

/**
 * A group of exclusive locks, one per key; its leases carry fences.
 * @extends {Group<import('../native').NativeLease, Lease>}
 */
class Locks extends Group {
  /** @type {import('../native').NativeLocks} */
  #native
  /** @type {AbortSignal | undefined} */
  #signal

  /**
   * @param {import('../native').NativeLocks} group
   * @param {AbortSignal | undefined} signal
   */
  constructor(group, signal) {
    super(group, signal, held => new Lease(held), 'lock')
    this.#native = group
    this.#signal = signal
  }

  /**
   * Holds every key of `keys` or none: a lease each, in the order of
   * `keys`, each with its own fence. Keys are taken in one order for every
   * caller, so callers naming overlapping keys in any order never
   * deadlock; `wait` covers all the keys together. A timeout
   * (WaitTimeoutError), an error or an abort of the signal (its reason)
   * leaves none held.
   * @param {Iterable<string | number | bigint>} keys
   * @param {import('../index').Options} [options]
   * @returns {Promise<Lease[]>}
   */
  async acquireAll(keys, options) {
    const leases = await acquireAll(this.#native, keys, options, this.#signal)
    return leases.map(held => new Lease(held))
  }

  /**
   * Acquires every key of `keys` as `acquireAll` does, runs `fn` with the
   * leases (in the order of `keys`) and a signal that aborts when any of
   * them is lost, and releases them all however `fn` ends; resolves to
   * what `fn` returned. As `hold`: `fn`'s own error first; else, when a
   * lease was lost before `fn` ended, ClosedError or LeaseLostError (the
   * first loss stands for all).
   * @template T
   * @param {Iterable<string | number | bigint>} keys
   * @param {(leases: Lease[], signal: AbortSignal) => T | PromiseLike<T>} fn
   * @param {import('../index').Options} [options]
   * @returns {Promise<T>}
   */
  async holdAll(keys, fn, options) {
    if (typeof fn !== 'function') throw new InvalidError(`holdAll on ${this.name} needs a function, not ${describe(fn)}`)
    return holdingAll(await this.acquireAll(keys, options), fn)
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
    super(group, signal, held => new Permit(held), 'semaphore')
    /** The most holders a key allows at once. @readonly */
    this.limit = limit
  }
}

module.exports = { Group, Locks, Semaphore }
