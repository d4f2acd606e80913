'use strict'
// The guard on S3 and S3-compatible object storage, on the user's own
// @aws-sdk/client-s3 S3Client. A guarded object is one object per fence
// under its key (KEY/tinystore-fence/<40 digits>), read back by the
// largest. The protocol is the core's machines (NativeObjectWrite for a
// put or a delete's tombstone, NativeObjectRead for a read): each gives a
// request (list, put, delete, get), this file makes it and reports the
// answer or the SDK's error; the machine decides. Its end follows the one
// policy of lib/guard_driver.js.
//
// @aws-sdk/client-s3 is an optional peer dependency: this file requires it
// only on the first guarded call, for its command classes, which it sends
// through the client's own `send` (so any S3Client works, whichever copy
// of the SDK made it, with its endpoint, credentials and middleware).
const native = require('./native')
const { describe } = require('./convert')
const { InvalidError, TinystoreInternalError, mappedSync } = require('./errors')
const { text, underOf } = require('./guard_input')
const { failureOf, concluded } = require('./guard_driver')

const { metadataKey: METADATA_KEY, tombstoneKey: TOMBSTONE_KEY, maxTries: MAX_TRIES } = native.guardObjectConstants()

/**
 * @typedef {import('../native').NativeGuardStep} Step
 * @typedef {import('../native').NativeGuardObserved} Observed
 * @typedef {{ send(command: unknown, options?: unknown): Promise<any> }} S3ClientLike
 * @typedef {new (input: object) => unknown} Command
 * @typedef {{ ListObjectsV2Command: Command, PutObjectCommand: Command, DeleteObjectCommand: Command, GetObjectCommand: Command }} Commands
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
 * The checked client, bucket and key of `options`.
 * @param {unknown} client
 * @param {unknown} options
 * @param {string} where
 */
function target(client, options, where) {
  if (client === null || typeof client !== 'object' || typeof (/** @type {any} */ (client).send) !== 'function') {
    throw new InvalidError(`${where} takes an S3Client of @aws-sdk/client-s3 (with a send method), not ${describe(client)}`)
  }
  if (options === null || typeof options !== 'object') {
    throw new InvalidError(`${where} takes { bucket, key, ... }, not ${describe(options)}`)
  }
  const o = /** @type {Record<string, unknown>} */ (options)
  return {
    client: /** @type {S3ClientLike} */ (client),
    bucket: text(o.bucket, 'bucket', where),
    key: text(o.key, 'key', where),
    o,
  }
}

/**
 * The body as bytes: a string is written as UTF-8.
 * @param {unknown} body
 * @returns {Uint8Array}
 */
function bytesOf(body) {
  if (typeof body === 'string') return Buffer.from(text(body, 'body', 'guard.s3.put'), 'utf8')
  if (body instanceof Uint8Array) return body
  throw new InvalidError(`guard.s3.put: body must be a string or a Uint8Array, not ${describe(body)}`)
}

/**
 * The caller's own metadata (the core refuses the guard's own keys).
 * @param {unknown} metadata
 * @returns {Record<string, string>}
 */
function ownMetadata(metadata) {
  if (metadata === undefined || metadata === null) return {}
  if (typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new InvalidError(`guard.s3.put: metadata must be an object of string values, not ${describe(metadata)}`)
  }
  /** @type {Record<string, string>} */
  const out = {}
  for (const [k, v] of Object.entries(metadata)) {
    text(k, 'a metadata key', 'guard.s3.put')
    if (typeof v !== 'string') throw new InvalidError(`guard.s3.put: metadata ${JSON.stringify(k)} must be a string, not ${describe(v)}`)
    out[k] = text(v, `metadata ${JSON.stringify(k)}`, 'guard.s3.put')
  }
  return out
}

/** The PutObject parameters a caller may add (the guard sets the others). */
const PASSED = ['contentType', 'cacheControl', 'contentDisposition', 'contentEncoding']

/**
 * @param {Record<string, unknown>} o
 * @returns {Record<string, string>}
 */
function passed(o) {
  /** @type {Record<string, string>} */
  const params = {}
  for (const name of PASSED) {
    if (o[name] === undefined) continue
    if (typeof o[name] !== 'string') throw new InvalidError(`guard.s3.put: ${name} must be a string, not ${describe(o[name])}`)
    params[name[0].toUpperCase() + name.slice(1)] = /** @type {string} */ (o[name])
  }
  return params
}

/**
 * Every key under `prefix`, all pages.
 * @param {S3ClientLike} client
 * @param {string} bucket
 * @param {string} prefix
 * @returns {Promise<string[]>}
 */
async function listed(client, bucket, prefix) {
  /** @type {string[]} */
  const keys = []
  /** @type {string | undefined} */
  let token
  do {
    const page = await client.send(new (sdk().ListObjectsV2Command)({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }))
    for (const object of page?.Contents ?? []) if (typeof object?.Key === 'string') keys.push(object.Key)
    token = page?.IsTruncated ? page.NextContinuationToken : undefined
  } while (token)
  return keys
}

/**
 * Drives `machine`, making each request it gives with `requests[kind]`;
 * resolves when it ends accepted, else rejects as the policy says.
 * @param {{ start(): Step, observe(observed: Observed): Step }} machine
 * @param {Record<string, (step: Step) => Promise<Observed>>} requests
 * @returns {Promise<void>}
 */
async function drive(machine, requests) {
  let step = mappedSync(() => machine.start())
  let failed
  let didFail = false
  while (step.kind !== 'done') {
    const request = requests[step.kind]
    if (!request) throw new TinystoreInternalError(`the S3 guard was given a step it does not make: ${step.kind}`)
    /** @type {Observed} */
    let observed
    didFail = false
    try {
      observed = await request(step)
    } catch (err) {
      ;[failed, didFail] = [err, true]
      observed = { kind: 'failed', failure: failureOf(err) }
    }
    step = mappedSync(() => machine.observe(observed))
  }
  concluded(step, failed, didFail)
}

/**
 * A guarded write (`machine`: a put or a tombstone) of `body`; resolves to
 * the SDK's PutObject output of its fence's object.
 * @param {S3ClientLike} client
 * @param {string} bucket
 * @param {import('../native').NativeObjectWrite} machine
 * @param {Uint8Array} body
 * @param {Record<string, string>} params
 */
async function write(client, bucket, machine, body, params) {
  /** @type {unknown} */
  let output
  await drive(machine, {
    list: async step => ({ kind: 'listed', keys: await listed(client, bucket, /** @type {string} */ (step.prefix)) }),
    put: async step => {
      output = await client.send(new (sdk().PutObjectCommand)({ ...params, Bucket: bucket, Key: step.key, Body: body, Metadata: step.metadata }))
      return { kind: 'written' }
    },
    delete: async step => {
      await client.send(new (sdk().DeleteObjectCommand)({ Bucket: bucket, Key: step.key }))
      return { kind: 'deleted' }
    },
  })
  return output
}

/**
 * Writes `body` with `fence` to `bucket/key` unless a larger fence is
 * stored there. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} options
 */
async function put(client, options) {
  const t = target(client, options, 'guard.s3.put')
  const body = bytesOf(t.o.body)
  const under = underOf(t.o.fence, 'guard.s3.put')
  const metadata = ownMetadata(t.o.metadata)
  const params = passed(t.o)
  return under.checked(`${t.bucket}/${t.key}`, 's3', () => {
    const machine = mappedSync(() => new native.NativeObjectWrite(t.bucket, t.key, under.fence, metadata, false))
    return write(t.client, t.bucket, machine, body, params)
  })
}

/**
 * Deletes `bucket/key` with `fence` unless a larger fence is stored there:
 * an empty tombstone that keeps the fence. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} options
 */
async function del(client, options) {
  const t = target(client, options, 'guard.s3.delete')
  const under = underOf(t.o.fence, 'guard.s3.delete')
  return under.checked(`${t.bucket}/${t.key}`, 's3', () => {
    const machine = mappedSync(() => new native.NativeObjectWrite(t.bucket, t.key, under.fence, null, true))
    return write(t.client, t.bucket, machine, new Uint8Array(0), {})
  })
}

/**
 * Reads `bucket/key` as the guard keeps it: the largest fence's object, as
 * `{ body, fence, metadata }`, or null when there is none. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} bucket
 * @param {unknown} key
 * @returns {Promise<{ body: Uint8Array, fence: bigint, metadata: Record<string, string> } | null>}
 */
async function get(client, bucket, key) {
  const t = target(client, { bucket, key }, 'guard.s3.get')
  const machine = mappedSync(() => new native.NativeObjectRead(t.bucket, t.key))
  /** @type {{ body: Uint8Array, metadata: Record<string, string> } | undefined} */
  let read
  await drive(machine, {
    list: async step => ({ kind: 'listed', keys: await listed(t.client, t.bucket, /** @type {string} */ (step.prefix)) }),
    get: async step => {
      const got = await t.client.send(new (sdk().GetObjectCommand)({ Bucket: t.bucket, Key: step.key }))
      /** @type {Record<string, string>} */
      const metadata = got?.Metadata ?? {}
      read = { body: await bodyOf(got?.Body), metadata }
      return { kind: 'got', metadata }
    },
  })
  const fence = machine.found()
  if (fence === null || read === undefined) return null
  const own = Object.entries(read.metadata).filter(([k]) => ![METADATA_KEY, TOMBSTONE_KEY].includes(k.toLowerCase()))
  return { body: read.body, fence, metadata: Object.fromEntries(own) }
}

/**
 * A GetObject body's bytes.
 * @param {unknown} body
 * @returns {Promise<Uint8Array>}
 */
async function bodyOf(body) {
  const stream = /** @type {{ transformToByteArray?: () => Promise<Uint8Array> } | undefined} */ (body)
  return typeof stream?.transformToByteArray === 'function' ? stream.transformToByteArray() : new Uint8Array(0)
}

const s3 = Object.freeze({ put, delete: del, get, METADATA_KEY, TOMBSTONE_KEY, MAX_TRIES })

module.exports = { s3 }
