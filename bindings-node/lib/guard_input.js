'use strict'
// The guards' text arguments (a resource, an S3 bucket, key or metadata):
// strings that are well-formed UTF-16. A lone surrogate ('chats/\uD800')
// has no UTF-8 form: passed on, it would become U+FFFD, so that two
// resources the caller tells apart would share one register row. It is
// InvalidError here, before any I/O, as Python and Go refuse it.
const { describe } = require('./convert')
const { InvalidError, StaleError } = require('./errors')
const { Lease } = require('./lease')
const otel = require('./otel')

/** @type {(text: string) => boolean} String.prototype.isWellFormed, in Node 20 and later. */
const wellFormed = text => /** @type {{ isWellFormed(): boolean }} */ (/** @type {unknown} */ (text)).isWellFormed()

/**
 * `value` as a string that has a UTF-8 form, or an InvalidError naming
 * `what` and `where` it was given.
 * @param {unknown} value
 * @param {string} what e.g. "resource", "key"
 * @param {string} where e.g. "guard.check"
 * @returns {string}
 */
function text(value, what, where) {
  if (typeof value !== 'string') throw new InvalidError(`${where}: ${what} must be a string, not ${describe(value)}`)
  if (!wellFormed(value)) {
    throw new InvalidError(
      `${where}: ${what} ${JSON.stringify(value)} is not well-formed UTF-16 (it holds a lone surrogate), so it has no UTF-8 form`,
    )
  }
  return value
}

/**
 * `fence`, a bigint (the core checks its range), or an InvalidError.
 * @param {unknown} fence
 * @param {string} where
 * @returns {bigint}
 */
function fenceOf(fence, where) {
  if (typeof fence !== 'bigint') throw new InvalidError(`${where}: a fence is a bigint, not ${describe(fence)}`)
  return fence
}

/**
 * What a guarded write is made under: a fence (a bigint) or the lease
 * itself. Its fence; `telling`, which runs the guard and, when it refuses
 * the write as stale (thrown or rejected), tells the lease's store
 * (`lease.reportRefused`, the core's: never blocks nor throws) before the
 * refusal goes on; and `checked`, which is `telling` inside OpenTelemetry's
 * tinystore.guard.check span on `backend` (lib/otel.js: only the run while
 * nothing records).
 * @param {unknown} under
 * @param {string} where
 * @returns {{ fence: bigint, telling: <T>(resource: string, run: () => T) => T, checked: <T>(resource: string, backend: string, run: () => T) => T }}
 */
function underOf(under, where) {
  if (!(under instanceof Lease)) {
    const fence = fenceOf(under, where)
    return {
      fence,
      telling: (_, run) => run(),
      checked: (resource, backend, run) => otel.checked(resource, fence, () => backend, run),
    }
  }
  const lease = under
  /** @param {string} resource */
  const tell = resource => (/** @type {unknown} */ err) => {
    if (err instanceof StaleError) lease.reportRefused(resource)
    throw err
  }
  /** @template T @param {string} resource @param {() => T} run @returns {T} */
  const telling = (resource, run) => {
    let result
    try {
      result = run()
    } catch (err) {
      tell(resource)(err)
    }
    return /** @type {any} */ (result instanceof Promise ? result.catch(tell(resource)) : result)
  }
  return {
    fence: lease.fence,
    telling,
    checked: (resource, backend, run) => otel.checked(resource, lease.fence, () => backend, () => telling(resource, run)),
  }
}

module.exports = { text, fenceOf, underOf }
