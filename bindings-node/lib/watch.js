'use strict'
// Watcher: the events of a watched key or group (watch and watchAll on
// Locks, Semaphore and RwLocks), the core's Watching as an async iterable
// (following.js). Each event is a frozen object with the fields of its
// kind; what it means and when it comes are the core's.
const { mappedSync } = require('./errors')
const { Following } = require('./following')

/**
 * An event as JS sees it: only the fields its kind has.
 * @param {import('../native').NativeWatchEvent} e
 * @returns {import('../index').WatchEvent}
 */
function eventOf(e) {
  const fence = e.fence ?? null
  switch (e.kind) {
    case 'granted':
      return Object.freeze({ kind: 'granted', key: String(e.key), fence, data: e.data ?? null })
    case 'released':
      return Object.freeze({ kind: 'released', key: String(e.key), fence })
    case 'lost':
      return Object.freeze({ kind: 'lost', key: String(e.key), fence, cause: /** @type {'expired' | 'disconnected' | 'closed'} */ (e.cause) })
    case 'queue':
      return Object.freeze({ kind: 'queue', key: String(e.key), length: Number(e.length) })
    default:
      return Object.freeze({ kind: 'lagged', missed: Number(e.missed) })
  }
}

/**
 * @param {import('../native').NativeWatchNext} next
 * @returns {{ done: true } | { done: false, value: import('../index').WatchEvent }}
 */
function readNext(next) {
  return next.done || !next.event ? { done: true } : { done: false, value: eventOf(next.event) }
}

/**
 * The events of a watched key or group, in the store's order.
 * @extends {Following<import('../native').NativeWatchNext, import('../index').WatchEvent>}
 */
class Watcher extends Following {
  /**
   * @param {import('../native').NativeWatcher} native
   * @param {AbortSignal | undefined} signal
   */
  constructor(native, signal) {
    super(native, readNext, signal)
  }
}

/**
 * A watcher started by `start` (the addon's watch or watchAll), its
 * errors mapped as every call's are.
 * @param {() => import('../native').NativeWatcher} start
 * @param {AbortSignal | undefined} signal
 */
function watching(start, signal) {
  return new Watcher(mappedSync(start), signal)
}

module.exports = { Watcher, watching }
