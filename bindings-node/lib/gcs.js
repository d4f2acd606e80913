'use strict'
// The guard on Google Cloud Storage, on the caller's own @google-cloud/storage
// `File` (`storage.bucket(b).file(name)`). The fence lives in the object's
// metadata (`tinystore-fence`, 40 digits); a guarded save reads the object's
// generation and fence (File#getMetadata; 404: absent) and saves on that
// generation (File#save with preconditionOpts.ifGenerationMatch, 0 for a new
// object, in one request: resumable false); a 412 means another writer came
// in between. The protocol is the core's (lib/versioned.js drives it).
//
// @google-cloud/storage is an optional peer dependency, never required here:
// the File the caller passes is used as it is, with its client's endpoint,
// credentials and retries.
//
// The client makes a save whose generation condition is set again when an
// attempt's answer is lost (a dropped connection, a timeout, a 5xx or 408):
// File#save asks its Storage's retryOptions.retryableErrorFn, once per
// failed attempt, whether to make it again (a save in one request is
// retried there alone: its request is made with no retries of its own).
// Save's options hold no hook that sees an attempt, so the guard wraps that
// function, once per Storage; the wrapper answers as the caller's function
// does, and does nothing more outside a guarded save (an AsyncLocalStorage
// says which save runs). Each attempt made again tells the machine its
// status (attempted; none when no answer came) before the outcome: after
// no answer, a 5xx or a 408, a larger fence found by the retry is
// `unavailable`, not `stale` (core's rule; a 429 was answered and wrote
// nothing). The guard's reads are not watched.
const { AsyncLocalStorage } = require('node:async_hooks')
const { describe } = require('./convert')
const { InvalidError } = require('./errors')
const { text, underOf } = require('./guard_input')
const { guardedPut, ownMetadata, bytesOf, GCS_METADATA_KEY, MAX_TRIES } = require('./versioned')

/**
 * @typedef {{ getMetadata(): Promise<[{ generation?: unknown, metadata?: Record<string, unknown> | null }, ...unknown[]]>, save(data: unknown, options?: object): Promise<unknown>, name: string, bucket: { name: string } }} GcsFile
 */

/**
 * An HTTP status of a GCS error: its `code` (ApiError's), or its response's;
 * undefined for an attempt that got no answer.
 * @param {unknown} err
 * @returns {number | undefined}
 */
function statusOf(err) {
  if (err === null || typeof err !== 'object') return undefined
  const e = /** @type {{ code?: unknown, response?: { status?: unknown } }} */ (err)
  const status = typeof e.code === 'number' ? e.code : e.response?.status
  return typeof status === 'number' ? status : undefined
}

/** The guarded save running in this async context: its `attempted` callback. */
const attempts = new AsyncLocalStorage()
const WATCHER = Symbol.for('tinystore.guard.gcs.lostAnswers')

/**
 * Wraps, once, the retryableErrorFn of `file`'s Storage (File#save calls it
 * with each failed attempt's error): within a guarded save, each attempt the
 * caller's function makes again calls the save's `attempted` with its
 * status (undefined: no answer came).
 * @param {any} file
 */
function watchAttempts(file) {
  const options = file?.storage?.retryOptions
  if (!options || typeof options.retryableErrorFn !== 'function' || options.retryableErrorFn[WATCHER]) return
  const retryable = options.retryableErrorFn
  /**
   * @this {unknown}
   * @param {unknown} err
   */
  const watched = function (err) {
    const again = retryable.call(this, err)
    const attempted = /** @type {((status: number | undefined) => void) | undefined} */ (attempts.getStore())
    if (again && attempted !== undefined) attempted(statusOf(err))
    return again
  }
  Object.defineProperty(watched, WATCHER, { value: true })
  options.retryableErrorFn = watched
}

/**
 * Saves `data` to `file` with `fence` unless a larger fence is stored
 * there. See index.d.ts.
 * @param {unknown} file
 * @param {unknown} data
 * @param {unknown} fence
 * @param {unknown} [options]
 * @returns {Promise<void>}
 */
async function save(file, data, fence, options) {
  const where = 'guard.gcs.save'
  const f = /** @type {GcsFile} */ (file)
  if (
    file === null ||
    typeof file !== 'object' ||
    typeof f.save !== 'function' ||
    typeof f.getMetadata !== 'function' ||
    f.bucket === null ||
    typeof f.bucket !== 'object'
  ) {
    throw new InvalidError(`${where} takes a File of @google-cloud/storage (bucket.file(name)), not ${describe(file)}`)
  }
  const bucket = text(f.bucket.name, 'the bucket name', where)
  const name = text(f.name, 'the object name', where)
  if (!bucket || !name) throw new InvalidError(`${where}: a guarded save to ${JSON.stringify(`${bucket}/${name}`)} names no bucket or no object; nothing was written`)
  const resource = `${bucket}/${name}`
  const under = underOf(fence, where)
  const body = bytesOf(data, where)
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new InvalidError(`${where} takes its options as { contentType, metadata }, not ${describe(options)}`)
  }
  const o = /** @type {{ contentType?: unknown, metadata?: unknown }} */ (options ?? {})
  const contentType = o.contentType === undefined ? undefined : text(o.contentType, 'contentType', where)
  const mine = ownMetadata('gcs', resource, o.metadata, where)
  await under.checked(resource, 'gcs', () => guardedPut('gcs', resource, under.fence, mine, {
    async read() {
      /** @type {{ generation?: unknown, metadata?: Record<string, unknown> | null }} */
      let got
      try {
        ;[got] = await f.getMetadata()
      } catch (err) {
        if (statusOf(err) === 404) return null
        throw err
      }
      const recorded = got?.metadata?.[GCS_METADATA_KEY]
      return { version: String(got?.generation), fence: typeof recorded === 'string' ? recorded : recorded == null ? null : String(recorded) }
    },
    async put(version, metadata, attempted) {
      /** @type {Record<string, unknown>} */
      const objectMetadata = { metadata }
      if (contentType !== undefined) objectMetadata.contentType = contentType
      watchAttempts(f)
      return attempts.run(attempted, () => f.save(Buffer.from(body.buffer, body.byteOffset, body.byteLength), {
        metadata: objectMetadata,
        preconditionOpts: { ifGenerationMatch: version === null ? 0 : version },
        resumable: false,
      }))
    },
    conditionFailed: err => statusOf(err) === 412,
  }))
}

const gcs = Object.freeze({ save, METADATA_KEY: GCS_METADATA_KEY, MAX_TRIES })

module.exports = { gcs }
