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
 * @typedef {Record<string, number | boolean | string>} NativeOptions
 * Options by their names in the core's snake_case (`max_hold`), each a
 * number (milliseconds, or a count), a boolean or a string (`data`).
 */

/**
 * The addon's options for the fields of `options` but `signal`, each
 * renamed from camelCase to snake_case (`maxHold` to `max_hold`); the core
 * knows every option, and checks each name and value.
 * @param {unknown} options
 * @param {string} where
 * @returns {NativeOptions | undefined}
 */
function nativeOptions(options, where) {
  if (options === undefined || options === null) return undefined
  if (typeof options !== 'object') throw new InvalidError(`options of ${where} must be an object, not ${describe(options)}`)
  /** @type {NativeOptions} */
  const out = {}
  for (const [name, value] of Object.entries(options)) {
    if (name === 'signal' || value === undefined) continue
    if (typeof value !== 'number' && typeof value !== 'boolean' && typeof value !== 'string') {
      throw new InvalidError(`${name} of ${where} must be a number, a boolean or a string, not ${describe(value)}`)
    }
    out[name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = value
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
