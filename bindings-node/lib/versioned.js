'use strict'
// The guard on object stores that compare versions (lib/gcs.js: Google Cloud
// Storage's generations; lib/azure.js: Azure Blob Storage's ETags): the
// core's NativeVersionedCheck driven on the caller's own client. The
// machine asks for a read (the object's version and fence metadata, or
// absent) and a put on the condition that the object is still that
// version (or still absent); a failed condition makes it read again, at
// most MAX_TRIES puts. Each store's file says how to read and put; this
// one reports the answers and ends as lib/guard_driver.js's policy says.
const native = require('./native')
const { InvalidError, TinystoreInternalError, mappedSync } = require('./errors')
const { text } = require('./guard_input')
const { describe } = require('./convert')
const { failureOf, concluded } = require('./guard_driver')

const { gcsMetadataKey: GCS_METADATA_KEY, azureMetadataKey: AZURE_METADATA_KEY, maxTries: MAX_TRIES } = native.guardVersionedConstants()

/**
 * @typedef {import('../native').NativeVersionedStep} Step
 * @typedef {{ version: string, fence: string | null } | null} Read the object's version and fence, or null when absent
 * @typedef {{ read(): Promise<Read>, put(version: string | null, metadata: Record<string, string>, attempted: (status: number | undefined) => void): Promise<unknown>, conditionFailed(err: unknown): boolean }} Store
 */

/**
 * The caller's own metadata: an object of string values, none under the
 * guard's own key (in any case or spelling), or an InvalidError.
 * @param {'gcs' | 'azure'} store
 * @param {string} resource
 * @param {unknown} metadata
 * @param {string} where
 * @returns {Record<string, string>}
 */
function ownMetadata(store, resource, metadata, where) {
  if (metadata === undefined || metadata === null) return {}
  if (typeof metadata !== 'object' || Array.isArray(metadata) || metadata instanceof Map) {
    throw new InvalidError(`${where}: metadata must be an object of string values, not ${describe(metadata)}`)
  }
  /** @type {Record<string, string>} */
  const out = {}
  for (const [k, v] of Object.entries(metadata)) {
    text(k, 'a metadata key', where)
    if (typeof v !== 'string') throw new InvalidError(`${where}: metadata ${JSON.stringify(k)} must be a string, not ${describe(v)}`)
    out[k] = text(v, `metadata ${JSON.stringify(k)}`, where)
  }
  mappedSync(() => native.guardVersionedCheckMetadata(store, resource, Object.keys(out)))
  return out
}

/**
 * The body as bytes: a string is written as UTF-8.
 * @param {unknown} body
 * @param {string} where
 * @returns {Uint8Array}
 */
function bytesOf(body, where) {
  if (typeof body === 'string') return Buffer.from(text(body, 'body', where), 'utf8')
  if (body instanceof Uint8Array) return body
  throw new InvalidError(`${where}: the body must be a string or a Uint8Array, not ${describe(body)}`)
}

/**
 * Drives one guarded put of `fence` to `resource` on `store` (`gcs` or
 * `azure`), with the caller's `metadata` beside the fence; resolves to the
 * last put's answer when accepted, else rejects as the policy says.
 * @param {'gcs' | 'azure'} kind
 * @param {string} resource
 * @param {bigint} fence
 * @param {Record<string, string>} metadata
 * @param {Store} store
 * @returns {Promise<unknown>}
 */
async function guardedPut(kind, resource, fence, metadata, store) {
  const machine = mappedSync(() => new native.NativeVersionedCheck(kind, resource, fence))
  let step = mappedSync(() => machine.start())
  /** @type {unknown} */
  let output
  /** @type {unknown} */
  let failed
  let didFail = false
  while (step.kind !== 'done') {
    const current = step
    didFail = false
    /** @type {() => Step} */
    let observed
    try {
      if (current.kind === 'read') {
        const read = await store.read()
        observed = read === null ? () => machine.absent() : () => machine.found(read.version, read.fence)
      } else if (current.kind === 'put') {
        const key = /** @type {string} */ (current.metadataKey)
        // `attempted`: an attempt of the put that the store's client made
        // again got this status (undefined: no answer came).
        const attempted = (/** @type {number | undefined} */ status) => mappedSync(() => machine.attempted(status))
        output = await store.put(current.version ?? null, { ...metadata, [key]: /** @type {string} */ (current.fence) }, attempted)
        observed = () => machine.written()
      } else {
        throw new TinystoreInternalError(`the ${kind} guard was given a step it does not make: ${current.kind}`)
      }
    } catch (err) {
      if (err instanceof TinystoreInternalError) throw err
      if (current.kind === 'put' && store.conditionFailed(err)) {
        observed = () => machine.conditionFailed()
      } else {
        ;[failed, didFail] = [err, true]
        const failure = failureOf(err)
        observed = () => machine.failed(failure)
      }
    }
    step = mappedSync(observed)
  }
  concluded(step, failed, didFail)
  return output
}

module.exports = { guardedPut, ownMetadata, bytesOf, GCS_METADATA_KEY, AZURE_METADATA_KEY, MAX_TRIES }
