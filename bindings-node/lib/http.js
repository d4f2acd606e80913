'use strict'
// Fences over HTTP. A request carries its fence in the header
// Tinystore-Fence (a decimal). The client side attaches it (fenceHeaders,
// fetch); the service side reads it (middleware: missing is none, malformed
// is 400 with the core parser's message) and answers a StaleError raised by
// the handler with 409 and the largest fence in Tinystore-Fence-Largest
// (errorHandler). The names, the parser and the statuses come from the core.
// The check itself stays a guard inside the handler's own transaction: a
// check made before the handler runs would let a request that pauses in
// between through.
const native = require('./native')
const { describe } = require('./convert')
const { InvalidError, StaleError, TinystoreError, fromNativeValue, mappedSync } = require('./errors')
const { underOf } = require('./guard_input')
const { Lease } = require('./lease')
const otel = require('./otel')

const {
  fenceHeader: FENCE_HEADER,
  largestHeader: LARGEST_HEADER,
  conflict: CONFLICT,
  badRequest: BAD_REQUEST,
} = native.guardHttpConstants()

/**
 * The header that carries `fence`: `{ 'Tinystore-Fence': '<decimal>' }`.
 * @param {unknown} fence
 * @returns {Record<string, string>}
 */
function fenceHeaders(fence) {
  if (typeof fence !== 'bigint') throw new InvalidError(`a fence is a bigint, not ${describe(fence)}`)
  return { [FENCE_HEADER]: mappedSync(() => native.guardHttpValue(fence)) }
}

/**
 * `globalThis.fetch` with `fence` in the request's Tinystore-Fence header
 * (replacing one already there). `fence` is a bigint or the Lease itself.
 * Either way the request is a guard's check seen from the client (backend
 * `http`, the resource the URL's host and path): OpenTelemetry's
 * tinystore.guard.check span (lib/otel.js) sees it accepted, refused (a
 * 409 carrying Tinystore-Fence-Largest: a guard in the service refused the
 * request's write as stale) or failed (no answer, or another 4xx or 5xx).
 * Given the lease, a refusal is also told to its store. The response is
 * returned as it came either way.
 * @param {string | URL | Request} input
 * @param {unknown} fence
 * @param {RequestInit} [init]
 * @returns {Promise<Response>}
 */
async function fencedFetch(input, fence, init) {
  const under = fence instanceof Lease ? underOf(fence, 'http.fetch') : null
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
  for (const [name, value] of Object.entries(fenceHeaders(under ? under.fence : fence))) headers.set(name, value)
  const bigint = /** @type {bigint} */ (under ? under.fence : fence)
  const url = new URL(input instanceof Request ? input.url : String(input))
  const resource = url.host + url.pathname
  /** @type {Response | undefined} */
  let response
  const send = async () => {
    response = await globalThis.fetch(input, { ...init, headers })
    const refused = refusalOf(response, resource, bigint)
    if (refused) throw refused
  }
  try {
    await (under ? under.checked(resource, 'http', send) : otel.checked(resource, bigint, () => 'http', send))
  } catch (err) {
    if (response === undefined) throw err
  }
  return /** @type {Response} */ (response)
}

/**
 * What a guarded request's response says of its write, as the core reads
 * it (the same in every language): undefined when it was accepted; a
 * StaleError for a 409 carrying one fence in Tinystore-Fence-Largest; an
 * `io` TinystoreError saying what the answer was for another 4xx or 5xx,
 * or a 409 without that header or with one that is not a fence.
 * @param {Response} response
 * @param {string} resource
 * @param {bigint} fence
 * @returns {TinystoreError | undefined}
 */
function refusalOf(response, resource, fence) {
  const largest = response.headers.get(LARGEST_HEADER)
  const read = mappedSync(() => native.guardHttpReadAnswer(response.status, largest, resource, fence))
  return read ? fromNativeValue(read) : undefined
}

/**
 * The fence a request carries: undefined when it has no Tinystore-Fence
 * header; an InvalidError naming the header when it is malformed (a
 * header sent twice arrives joined by commas, and is malformed).
 * @param {{ headers: Record<string, string | string[] | undefined> }} req
 * @returns {bigint | undefined}
 */
function readFence(req) {
  const raw = req?.headers?.[FENCE_HEADER.toLowerCase()]
  const value = raw === undefined ? null : Array.isArray(raw) ? raw.join(', ') : String(raw)
  const read = native.guardHttpParse(value)
  if (read.error) throw fromNativeValue(read.error)
  return read.fence ?? undefined
}

/**
 * The status the core gives an error of the guard or of the header (409
 * for stale, 400 for invalid), or undefined for any other.
 * @param {unknown} err
 * @returns {number | undefined}
 */
function statusOf(err) {
  if (!(err instanceof TinystoreError)) return undefined
  return native.guardHttpStatus(err.code) ?? undefined
}

/**
 * @typedef {import('node:http').ServerResponse} Response_
 * @typedef {import('node:http').IncomingMessage & { tinystoreFence?: bigint }} FencedRequest
 */

/**
 * Answers `err` when the core gives it a status: 409 with the largest
 * fence for a StaleError, 400 for an InvalidError, the message as the
 * body. Returns whether it answered.
 * @param {Response_} res
 * @param {unknown} err
 * @returns {boolean}
 */
function answer(res, err) {
  const status = statusOf(err)
  if (status === undefined || !(err instanceof Error)) return false
  if (res.headersSent) return false
  res.statusCode = status
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  if (err instanceof StaleError) res.setHeader(LARGEST_HEADER, native.guardHttpValue(err.largest))
  res.end(`${err.message}\n`)
  return true
}

/**
 * A Connect/Express-style middleware: sets `req.tinystoreFence` (undefined
 * when the request has no fence) and calls `next()`, or answers 400 with
 * the parser's message when the header is malformed.
 * @returns {(req: FencedRequest, res: Response_, next: (err?: unknown) => void) => void}
 */
function middleware() {
  return (req, res, next) => {
    let fence
    try {
      fence = readFence(req)
    } catch (err) {
      if (answer(res, err)) return
      next(err)
      return
    }
    req.tinystoreFence = fence
    next()
  }
}

/**
 * A Connect/Express-style error handler `(err, req, res, next)`: a
 * StaleError becomes 409 with Tinystore-Fence-Largest, an InvalidError
 * 400; any other error goes on to `next(err)`.
 * @returns {(err: unknown, req: FencedRequest, res: Response_, next: (err?: unknown) => void) => void}
 */
function errorHandler() {
  return (err, _req, res, next) => {
    if (!answer(res, err)) next(err)
  }
}

/**
 * A node:http request listener around `handler`: the middleware, then the
 * handler (sync or async), whose errors the error handler answers; any
 * other error is a 500 (its message is not sent) and goes to `onError`.
 * @param {(req: FencedRequest, res: Response_) => unknown} handler
 * @param {(err: unknown) => void} [onError]
 * @returns {(req: import('node:http').IncomingMessage, res: Response_) => void}
 */
function fenced(handler, onError) {
  if (typeof handler !== 'function') throw new InvalidError(`http.fenced takes a handler function, not ${describe(handler)}`)
  const read = middleware()
  const handle = errorHandler()
  return (req, res) => {
    /** @param {unknown} err */
    const fail = err => {
      handle(err, req, res, other => {
        onError?.(other)
        if (!res.headersSent) res.statusCode = 500
        res.end()
      })
    }
    read(req, res, err => {
      if (err !== undefined) return fail(err)
      try {
        Promise.resolve(handler(req, res)).catch(fail)
      } catch (thrown) {
        fail(thrown)
      }
    })
  }
}

const http = Object.freeze({
  FENCE_HEADER,
  LARGEST_HEADER,
  CONFLICT,
  BAD_REQUEST,
  fenceHeaders,
  fetch: fencedFetch,
  readFence,
  statusOf,
  middleware,
  errorHandler,
  fenced,
})

module.exports = { http, fenceHeaders }
