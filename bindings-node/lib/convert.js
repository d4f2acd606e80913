'use strict'
// Conversions of the arguments JS passes: keys to their decimal or text,
// options to the addon's, fences through the core's strict parser.
const native = require('./native')
const { InvalidError, mappedSync } = require('./errors')

/**
 * A key's text: a string as it is, an integer (number or bigint) as its
 * decimal, so 42, 42n and "42" are the same key.
 * @param {unknown} key
 * @returns {string}
 */
function keyText(key) {
  if (typeof key === 'string') return key
  if (typeof key === 'bigint') return key.toString()
  if (typeof key === 'number') {
    if (!Number.isInteger(key)) throw new InvalidError(`key ${key} is a number that is not an integer`)
    return BigInt(key).toString()
  }
  throw new InvalidError(`a key is a string, an integer number or a bigint, not ${describe(key)}`)
}

/**
 * The addon's options for the ttl, wait, renew, maxHold and weight fields
 * of `options` (the core checks their ranges, and that only a semaphore
 * takes a weight).
 * @param {unknown} options
 * @param {string} where
 * @returns {import('../native').NativeOptions | undefined}
 */
function nativeOptions(options, where) {
  if (options === undefined || options === null) return undefined
  if (typeof options !== 'object') throw new InvalidError(`options of ${where} must be an object, not ${describe(options)}`)
  const { ttl, wait, renew, maxHold, weight } =
    /** @type {{ ttl?: unknown, wait?: unknown, renew?: unknown, maxHold?: unknown, weight?: unknown }} */ (options)
  /** @type {import('../native').NativeOptions} */
  const out = {}
  if (ttl !== undefined) out.ttl = millis('ttl', ttl, where)
  if (wait !== undefined) out.wait = millis('wait', wait, where)
  if (maxHold !== undefined) out.maxHold = millis('maxHold', maxHold, where)
  if (renew !== undefined) {
    if (typeof renew !== 'boolean') throw new InvalidError(`renew of ${where} must be a boolean, not ${describe(renew)}`)
    out.renew = renew
  }
  if (weight !== undefined) {
    if (typeof weight !== 'number') throw new InvalidError(`weight of ${where} must be a number of places, not ${describe(weight)}`)
    out.weight = weight
  }
  return out
}

/**
 * The signal of `options`, checked.
 * @param {unknown} options
 * @param {string} where
 * @returns {AbortSignal | undefined}
 */
function signalOf(options, where) {
  if (options === undefined || options === null || typeof options !== 'object') return undefined
  const { signal } = /** @type {{ signal?: unknown }} */ (options)
  if (signal === undefined) return undefined
  if (!(signal instanceof AbortSignal)) throw new InvalidError(`signal of ${where} must be an AbortSignal, not ${describe(signal)}`)
  return signal
}

/**
 * @param {string} what
 * @param {unknown} value
 * @param {string} where
 * @returns {number}
 */
function millis(what, value, where) {
  if (typeof value !== 'number') throw new InvalidError(`${what} of ${where} must be a number of milliseconds, not ${describe(value)}`)
  return value
}

/** @param {unknown} value */
function describe(value) {
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value)})`
  return `${typeof value} ${String(value)}`
}

/**
 * Parses a fence's decimal with the core's strict parser: ASCII digits only,
 * leading zeros allowed, at most 2^128-1. Refuses what BigInt() would take
 * beyond that ("0x10", " 7", "-1", "").
 * @param {string} text
 * @returns {bigint}
 */
function parseFence(text) {
  if (typeof text !== 'string') throw new InvalidError(`fence text must be a string, not ${describe(text)}`)
  return mappedSync(() => native.parseFence(text))
}

/**
 * The 40-digit zero-padded text of a fence, which orders as text the way
 * fences order as numbers.
 * @param {bigint} fence
 * @returns {string}
 */
function fenceText(fence) {
  if (typeof fence !== 'bigint') throw new InvalidError(`a fence is a bigint, not ${describe(fence)}`)
  return mappedSync(() => native.fenceText(fence))
}

module.exports = { keyText, nativeOptions, signalOf, describe, parseFence, fenceText }
