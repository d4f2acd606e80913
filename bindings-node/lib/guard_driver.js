'use strict'
// A driver's own errors, for the guards: each described by what the driver
// reports (better-sqlite3's code name, pg's SQLSTATE, mysql2's SQLSTATE and
// error number, the AWS SDK's HTTP
// status and error name (S3's, DynamoDB's: a cancelled transaction's first
// reason), Google Cloud Storage's HTTP status, Azure's HTTP status and error
// code, a Redis server's error code, a socket's code), for the core to
// classify; and
// the one policy of a guard's end:
//
// - accepted: return;
// - refused: throw the guard's own TinystoreError (StaleError, CorruptError,
//   InvalidError...), with the driver's error as its `cause` when the last
//   step failed in the driver (a missing register table);
// - driver: rethrow the driver's own error unchanged, so that
//   `err.code === '40001'` and `instanceof SqliteError` keep working;
//   isSerializationFailure(err) tells a serialization failure.
const native = require('./native')
const { fromNativeValue } = require('./errors')

/**
 * @typedef {import('../native').NativeDriverFailure} Failure
 * @typedef {import('../native').NativeGuardStep} Step
 * @typedef {{ code?: unknown, severity?: unknown, name?: unknown, Code?: unknown, $metadata?: { httpStatusCode?: unknown }, sqlState?: unknown, errno?: unknown, fatal?: unknown, statusCode?: unknown, CancellationReasons?: unknown, cause?: unknown }} Reported
 */

/**
 * What `err` reports of itself, as the core reads a driver's failure.
 * @param {unknown} err
 * @returns {Failure}
 */
function failureOf(err) {
  const message = err instanceof Error ? err.message : String(err)
  /** @type {Failure} */
  const failure = { message }
  if (err === null || typeof err !== 'object') return failure
  const e = /** @type {Reported} */ (err)
  if (typeof e.sqlState === 'string' && typeof e.errno === 'number' && e.errno > 0) {
    // A MySQL or MariaDB server's error, as mysql2 gives it: the SQLSTATE
    // and the error number (1146, 1213), which the core reads as text.
    if (e.sqlState !== '') failure.sqlstate = e.sqlState
    failure.errorCode = String(e.errno)
    return failure
  }
  const code = typeof e.code === 'string' ? e.code : undefined
  if (code !== undefined && 'severity' in e) failure.sqlstate = code // pg's DatabaseError: a SQLSTATE
  else if (code !== undefined) failure.errorCode = code // better-sqlite3's SQLITE_BUSY, a socket's ECONNREFUSED
  const status = e.$metadata?.httpStatusCode
  if (typeof status === 'number') {
    failure.httpStatus = status // an AWS service error (S3, DynamoDB): its status and name
    if (failure.errorCode === undefined) {
      const named = typeof e.Code === 'string' ? e.Code : e.name
      if (typeof named === 'string') failure.errorCode = named
    }
    if (failure.errorCode === 'TransactionCanceledException' && Array.isArray(e.CancellationReasons)) {
      // A cancelled DynamoDB transaction: its first reason given
      // (TransactionConflict, ConditionalCheckFailed, ThrottlingError).
      const given = e.CancellationReasons.map(r => r?.Code).find(c => typeof c === 'string' && c !== 'None')
      if (given !== undefined) failure.errorCode = given
    }
  } else if (typeof e.statusCode === 'number') {
    failure.httpStatus = e.statusCode // Azure's RestError: its status and error code (ConditionNotMet)
  } else if (typeof e.code === 'number' && e.code >= 100 && e.code < 600) {
    failure.httpStatus = e.code // Google Cloud Storage's ApiError: the HTTP status as its code
  }
  if (failure.httpStatus === undefined && failure.errorCode !== undefined && !/^E[A-Z]+$/.test(failure.errorCode)) {
    // A request that never had an answer, whose own code says so
    // (Azure's REQUEST_SEND_ERROR, gaxios's and the AWS SDK's fetch
    // errors): its cause's socket code when it has one, else "connection".
    if (SENT_NOTHING.has(failure.errorCode)) failure.errorCode = socketCode(e.cause) ?? 'connection'
  }
  return failure
}

/** The codes clients give a request that had no answer (Azure's core-rest-pipeline). */
const SENT_NOTHING = new Set(['REQUEST_SEND_ERROR'])

/**
 * A socket's error code (ECONNREFUSED) in `err` or its causes.
 * @param {unknown} err
 * @returns {string | undefined}
 */
function socketCode(err) {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = /** @type {Reported} */ (e).cause, depth++) {
    const code = /** @type {Reported} */ (e).code
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code
  }
  return undefined
}

/**
 * What a pg error reports: as failureOf, and a connection pg lost, which
 * it reports as an Error without a code ('Connection terminated
 * unexpectedly', '... is not queryable'), is error code "connection".
 * @param {unknown} err
 * @returns {Failure}
 */
function pgFailureOf(err) {
  const failure = failureOf(err)
  if (failure.sqlstate === undefined && failure.errorCode === undefined) failure.errorCode = 'connection'
  return failure
}

/**
 * What a mysql2 error reports: as failureOf (a server's error: its
 * SQLSTATE and number; a socket's: its code, ECONNREFUSED), and a
 * connection mysql2 lost or closed, which it reports as a fatal error
 * without a number ('PROTOCOL_CONNECTION_LOST', "Can't add new command
 * when connection is in closed state"), is error code "connection".
 * @param {unknown} err
 * @returns {Failure}
 */
function mysqlFailureOf(err) {
  const failure = failureOf(err)
  if (failure.sqlstate !== undefined || err === null || typeof err !== 'object') return failure
  const e = /** @type {Reported} */ (err)
  const socket = typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)
  if (!socket && (e.fatal === true || e.code === 'PROTOCOL_CONNECTION_LOST')) failure.errorCode = 'connection'
  return failure
}

/** The names of a Redis server's error replies: ioredis's, node-redis's (v4 to v6). */
const REDIS_REPLIES = new Set(['ReplyError', 'ErrorReply', 'SimpleError', 'BlobError'])

/**
 * What a Redis client's error reports: a server's error reply gives its
 * code, the first word of its text ("WRONGTYPE Operation against a key
 * ...", "NOPERM ...", "LOADING ..."); a socket's error its code
 * (ECONNREFUSED); and a connection the client lost or never had, which
 * ioredis and node-redis report as an Error without a code ('Connection is
 * closed.', 'The client is closed', 'Reached the max retries per
 * request limit'), is error code "connection".
 * @param {unknown} err
 * @returns {Failure}
 */
function redisFailureOf(err) {
  const failure = failureOf(err)
  if (failure.errorCode !== undefined || !(err instanceof Error)) return failure
  if (REDIS_REPLIES.has(err.name) || REDIS_REPLIES.has(err.constructor.name)) {
    const word = err.message.split(' ', 1)[0]
    if (/^[A-Z][A-Z_-]*$/.test(word)) failure.errorCode = word
  } else {
    failure.errorCode = 'connection'
  }
  return failure
}

/**
 * The core's class of the driver's error `err`: "missing_table",
 * "serialization", "permission", "unavailable" or "other".
 * @param {unknown} err
 * @returns {string}
 */
function failureClass(err) {
  return native.guardFailureClass(failureOf(err))
}

/**
 * Whether `err`, a driver's own error that a guard let through, is a
 * serialization failure (pg's 40001 or 40P01, SQLite busy or locked,
 * MySQL's and MariaDB's errors 1213, 1205 and 1020): a
 * concurrent transaction came first; roll back and run it all again.
 * @param {unknown} err
 * @returns {boolean}
 */
function isSerializationFailure(err) {
  return failureClass(err) === 'serialization'
}

/**
 * Gives `err` its cause, as `new Error(message, { cause })` does.
 * @param {Error} err
 * @param {unknown} cause
 */
function withCause(err, cause) {
  Object.defineProperty(err, 'cause', { value: cause, writable: true, configurable: true, enumerable: false })
  return err
}

/**
 * Ends a guard as the policy above says: returns when accepted, else throws.
 * @param {Step} done the machine's `done` step
 * @param {unknown} failed the driver's error the last observation reported, if it failed
 * @param {boolean} didFail whether it failed (an error may be any value)
 * @returns {void}
 */
function concluded(done, failed, didFail) {
  if (done.verdict === 'accepted') return
  if (done.verdict === 'driver' && didFail) throw failed
  const err = fromNativeValue(
    done.error ?? { code: 'internal', message: `a guard ended with ${JSON.stringify(done.verdict)} and no error` },
  )
  throw didFail ? withCause(err, failed) : err
}

module.exports = { failureOf, pgFailureOf, mysqlFailureOf, redisFailureOf, failureClass, isSerializationFailure, concluded }
