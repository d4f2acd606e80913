'use strict'
// tinystore/testing: the test kit. A test store whose time the test
// controls (TestStore, embedded or served by this process), the controls
// on any store (advance, expire, expireKey: the core refuses them with
// InvalidError on a store not made for tests), and testStore, a TestStore
// closed at the end of the test by the test runner (node:test, vitest,
// jest). The semantics are the core's (tinystore::testing); this converts
// types and waits for a lease's `signal`. See testing.d.ts and
// docs/testing.md.
//
// Every export is a plain name in the object literal at the end, so that
// Node's ESM loader sees each one (`import { testStore } from
// 'tinystore/testing'`).
const native = require('./native')
const { Store, nativeStore } = require('./store')
const { Holding, nativeHeld } = require('./lease')
const { InvalidError, mapped } = require('./errors')
const { describe, keyText } = require('./convert')

class TestStore {
  /** @type {import('../native').NativeTestStore} */
  #native
  /** @type {Store} */
  #store

  /** @param {import('../native').NativeTestStore} kit */
  constructor(kit) {
    this.#native = kit
    this.#store = new Store(kit.store)
  }

  /**
   * An embedded test store: a new store in a temporary directory, owned by
   * this process, whose time the test controls.
   * @returns {Promise<TestStore>}
   */
  static async open() {
    return new TestStore(await mapped(native.openTestStore()))
  }

  /**
   * A served test store: a server of this process serves a new store on
   * its Unix socket (as `tinystore serve --testing` would) and `store` is
   * connected to it, so a loss travels the wire as in production; other
   * processes connect to `address`.
   * @returns {Promise<TestStore>}
   */
  static async served() {
    return new TestStore(await mapped(native.serveTestStore()))
  }

  /** The store: a normal tinystore Store. */
  get store() {
    return this.#store
  }

  /**
   * Where other processes connect (`unix:PATH`) when served, else null.
   * @returns {string | null}
   */
  get address() {
    return this.#native.address ?? null
  }

  /** The store's directory, removed on close. */
  get dir() {
    return this.#native.dir
  }

  /**
   * Moves the store's time `ms` milliseconds forward; see `advance`.
   * @param {number} ms
   * @returns {Promise<void>}
   */
  advance(ms) {
    return advance(this.#store, ms)
  }

  /**
   * Ends `held` as if its holder had paused past its TTL; see `expire`.
   * @param {import('../index').Lease | import('../index').Permit | import('../index').Leadership} held
   * @returns {Promise<void>}
   */
  expire(held) {
    return expire(held)
  }

  /**
   * Ends every lease held on `key` of the groups called `name`; see
   * `expireKey`.
   * @param {string} name
   * @param {import('../index').Key} key
   * @returns {Promise<number>}
   */
  expireKey(name, key) {
    return expireKey(this.#store, name, key)
  }

  /**
   * Closes the store (holders learn they lost their leases, waiters fail
   * with ClosedError), stops its server when served, and removes its
   * directory. Idempotent.
   * @returns {Promise<void>}
   */
  close() {
    return mapped(this.#native.close())
  }

  /** Closes the kit at the end of an `await using` block. */
  [Symbol.asyncDispose]() {
    return this.close()
  }
}

/**
 * @param {unknown} store
 * @param {string} what
 * @returns {import('../native').NativeStore}
 */
function nativeOfStore(store, what) {
  if (!(store instanceof Store)) throw new InvalidError(`${what} takes a tinystore Store, not ${describe(store)}`)
  return store[nativeStore]()
}

/**
 * Moves the time of `store` forward `ms` milliseconds at once: every lease
 * whose TTL runs out within ends as a lease that ran out does (its holder's
 * `signal` aborts with LeaseLostError, the next waiter is granted with a
 * larger fence), renewing ones too. Waits (`wait`) keep the caller's time.
 * Rejects with InvalidError unless `store` is a test store.
 * @param {import('../index').Store} store
 * @param {number} ms
 * @returns {Promise<void>}
 */
async function advance(store, ms) {
  const kit = nativeOfStore(store, 'advance')
  if (typeof ms !== 'number') throw new InvalidError(`advance takes a number of milliseconds, not ${describe(ms)}`)
  await mapped(kit.testingAdvance(ms))
}

/**
 * Ends `held` (a Lease, a Permit or a Leadership) as if its holder had
 * paused past its TTL; resolves once its `signal` has aborted (with a
 * LeaseLostError) and `held` is false. The next waiter is granted with a
 * larger fence. Rejects with LeaseLostError when it was no longer held,
 * InvalidError unless its store is a test store.
 * @param {import('../index').Lease | import('../index').Permit | import('../index').Leadership} held
 * @returns {Promise<void>}
 */
async function expire(held) {
  if (!(held instanceof Holding)) throw new InvalidError(`expire takes a Lease, a Permit or a Leadership, not ${describe(held)}`)
  // Made before the loss, so that its listener is in place when it comes.
  const signal = held.signal
  await mapped(held[nativeHeld]().testingExpire())
  await aborted(signal)
}

/**
 * Resolves once `signal` has aborted.
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
function aborted(signal) {
  if (signal.aborted) return Promise.resolve()
  return new Promise(resolve => signal.addEventListener('abort', () => resolve(), { once: true }))
}

/**
 * Ends, as `expire` does, every lease held on `key` of the groups called
 * `name` (its lock group, semaphore and read-write locks; not an
 * election's) and resolves to how many. Their holders are told as with
 * `expire`; their `signal`s abort as the loss reaches them (await
 * `expire(held)` instead when the test has the lease). Rejects with
 * InvalidError for a bad name or key, or unless `store` is a test store.
 * @param {import('../index').Store} store
 * @param {string} name
 * @param {import('../index').Key} key
 * @returns {Promise<number>}
 */
async function expireKey(store, name, key) {
  const kit = nativeOfStore(store, 'expireKey')
  if (typeof name !== 'string') throw new InvalidError(`a group name is a string, not ${describe(name)}`)
  return mapped(kit.testingExpireKey(name, keyText(key)))
}

/**
 * @typedef {{ served?: boolean }} TestStoreOptions
 * @typedef {(kit: TestStore) => void} Closer  arranges a kit's close at the test's end
 * @typedef {(fn: () => Promise<void>) => unknown} Hook  a runner's per-test cleanup
 */

/**
 * The kits `testStore()` opened with no test context during the running
 * test, which the `afterEach` registered below closes (jest, or vitest with
 * `globals: true`).
 * @type {Set<TestStore>}
 */
const unscoped = new Set()

/**
 * Whether loading this module registered the `afterEach` that closes
 * them: where a global `afterEach` is (jest, vitest with globals) and this
 * module was loaded where hooks can be defined (the top of a test file, or
 * a module it imports). Jest gives each test file its own copy of the
 * module, so each file gets its own hook.
 */
const unscopedHook = registerUnscopedHook()

function registerUnscopedHook() {
  const afterEach = /** @type {{ afterEach?: unknown }} */ (globalThis).afterEach
  if (typeof afterEach !== 'function') return false
  try {
    afterEach(async () => {
      const kits = [...unscoped]
      unscoped.clear()
      const closed = await Promise.allSettled(kits.map(kit => kit.close()))
      const failed = closed.find(outcome => outcome.status === 'rejected')
      if (failed) throw failed.reason
    })
    return true
  } catch {
    // Loaded where hooks cannot be defined (inside a test): testStore()
    // without a context says so.
    return false
  }
}

/**
 * `hook` of `owner` (a method), as a Closer.
 * @param {unknown} hook
 * @param {unknown} owner
 * @returns {Closer}
 */
function closerOf(hook, owner) {
  const call = /** @type {Hook} */ (hook)
  return kit => {
    call.call(owner, () => kit.close())
  }
}

/**
 * How to close a kit at the end of the test: the test context's
 * `onTestFinished` (vitest) or `after` (node:test); with no context, the
 * global `onTestFinished` (vitest with globals), else the global
 * `afterEach` registered when this module was loaded (jest, vitest with
 * globals). Throws, before any kit is opened, when there is none.
 * @param {unknown} context
 * @returns {Closer}
 */
function closerFor(context) {
  if (context !== undefined) {
    // vitest's context is a function (its deprecated done callback) with
    // the context's fields.
    const t = /** @type {{ onTestFinished?: unknown, after?: unknown }} */ (context)
    if (t !== null && (typeof t === 'object' || typeof t === 'function')) {
      if (typeof t.onTestFinished === 'function') return closerOf(t.onTestFinished, t)
      if (typeof t.after === 'function') return closerOf(t.after, t)
    }
    const hint = typeof context === 'function' ? ' (a jest done callback? under jest call testStore() with no argument)' : ''
    throw new InvalidError(
      `testStore takes the test's context (node:test's t, vitest's test context), not ${describe(context)}${hint}`,
    )
  }
  const global = /** @type {{ onTestFinished?: unknown }} */ (globalThis)
  if (typeof global.onTestFinished === 'function') return closerOf(global.onTestFinished, undefined)
  if (unscopedHook) return kit => void unscoped.add(kit)
  throw new InvalidError(
    "testStore() without the test's context needs jest's or vitest's global afterEach where tinystore/testing is " +
      "loaded: pass the test's context (node:test's t, vitest's), or use TestStore.open() and close it yourself",
  )
}

/**
 * A TestStore for one test, closed (store, server, directory) when the
 * test ends, passed or failed, by the test runner:
 * - node:test: `testStore(t)`, closed by `t.after`;
 * - vitest: `testStore(context)` (the test function's argument), closed by
 *   its `onTestFinished`; with `globals: true`, `testStore()` works too;
 * - jest: `testStore()`, closed by an `afterEach` that loading
 *   tinystore/testing at the top of the test file registered.
 * `options.served`: a served test store (TestStore.served) in place of an
 * embedded one. The runner is found before the kit is opened.
 * @param {unknown} [context]
 * @param {TestStoreOptions} [options]
 * @returns {Promise<TestStore>}
 */
async function testStore(context, options) {
  if (options === undefined && isOptions(context)) {
    options = /** @type {TestStoreOptions} */ (context)
    context = undefined
  }
  const served = optionsServed(options)
  const closeAtEnd = closerFor(context)
  const kit = served ? await TestStore.served() : await TestStore.open()
  closeAtEnd(kit)
  return kit
}

/**
 * Whether `value` is testStore's options (not a test context).
 * @param {unknown} value
 */
function isOptions(value) {
  if (value === null || typeof value !== 'object') return false
  const t = /** @type {{ onTestFinished?: unknown, after?: unknown }} */ (value)
  return typeof t.onTestFinished !== 'function' && typeof t.after !== 'function' && Object.keys(value).every(k => k === 'served')
}

/**
 * @param {unknown} options
 * @returns {boolean}
 */
function optionsServed(options) {
  if (options === undefined || options === null) return false
  if (typeof options !== 'object') throw new InvalidError(`options of testStore must be an object, not ${describe(options)}`)
  const { served, ...rest } = /** @type {{ served?: unknown }} */ (options)
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw new InvalidError(`testStore has no option ${JSON.stringify(unknown[0])}: its option is served`)
  if (served !== undefined && typeof served !== 'boolean') throw new InvalidError(`served of testStore must be a boolean, not ${describe(served)}`)
  return served === true
}

module.exports = {
  TestStore,
  testStore,
  advance,
  expire,
  expireKey,
}
