'use strict'
// Several keys of a lock group at once (Locks.acquireAll and holdAll):
// the core's acquiring_all, every key or none, cancellable as an acquire
// is; a hold of all of them ends each lease by the core's rule (endHold),
// the first loss standing for all.
const { InvalidError, mappedSync } = require('./errors')
const { describe, keyText, nativeOptions, signalOf } = require('./convert')
const { endHold } = require('./lease')
const { acquired, eitherSignal } = require('./hold')

/**
 * The texts of `keys`: an iterable of keys (a string is one key, not
 * several).
 * @param {unknown} keys
 * @param {string} where
 * @returns {string[]}
 */
function keyTexts(keys, where) {
  const iterable = /** @type {{ [Symbol.iterator]?: unknown } | null | undefined} */ (keys)
  if (typeof keys === 'string' || typeof iterable?.[Symbol.iterator] !== 'function') {
    throw new InvalidError(`the keys of acquireAll on ${where} are an array (or iterable) of keys, not ${describe(keys)}`)
  }
  return Array.from(/** @type {Iterable<unknown>} */ (keys), keyText)
}

/**
 * Waits for every key of `keys` of the lock group `group` (a lease each,
 * in the order of `keys`), until `wait` runs out (WaitTimeoutError) or
 * either signal aborts (its reason); none is left held then.
 * @param {import('../native').NativeLocks} group
 * @param {unknown} keys
 * @param {unknown} options
 * @param {AbortSignal | undefined} groupSignal
 * @returns {Promise<import('../native').NativeLease[]>}
 */
async function acquireAll(group, keys, options, groupSignal) {
  const texts = keyTexts(keys, group.name)
  const opts = nativeOptions(options, group.name)
  const signal = eitherSignal(groupSignal, signalOf(options, group.name))
  signal?.throwIfAborted()
  const acquiring = mappedSync(() => group.acquiringAll(texts, opts))
  return acquired(acquiring, signal, `${texts.length} keys of ${group.name}`)
}

/**
 * The signal that aborts when any of `signals` does, with its reason
 * (AbortSignal.any takes the first aborted's reason itself).
 * @param {AbortSignal[]} signals
 */
function anyOf(signals) {
  return signals.length === 1 ? signals[0] : AbortSignal.any(signals)
}

/**
 * Runs `fn` with `leases` and a signal that aborts when any is lost, and
 * ends each lease's hold however `fn` ends: `fn`'s own error first; else
 * the first lease's ClosedError or LeaseLostError (lost before `fn`
 * ended, also when `fn` threw only the abort that loss caused); else what
 * `fn` returned. Every lease is ended (released) whatever the others say.
 * @template T
 * @template {{ signal: AbortSignal, [endHold](bodyOk: boolean, err?: unknown): Promise<void> }} H
 * @param {H[]} leases
 * @param {(leases: H[], signal: AbortSignal) => T | PromiseLike<T>} fn
 * @returns {Promise<T>}
 */
async function holdingAll(leases, fn) {
  let value
  /** @type {{ err: unknown } | undefined} */
  let failed
  try {
    value = await fn(leases, anyOf(leases.map(lease => lease.signal)))
  } catch (err) {
    failed = { err }
  }
  /** @type {{ err: unknown } | undefined} */
  let ended
  for (const lease of leases) {
    try {
      await (failed ? lease[endHold](false, failed.err) : lease[endHold](true))
    } catch (err) {
      ended ??= { err }
    }
  }
  if (failed && !ended) throw failed.err
  if (ended) throw ended.err
  return /** @type {T} */ (value)
}

module.exports = { acquireAll, holdingAll }
