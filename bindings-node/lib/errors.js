'use strict'
// The error classes: TinystoreError with `.code`, and one subclass per code
// of tinystore (docs/locks.md). The addon reports an error as "<code>: <message>"; `fromNative`
// turns that into the class for the code.

class TinystoreError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(code, message, options) {
    super(message, options)
    /** @readonly */
    this.code = code
  }
}

/**
 * The subclass of TinystoreError for one code.
 * @param {string} name
 * @param {string} code
 */
function subclass(name, code) {
  const made = class extends TinystoreError {
    /** @param {string} message @param {ErrorOptions} [options] */
    constructor(message, options) {
      super(code, message, options)
    }
  }
  Object.defineProperty(made, 'name', { value: name })
  Object.defineProperty(made.prototype, 'name', { value: name, writable: true, configurable: true })
  return made
}
Object.defineProperty(TinystoreError.prototype, 'name', { value: 'TinystoreError', writable: true, configurable: true })

const WaitTimeoutError = subclass('WaitTimeoutError', 'timeout')
const LeaseLostError = subclass('LeaseLostError', 'lease_lost')
const InUseError = subclass('InUseError', 'in_use')
const ClosedError = subclass('ClosedError', 'closed')
const InvalidError = subclass('InvalidError', 'invalid')
const LimitError = subclass('LimitError', 'limit')
const UnauthorizedError = subclass('UnauthorizedError', 'unauthorized')
const CorruptError = subclass('CorruptError', 'corrupt')
const IoError = subclass('IoError', 'io')
const UnavailableError = subclass('UnavailableError', 'unavailable')
const TinystoreInternalError = subclass('TinystoreInternalError', 'internal')

/** The class for each code. */
const errorClasses = Object.freeze({
  timeout: WaitTimeoutError,
  lease_lost: LeaseLostError,
  in_use: InUseError,
  closed: ClosedError,
  invalid: InvalidError,
  limit: LimitError,
  unauthorized: UnauthorizedError,
  corrupt: CorruptError,
  io: IoError,
  unavailable: UnavailableError,
  internal: TinystoreInternalError,
})

/**
 * The TinystoreError for a reason in the addon's "<code>: <message>" form;
 * anything else becomes an `internal` error that keeps it as its cause.
 * @param {unknown} err
 * @returns {TinystoreError}
 */
function fromNative(err) {
  if (err instanceof TinystoreError) return err
  const text = err instanceof Error ? err.message : String(err)
  const match = /^([a-z_]+): ([\s\S]*)$/.exec(text)
  const made = match && Object.prototype.hasOwnProperty.call(errorClasses, match[1])
    ? errorClasses[/** @type {keyof typeof errorClasses} */ (match[1])]
    : undefined
  if (made && match) return new made(match[2])
  return new TinystoreInternalError(`unexpected error from the addon: ${text}`, { cause: err })
}

/**
 * Awaits a promise from the addon, mapping its rejection.
 * @template T
 * @param {Promise<T>} promise
 * @returns {Promise<T>}
 */
async function mapped(promise) {
  try {
    return await promise
  } catch (err) {
    throw fromNative(err)
  }
}

/**
 * Calls the addon synchronously, mapping what it throws.
 * @template T
 * @param {() => T} call
 * @returns {T}
 */
function mappedSync(call) {
  try {
    return call()
  } catch (err) {
    throw fromNative(err)
  }
}

/**
 * Calls the addon for a value it gives at once when it can and as a promise
 * otherwise; resolves to the value, mapping what it throws or rejects with.
 * @template T
 * @param {() => T | Promise<T>} call
 * @returns {Promise<T>}
 */
async function settled(call) {
  let out
  try {
    out = call()
  } catch (err) {
    throw fromNative(err)
  }
  return out instanceof Promise ? mapped(out) : out
}

module.exports = {
  TinystoreError,
  WaitTimeoutError,
  LeaseLostError,
  InUseError,
  ClosedError,
  InvalidError,
  LimitError,
  UnauthorizedError,
  CorruptError,
  IoError,
  UnavailableError,
  TinystoreInternalError,
  errorClasses,
  fromNative,
  mapped,
  mappedSync,
  settled,
}
