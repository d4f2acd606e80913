'use strict'
// Store: open or connect to a store, and get its groups (Locks, Semaphore,
// RwLocks) and elections.
const native = require('./native')
const { InvalidError, mapped, mappedSync } = require('./errors')
const { describe, nativeOptions, signalOf } = require('./convert')
const { Locks, Semaphore } = require('./group')
const { RwLocks } = require('./rw_locks')
const { Election } = require('./election')
const { statusOf } = require('./status')

/** The key of the method that gives the addon's store; the test kit's (testing.js), not the public API's. */
const nativeStore = Symbol('nativeStore')

class Store {
  /** @type {import('../native').NativeStore} */
  #native

  /** @param {import('../native').NativeStore} store */
  constructor(store) {
    this.#native = store
  }

  /**
   * The group of exclusive locks called `name` (1 to 128 bytes of
   * A-Z a-z 0-9 . _ - :, checked at the first acquire), with its options.
   * @param {string} name
   * @param {import('../index').Options} [options]
   */
  locks(name, options) {
    checkName(name)
    const opts = nativeOptions(options, name)
    return new Locks(mappedSync(() => this.#native.locks(name, opts)), signalOf(options, name))
  }

  /**
   * The group of semaphores called `name`: up to `limit` holders per key.
   * @param {string} name
   * @param {number} limit
   * @param {import('../index').PermitOptions} [options]
   */
  semaphore(name, limit, options) {
    checkName(name)
    if (typeof limit !== 'number') throw new InvalidError(`the limit of semaphore ${name} must be a number, not ${describe(limit)}`)
    const opts = nativeOptions(options, name)
    return new Semaphore(mappedSync(() => this.#native.semaphore(name, limit, opts)), limit, signalOf(options, name))
  }

  /**
   * The group of read-write locks called `name`: readers share a key, a
   * writer holds it alone (with a fence); first come first served, so a
   * waiting writer holds back the readers that came after it.
   * @param {string} name
   * @param {import('../index').Options} [options]
   */
  rwLocks(name, options) {
    checkName(name)
    const opts = nativeOptions(options, name)
    return new RwLocks(mappedSync(() => this.#native.rwLocks(name, opts)), signalOf(options, name))
  }

  /**
   * The election called `name` (a lock whose holder is named, apart from
   * the lock group and semaphore of that name), with its options.
   * @param {string} name
   * @param {import('../index').Options} [options]
   */
  election(name, options) {
    checkName(name)
    const opts = nativeOptions(options, name)
    return new Election(mappedSync(() => this.#native.election(name, opts)), signalOf(options, name))
  }

  /**
   * The store's state: its epoch, the fences given, each held lease (name,
   * key, fence, TTL and time left) and each key with callers waiting: the
   * `limit` of each (1 to 10,000; default 1,000) after the first `offset`,
   * by name then key.
   * @param {{ offset?: number, limit?: number }} [options]
   * @returns {Promise<import('../index').Status>}
   */
  async status(options) {
    const offset = options?.offset
    const limit = options?.limit
    if (offset !== undefined && typeof offset !== 'number') throw new InvalidError(`a status offset is a number, not ${describe(offset)}`)
    if (limit !== undefined && typeof limit !== 'number') throw new InvalidError(`a status limit is a number, not ${describe(limit)}`)
    return statusOf(await mapped(this.#native.status(offset, limit)))
  }

  /**
   * Releases every lease (their holders learn they lost them) and fails
   * every waiter with ClosedError. Idempotent.
   * @returns {Promise<void>}
   */
  close() {
    return mapped(this.#native.close())
  }

  /** The addon's store, for the test kit (testing.js). */
  [nativeStore]() {
    return this.#native
  }

  /** Closes the store at the end of an `await using` block. */
  [Symbol.asyncDispose]() {
    return this.close()
  }
}

/** @param {unknown} name */
function checkName(name) {
  if (typeof name !== 'string') throw new InvalidError(`a group or election name is a string, not ${describe(name)}`)
}

/**
 * Opens the store directory `dir`, making it if missing. Rejects with
 * InUseError, naming the owner's pid, when another process owns it.
 * @param {string} dir
 * @returns {Promise<Store>}
 */
async function open(dir) {
  if (typeof dir !== 'string') throw new InvalidError(`a store directory is a string, not ${describe(dir)}`)
  return new Store(await mapped(native.openStore(dir)))
}

/**
 * Connects to a store served by `tinystore serve` at `address`: `unix:PATH`,
 * `tcp://HOST:PORT` (with `token`), a socket's path or a served directory.
 * Rejects with UnavailableError when it cannot be reached.
 * @param {string} address
 * @param {{ token?: string }} [options]
 * @returns {Promise<Store>}
 */
async function connect(address, options) {
  if (typeof address !== 'string') throw new InvalidError(`a server address is a string, not ${describe(address)}`)
  const token = options?.token
  if (token !== undefined && typeof token !== 'string') throw new InvalidError(`token must be a string, not ${describe(token)}`)
  return new Store(await mapped(native.connectStore(address, token)))
}

module.exports = { Store, open, connect, nativeStore }
