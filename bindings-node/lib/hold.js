'use strict'
// What acquiring a key and campaigning share: waiting for the core's
// cancellable Acquiring under an AbortSignal (a give-up that crosses a
// grant leaks nothing: the core releases it), and running a body while
// holding, ended by the core's rule (endHold).
const { TinystoreInternalError, settled } = require('./errors')
const { endHold } = require('./lease')

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
 * An acquire under way, as the addon gives it.
 * @template N
 * @typedef {{ outcome(): N | null | undefined | Promise<N | null | undefined>, giveUp(): void }} Acquiring
 */

/**
 * Waits for what `acquiring` gives, giving it up when `signal` aborts (and
 * rejecting with its reason). `what` names the wait in an internal error.
 * @template N
 * @param {Acquiring<N>} acquiring
 * @param {AbortSignal | undefined} signal
 * @param {string} what
 * @returns {Promise<N>}
 */
async function acquired(acquiring, signal, what) {
  // No listener, and no closure for it, when there is no signal.
  const onAbort = signal && (() => acquiring.giveUp())
  if (onAbort) signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const held = await settled(() => acquiring.outcome())
    if (held) return held
    signal?.throwIfAborted()
    throw new TinystoreInternalError(`the wait for ${what} ended with nothing held and no abort`)
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * Runs `fn` with `held` and ends the hold however `fn` ends: `fn`'s own
 * error first; else ClosedError or LeaseLostError when it was lost before
 * `fn` ended, also when `fn` threw only the abort of `held.signal` that the
 * loss caused (the core decides); else what `fn` returned.
 * @template T
 * @template {{ [endHold](bodyOk: boolean, err?: unknown): Promise<void> }} H
 * @param {H} held
 * @param {(held: H) => T | PromiseLike<T>} fn
 * @returns {Promise<T>}
 */
async function holding(held, fn) {
  let value
  try {
    value = await fn(held)
  } catch (err) {
    await held[endHold](false, err)
    throw err
  }
  await held[endHold](true)
  return value
}

module.exports = { eitherSignal, acquired, holding }
