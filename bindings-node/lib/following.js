'use strict'
// Following: what an election's Observer and a group's Watcher share: the
// core's Following (an Observing, a Watching) as an async iterable
// iterator, ended by an AbortSignal, by `break` (or `return()`), by
// close(), or by the one error that ends it. Only the conversion of an
// item differs between them.
const { settled } = require('./errors')

/**
 * A native observer or watcher: `next` gives what `done` and `item`
 * read, at once or as a promise.
 * @template R
 * @typedef {{ next(): R | Promise<R>, close(): void }} Native
 */

/**
 * @template R the native `next`'s result
 * @template T an item as JS sees it
 * @implements {AsyncIterableIterator<T>}
 */
class Following {
  /** @type {Native<R>} */
  #native
  /** @type {(result: R) => { done: true } | { done: false, value: T }} */
  #read
  /** @type {AbortSignal | undefined} */
  #signal
  /** @type {(() => void) | undefined} */
  #onAbort

  /**
   * @param {Native<R>} native
   * @param {(result: R) => { done: true } | { done: false, value: T }} read
   * @param {AbortSignal | undefined} signal
   */
  constructor(native, read, signal) {
    this.#native = native
    this.#read = read
    this.#signal = signal
    if (signal?.aborted) native.close()
    else if (signal) {
      this.#onAbort = () => native.close()
      signal.addEventListener('abort', this.#onAbort, { once: true })
    }
  }

  /**
   * The next item: `{ done: false, value }`, `{ done: true }` once it
   * ended; rejects once with the error that ended it.
   * @returns {Promise<IteratorResult<T, undefined>>}
   */
  async next() {
    const native = this.#native
    let result
    try {
      result = this.#read(await settled(() => native.next()))
    } catch (err) {
      this.#stopListening()
      throw err
    }
    if (result.done) {
      this.#stopListening()
      return { done: true, value: undefined }
    }
    return { done: false, value: result.value }
  }

  /**
   * Stops it (what `break` in a `for await` calls).
   * @returns {Promise<IteratorResult<T, undefined>>}
   */
  async return() {
    this.close()
    return { done: true, value: undefined }
  }

  /** Stops it: a `next` under way and every later one are done. Idempotent. */
  close() {
    this.#native.close()
    this.#stopListening()
  }

  #stopListening() {
    if (this.#onAbort) this.#signal?.removeEventListener('abort', this.#onAbort)
    this.#onAbort = undefined
  }

  [Symbol.asyncIterator]() {
    return this
  }
}

module.exports = { Following }
