'use strict'
// The guard on S3 and S3-compatible object storage, on the user's own
// @aws-sdk/client-s3 S3Client. The fence lives in the object's metadata
// (tinystore-fence, 40 digits). A put reads the object's fence and ETag (a
// HEAD), asks the core to decide, and writes with the condition it gives
// (If-None-Match: * or If-Match on the ETag read); a 412 (or 409
// ConditionalRequestConflict) means another writer came in between: read
// and decide again, the core's MAX_TRIES in all. A delete is a put of an
// empty tombstone (tinystore-deleted: true), so the fence stays.
//
// @aws-sdk/client-s3 is an optional peer dependency: this file requires it
// only on the first guarded put, for its HeadObjectCommand and
// PutObjectCommand classes, which it sends through the client's own
// `send` (so any S3Client works, whichever copy of the SDK made it).
const { createHash } = require('node:crypto')
const native = require('./native')
const { describe, fenceText } = require('./convert')
const { InvalidError, fromNativeValue, mappedSync } = require('./errors')

const { metadataKey: METADATA_KEY, tombstoneKey: TOMBSTONE_KEY, maxTries: MAX_TRIES } = native.guardObjectConstants()

/**
 * @typedef {{ send(command: unknown, options?: unknown): Promise<any> }} S3ClientLike
 * @typedef {{ HeadObjectCommand: new (input: object) => unknown, PutObjectCommand: new (input: object) => unknown }} Commands
 */

/** @type {Commands | undefined} */
let commands

/** The SDK's command classes, required on first use. @returns {Commands} */
function sdk() {
  if (!commands) {
    try {
      commands = /** @type {Commands} */ (require('@aws-sdk/client-s3'))
    } catch (err) {
      throw new InvalidError(
        'guard.s3 needs the package @aws-sdk/client-s3 (an optional peer dependency of tinystore): npm install @aws-sdk/client-s3',
        { cause: err },
      )
    }
  }
  return commands
}

/**
 * The SDK error's name and HTTP status, as text (empty for anything else).
 * @param {unknown} err
 * @returns {Set<string>}
 */
function errorCodes(err) {
  const codes = new Set()
  if (err !== null && typeof err === 'object') {
    const e = /** @type {{ name?: unknown, Code?: unknown, $metadata?: { httpStatusCode?: unknown } }} */ (err)
    if (typeof e.name === 'string') codes.add(e.name)
    if (typeof e.Code === 'string') codes.add(e.Code)
    const status = e.$metadata?.httpStatusCode
    if (typeof status === 'number') codes.add(String(status))
  }
  return codes
}

/** @param {Set<string>} codes @param {string[]} any */
const hasAny = (codes, any) => any.some(c => codes.has(c))

/** The answers of a conditional PUT whose condition another writer broke. */
const RACED = ['PreconditionFailed', 'ConditionalRequestConflict', '412', '409']

/**
 * The checked client, bucket, key and fence; the resource "bucket/key".
 * @param {unknown} client
 * @param {unknown} options
 * @param {string} where
 */
function checked(client, options, where) {
  if (client === null || typeof client !== 'object' || typeof (/** @type {any} */ (client).send) !== 'function') {
    throw new InvalidError(`${where} takes an S3Client of @aws-sdk/client-s3 (with a send method), not ${describe(client)}`)
  }
  if (options === null || typeof options !== 'object') {
    throw new InvalidError(`${where} takes { bucket, key, ..., fence }, not ${describe(options)}`)
  }
  const o = /** @type {Record<string, unknown>} */ (options)
  for (const name of ['bucket', 'key']) {
    if (typeof o[name] !== 'string') throw new InvalidError(`${where}: ${name} must be a string, not ${describe(o[name])}`)
    if (o[name] === '') throw new InvalidError(`${where}: ${name} is empty`)
  }
  const bucket = /** @type {string} */ (o.bucket)
  const key = /** @type {string} */ (o.key)
  const resource = `${bucket}/${key}`
  const bad = native.guardCheckResource(resource)
  if (bad) throw fromNativeValue(bad)
  const text = fenceText(/** @type {bigint} */ (o.fence)) // InvalidError for a non-bigint or one out of range
  return { client: /** @type {S3ClientLike} */ (client), bucket, key, resource, fence: /** @type {bigint} */ (o.fence), text }
}

/**
 * The body as bytes: a string is written as UTF-8.
 * @param {unknown} body
 * @returns {Uint8Array}
 */
function bytesOf(body) {
  if (typeof body === 'string') return Buffer.from(body, 'utf8')
  if (body instanceof Uint8Array) return body
  throw new InvalidError(
    `guard.s3.put: body must be a string or a Uint8Array (the guard hashes it whole: S3's ETag is its MD5), not ${describe(body)}`,
  )
}

/**
 * The user's own metadata for a guarded put of `resource`; the core
 * refuses one of the guard's own keys.
 * @param {string} resource
 * @param {unknown} metadata
 * @returns {Record<string, string>}
 */
function ownMetadata(resource, metadata) {
  if (metadata === undefined || metadata === null) return {}
  if (typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new InvalidError(`guard.s3.put: metadata must be an object of string values, not ${describe(metadata)}`)
  }
  /** @type {Record<string, string>} */
  const out = {}
  for (const [k, v] of Object.entries(metadata)) {
    if (typeof v !== 'string') throw new InvalidError(`guard.s3.put: metadata ${JSON.stringify(k)} must be a string, not ${describe(v)}`)
    out[k] = v
  }
  const refused = native.guardObjectCheckMetadata(resource, Object.keys(out))
  if (refused) throw fromNativeValue(refused)
  return out
}

/**
 * The object's ETag and tinystore-fence metadata, or null when there is none.
 * @param {S3ClientLike} client
 * @param {string} bucket
 * @param {string} key
 * @param {string} resource
 * @returns {Promise<import('../native').NativeStoredObject | null>}
 */
async function head(client, bucket, key, resource) {
  let got
  try {
    got = await client.send(new (sdk().HeadObjectCommand)({ Bucket: bucket, Key: key }))
  } catch (err) {
    const codes = errorCodes(err)
    if (hasAny(codes, ['404', 'NotFound', 'NoSuchKey'])) return null
    if (hasAny(codes, ['403', 'Forbidden', 'AccessDenied'])) {
      const refused = fromNativeValue(native.guardObjectHeadRefused(resource, 403))
      refused.cause = err
      throw refused
    }
    throw err
  }
  /** @type {Record<string, string>} */
  const stored = got?.Metadata ?? {}
  const found = Object.entries(stored).find(([k]) => k.toLowerCase() === METADATA_KEY)
  return { etag: String(got?.ETag), fence: found ? found[1] : undefined }
}

/**
 * The guarded put itself: read, decide, write; again on a race.
 * @param {ReturnType<typeof checked>} c
 * @param {Uint8Array} body
 * @param {Record<string, string>} extra
 * @param {Record<string, unknown>} params
 */
async function guardedPut(c, body, extra, params) {
  const md5 = createHash('md5').update(body).digest('hex')
  const Metadata = { ...extra, [METADATA_KEY]: c.text }
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const stored = await head(c.client, c.bucket, c.key, c.resource)
    const decision = mappedSync(() => native.guardObjectDecide(c.resource, c.fence, stored, md5))
    if (decision.error) throw fromNativeValue(decision.error)
    const condition = decision.create ? { IfNoneMatch: '*' } : { IfMatch: decision.ifMatch }
    try {
      return await c.client.send(
        new (sdk().PutObjectCommand)({ ...params, Bucket: c.bucket, Key: c.key, Body: body, Metadata, ...condition }),
      )
    } catch (err) {
      if (hasAny(errorCodes(err), RACED)) continue // another writer came in between: read and decide again
      throw err
    }
  }
  throw fromNativeValue(native.guardObjectTooManyRaces(c.resource))
}

/** The PutObject parameters a caller may add (the guard sets the others). */
const PASSED = ['contentType', 'cacheControl', 'contentDisposition', 'contentEncoding']

/**
 * Writes `body` to `bucket/key` with `fence` unless a larger fence is
 * stored there. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} options
 */
async function put(client, options) {
  const c = checked(client, options, 'guard.s3.put')
  const o = /** @type {Record<string, unknown>} */ (options)
  const body = bytesOf(o.body)
  const extra = ownMetadata(c.resource, o.metadata)
  /** @type {Record<string, unknown>} */
  const params = {}
  for (const name of PASSED) {
    if (o[name] === undefined) continue
    if (typeof o[name] !== 'string') throw new InvalidError(`guard.s3.put: ${name} must be a string, not ${describe(o[name])}`)
    params[name[0].toUpperCase() + name.slice(1)] = o[name]
  }
  return guardedPut(c, body, extra, params)
}

/**
 * Deletes `bucket/key` under `fence` by writing an empty tombstone that
 * keeps the fence. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} options
 */
async function del(client, options) {
  const c = checked(client, options, 'guard.s3.delete')
  return guardedPut(c, new Uint8Array(0), { [TOMBSTONE_KEY]: 'true' }, {})
}

const s3 = Object.freeze({ put, delete: del, METADATA_KEY, TOMBSTONE_KEY, MAX_TRIES })

module.exports = { s3 }
