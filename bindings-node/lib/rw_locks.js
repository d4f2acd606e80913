'use strict'
// RwLocks: a group of read-write locks, one per key. Each side is a Group
// (group.js) over the addon's read or write acquires: reading gives a
// Permit (no fence), writing a Lease with a fence; acquire, tryAcquire and
// hold behave as a lock group's.
const { Group } = require('./group')
const { Lease, Permit } = require('./lease')

class RwLocks {
  /** @type {Group<import('../native').NativePermit, Permit>} */
  #read
  /** @type {Group<import('../native').NativeLease, Lease>} */
  #write

  /**
   * @param {import('../native').NativeRwLocks} group
   * @param {AbortSignal | undefined} signal
   */
  constructor(group, signal) {
    const name = group.name
    /** @type {import('./group').Side<import('../native').NativePermit>} */
    const read = {
      name,
      acquiring: (key, options) => group.acquiringRead(key, options),
      tryAcquire: (key, options) => group.tryAcquireRead(key, options),
      watch: key => group.watch(key),
      watchAll: () => group.watchAll(),
    }
    /** @type {import('./group').Side<import('../native').NativeLease>} */
    const write = {
      name,
      acquiring: (key, options) => group.acquiringWrite(key, options),
      tryAcquire: (key, options) => group.tryAcquireWrite(key, options),
      watch: key => group.watch(key),
      watchAll: () => group.watchAll(),
    }
    this.#read = new Group(read, signal, held => new Permit(held), 'rwlock')
    this.#write = new Group(write, signal, held => new Lease(held), 'rwlock')
  }

  /** The group's name. */
  get name() {
    return this.#read.name
  }

  /**
   * The events of `key` from now on, as a lock group's `watch` gives them:
   * a write lease's grant with its fence, a read lease's without.
   * @param {string | number | bigint} key
   * @param {{ signal?: AbortSignal }} [options]
   */
  watch(key, options) {
    return this.#read.watch(key, options)
  }

  /**
   * The events of every key of the group from now on.
   * @param {{ signal?: AbortSignal }} [options]
   */
  watchAll(options) {
    return this.#read.watchAll(options)
  }

  /**
   * Waits first come first served to read `key` (shared with other
   * readers, after every writer that came first), until `wait` runs out
   * (WaitTimeoutError) or the signal aborts (its reason).
   * @param {string | number | bigint} key
   * @param {import('../index').Options} [options]
   * @returns {Promise<Permit>}
   */
  acquireRead(key, options) {
    return this.#read.acquire(key, options)
  }

  /**
   * Waits first come first served to write `key` (alone, with a fence),
   * until `wait` runs out (WaitTimeoutError) or the signal aborts.
   * @param {string | number | bigint} key
   * @param {import('../index').Options} [options]
   * @returns {Promise<Lease>}
   */
  acquireWrite(key, options) {
    return this.#write.acquire(key, options)
  }

  /**
   * Reads `key` if no writer holds it or waits for it now; else null.
   * @param {string | number | bigint} key
   * @param {import('../index').TryOptions} [options]
   * @returns {Promise<Permit | null>}
   */
  tryAcquireRead(key, options) {
    return this.#read.tryAcquire(key, options)
  }

  /**
   * Writes `key` if nobody holds it or waits for it now; else null.
   * @param {string | number | bigint} key
   * @param {import('../index').TryOptions} [options]
   * @returns {Promise<Lease | null>}
   */
  tryAcquireWrite(key, options) {
    return this.#write.tryAcquire(key, options)
  }

  /**
   * Reads `key`, runs `fn` with the permit, and releases it however `fn`
   * ends, as a lock group's `hold` does.
   * @template T
   * @param {string | number | bigint} key
   * @param {(permit: Permit) => T | PromiseLike<T>} fn
   * @param {import('../index').Options} [options]
   * @returns {Promise<T>}
   */
  holdRead(key, fn, options) {
    return this.#read.hold(key, fn, options)
  }

  /**
   * Writes `key`, runs `fn` with the lease, and releases it however `fn`
   * ends, as a lock group's `hold` does.
   * @template T
   * @param {string | number | bigint} key
   * @param {(lease: Lease) => T | PromiseLike<T>} fn
   * @param {import('../index').Options} [options]
   * @returns {Promise<T>}
   */
  holdWrite(key, fn, options) {
    return this.#write.hold(key, fn, options)
  }
}

module.exports = { RwLocks }
