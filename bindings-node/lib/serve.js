'use strict'
// serve(dir): a store served to other processes from inside this one, as
// `tinystore serve DIR` does, and the Server handle that stops it.
const native = require('./native')
const { InvalidError, mapped } = require('./errors')
const { describe } = require('./convert')

class Server {
  /** @type {import('../native').NativeServer} */
  #native

  /** @param {import('../native').NativeServer} server */
  constructor(server) {
    this.#native = server
  }

  /** The path of the Unix socket it serves on. */
  get socket() {
    return this.#native.socket
  }

  /**
   * Stops serving cleanly: every lease is released (holders learn they lost
   * it), every waiter fails with ClosedError, the socket is removed.
   * Idempotent.
   * @returns {Promise<void>}
   */
  close() {
    return mapped(this.#native.close())
  }

  /** Stops serving at the end of an `await using` block. */
  [Symbol.asyncDispose]() {
    return this.close()
  }
}

/**
 * Serves the store directory `dir` (made if missing) on `DIR/tinystore.sock`
 * until the server is closed, so that `open(dir)` in other processes reaches
 * it. Rejects with InUseError when another process owns `dir`.
 * @param {string} dir
 * @returns {Promise<Server>}
 */
async function serve(dir) {
  if (typeof dir !== 'string') throw new InvalidError(`a store directory is a string, not ${describe(dir)}`)
  return new Server(await mapped(native.serveStore(dir)))
}

module.exports = { Server, serve }
