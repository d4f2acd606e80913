'use strict'
// The error classes: TinystoreError with `.code`, and one subclass per code
// of tinystore (docs/locks.md). The addon throws a core error as an Error
// whose message is the error as JSON ({ code, message, stale? }, see
// src/error.rs); `fromNative` gives the class for its code, from the plain
// table `errorClasses`, which the tests check against the core's table.

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

/**
 * `stale`: a guard refused a write, whose fence is below the largest one
 * recorded for its resource. Carries the three.
 */
class StaleError extends TinystoreError {
  /**
   * @param {string} message
   * @param {{ resource: string, fence: bigint, largest: bigint }} detail
   * @param {ErrorOptions} [options]
   */
  constructor(message, detail, options) {
    super('stale', message, options)
    const { resource, fence, largest } = detail ?? {}
    if (typeof resource !== 'string' || typeof fence !== 'bigint' || typeof largest !== 'bigint') {
      throw new TypeError('a StaleError carries { resource: string, fence: bigint, largest: bigint }')
    }
    /** @readonly The resource the refused write was for, e.g. "chats/42". */
    this.resource = resource
    /** @readonly The refused write's fence. */
    this.fence = fence
    /** @readonly The largest fence recorded for the resource. */
    this.largest = largest
  }
}
Object.defineProperty(StaleError.prototype, 'name', { value: 'StaleError', writable: true, configurable: true })

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
  stale: StaleError,
})

/**
 * The TinystoreError for what the addon threw or rejected with (or a lost
 * lease's reason): a core error as JSON. Anything else becomes an
 * `internal` error that keeps it as its cause.
 * @param {unknown} err
 * @returns {TinystoreError}
 */
function fromNative(err) {
  if (err instanceof TinystoreError) return err
  const value = nativeValue(err)
  if (value) return fromNativeValue(value)
  const text = err instanceof Error ? err.message : String(err)
  return new TinystoreInternalError(`unexpected error from the addon: ${text}`, { cause: err })
}

/**
 * The core error the addon put as JSON in an Error's message (or in a
 * string); undefined for anything else.
 * @param {unknown} err
 * @returns {import('../native').NativeError | undefined}
 */
function nativeValue(err) {
  const text = err instanceof Error ? err.message : typeof err === 'string' ? err : undefined
  if (text === undefined || !text.startsWith('{"tinystore":1,')) return undefined
  /** @type {{ code?: unknown, message?: unknown, stale?: { resource?: unknown, fence?: unknown, largest?: unknown } }} */
  let parsed
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  const { code, message, stale } = parsed
  if (typeof code !== 'string' || typeof message !== 'string') return undefined
  if (stale && typeof stale.resource === 'string' && typeof stale.fence === 'string' && typeof stale.largest === 'string') {
    return { code, message, stale: { resource: stale.resource, fence: BigInt(stale.fence), largest: BigInt(stale.largest) } }
  }
  return { code, message }
}

/**
 * The TinystoreError for an error the addon gives as a value (the guard's
 * decisions): its code, message, and for `stale` its resource and fences.
 * An unknown code, or a stale one without its fences, is `internal`.
 * @param {import('../native').NativeError} value
 * @returns {TinystoreError}
 */
function fromNativeValue(value) {
  const { code, message, stale } = value
  if (code === 'stale' && stale) return new StaleError(message, stale)
  const made = code !== 'stale' && Object.prototype.hasOwnProperty.call(errorClasses, code)
    ? /** @type {typeof InvalidError} */ (errorClasses[/** @type {keyof typeof errorClasses} */ (code)])
    : undefined
  if (made) return new made(message)
  return new TinystoreInternalError(`unexpected error from the addon: ${code}: ${message}`)
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
  StaleError,
  errorClasses,
  fromNative,
  fromNativeValue,
  mapped,
  mappedSync,
  settled,
}
