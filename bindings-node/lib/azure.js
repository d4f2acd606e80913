'use strict'
// The guard on Azure Blob Storage, on the caller's own @azure/storage-blob
// BlockBlobClient (`containerClient.getBlockBlobClient(name)`). The fence
// lives in the blob's metadata (`tinystore_fence`, 40 digits: Azure's
// metadata names are C# identifiers, compared ignoring case); a guarded
// upload reads the blob's ETag and fence (getProperties; 404: absent) and
// uploads on that ETag (upload with conditions { ifMatch }, or
// { ifNoneMatch: '*' } for a new blob: one Put Blob); a 412 ConditionNotMet
// or a 409 BlobAlreadyExists means another writer came in between. The
// protocol is the core's (lib/versioned.js drives it).
//
// @azure/storage-blob is an optional peer dependency, never required here:
// the client the caller passes is used as it is, with its credentials,
// retries and pipeline.
//
// The client makes an upload again when an attempt's answer is lost (a
// dropped connection, a timeout, a 5xx or 408). The guard adds to the
// client's pipeline, once, a policy of its own below the retry policy (so
// it sees each attempt), which does nothing outside a guarded upload (an
// AsyncLocalStorage says which upload runs) and tells the machine each
// attempt's status (attempted; none when no answer came) before the
// outcome: after no answer, a 5xx or a 408, a larger fence found by the
// retry is `unavailable`, not `stale` (core's rule; a 429 was answered and
// wrote nothing).
const { AsyncLocalStorage } = require('node:async_hooks')
const { describe } = require('./convert')
const { InvalidError } = require('./errors')
const { text, underOf } = require('./guard_input')
const { guardedPut, ownMetadata, bytesOf, AZURE_METADATA_KEY, MAX_TRIES } = require('./versioned')

/**
 * @typedef {{ upload(body: unknown, contentLength: number, options?: object): Promise<unknown>, getProperties(options?: object): Promise<{ etag?: string, metadata?: Record<string, string> }>, containerName: string, name: string }} BlockBlob
 */

/**
 * An Azure error's status and code (RestError's statusCode and code).
 * @param {unknown} err
 */
function answerOf(err) {
  const e = /** @type {{ statusCode?: unknown, code?: unknown } | null} */ (err !== null && typeof err === 'object' ? err : null)
  return { status: e?.statusCode, code: e?.code }
}

/** The guarded upload running in this async context: its `attempted` callback. */
const attempts = new AsyncLocalStorage()
const WATCHER = 'tinystoreGuardLostAnswers'

/**
 * Adds the guard's per-attempt policy to `blob`'s pipeline (the core-client
 * ServiceClient's, storageClientContext.pipeline), once per pipeline.
 * @param {any} blob
 */
function watchAttempts(blob) {
  const pipeline = blob?.storageClientContext?.pipeline
  if (!pipeline || typeof pipeline.addPolicy !== 'function' || typeof pipeline.getOrderedPolicies !== 'function') return
  if (pipeline.getOrderedPolicies().some((/** @type {{ name?: string }} */ p) => p.name === WATCHER)) return
  pipeline.addPolicy({
    name: WATCHER,
    async sendRequest(/** @type {any} */ request, /** @type {(r: any) => Promise<any>} */ next) {
      const attempted = /** @type {((status: number | undefined) => void) | undefined} */ (attempts.getStore())
      if (attempted === undefined) return next(request)
      let response
      try {
        response = await next(request)
      } catch (err) {
        attempted(undefined)
        throw err
      }
      const status = response?.status
      attempted(typeof status === 'number' ? status : undefined)
      return response
    },
  }, { afterPhase: 'Retry' })
}

/**
 * Uploads `body` to `blob` with `fence` unless a larger fence is stored
 * there. See index.d.ts.
 * @param {unknown} blob
 * @param {unknown} body
 * @param {unknown} fence
 * @param {unknown} [options]
 * @returns {Promise<unknown>}
 */
async function upload(blob, body, fence, options) {
  const where = 'guard.azure.upload'
  const b = /** @type {BlockBlob} */ (blob)
  if (blob === null || typeof blob !== 'object' || typeof b.upload !== 'function' || typeof b.getProperties !== 'function') {
    throw new InvalidError(`${where} takes a BlockBlobClient of @azure/storage-blob (containerClient.getBlockBlobClient(name)), not ${describe(blob)}`)
  }
  const container = text(b.containerName, 'the container name', where)
  const name = text(b.name, 'the blob name', where)
  if (!container || !name) throw new InvalidError(`${where}: a guarded upload to ${JSON.stringify(`${container}/${name}`)} names no container or no blob; nothing was written`)
  const resource = `${container}/${name}`
  const under = underOf(fence, where)
  const bytes = bytesOf(body, where)
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new InvalidError(`${where} takes upload's options (BlockBlobUploadOptions), not ${describe(options)}`)
  }
  const { metadata, ...rest } = /** @type {{ metadata?: unknown, conditions?: unknown }} */ (options ?? {})
  const mine = ownMetadata('azure', resource, metadata, where)
  if (rest.conditions !== undefined) {
    throw new InvalidError(`${where}: a guarded upload to ${JSON.stringify(resource)} sets its own conditions, not yours (options.conditions); nothing was written`)
  }
  return under.checked(resource, 'azure', () => guardedPut('azure', resource, under.fence, mine, {
    async read() {
      /** @type {{ etag?: string, metadata?: Record<string, string> }} */
      let props
      try {
        props = await b.getProperties()
      } catch (err) {
        if (answerOf(err).status === 404) return null
        throw err
      }
      // Azure keeps metadata names as written but compares them ignoring case.
      const found = Object.entries(props.metadata ?? {}).find(([k]) => k.toLowerCase() === AZURE_METADATA_KEY)
      return { version: String(props.etag), fence: found === undefined ? null : String(found[1]) }
    },
    put: (version, metadata, attempted) => {
      watchAttempts(b)
      return attempts.run(attempted, () => b.upload(bytes, bytes.byteLength, {
        ...rest,
        metadata,
        conditions: version === null ? { ifNoneMatch: '*' } : { ifMatch: version },
      }))
    },
    conditionFailed(err) {
      // 412 ConditionNotMet for ifMatch; 409 BlobAlreadyExists for ifNoneMatch: '*'.
      const { status, code } = answerOf(err)
      return status === 412 || (status === 409 && code === 'BlobAlreadyExists')
    },
  }))
}

const azure = Object.freeze({ upload, METADATA_KEY: AZURE_METADATA_KEY, MAX_TRIES })

module.exports = { azure }
