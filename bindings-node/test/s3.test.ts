// The S3 guard (guard.s3) against moto's real S3 server on loopback, at
// $TINYSTORE_S3_URL (tests/guards/with-s3.sh): every object_guard case of
// vectors/behaviour.json, puts that lose a race to a real second writer
// (sent from the client's middleware stack between the HEAD and the PUT)
// and decide again, the delete's tombstone, bad input, and a HEAD refused
// with 403 (by a node:http server on loopback). Without the URL these
// tests skip, unless TINYSTORE_REQUIRE_S3=1 (make test-node).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { test } from 'node:test'
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import {
  InvalidError,
  LimitError,
  StaleError,
  TinystoreError,
  UnauthorizedError,
  errorClasses,
  fenceText,
  guard,
  parseFence,
} from 'tinystore'
import { repo } from './helpers'

const url = process.env.TINYSTORE_S3_URL
if (!url && process.env.TINYSTORE_REQUIRE_S3 === '1') {
  throw new Error('TINYSTORE_S3_URL is unset, and TINYSTORE_REQUIRE_S3=1 forbids skipping the S3 guard tests')
}
const s3Test = url ? test : test.skip

function client(endpoint = url ?? 'http://127.0.0.1:1'): S3Client {
  return new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  })
}

let buckets = 0
/** A new bucket of its own. */
async function bucket(s3: S3Client): Promise<string> {
  const name = `node-${process.pid}-${++buckets}`
  await s3.send(new CreateBucketCommand({ Bucket: name }))
  return name
}

/** The object's body and metadata, or null when there is none. */
async function read(s3: S3Client, Bucket: string, Key: string): Promise<{ body: string; meta: Record<string, string> } | null> {
  try {
    const got = await s3.send(new GetObjectCommand({ Bucket, Key }))
    return { body: (await got.Body?.transformToString()) ?? '', meta: got.Metadata ?? {} }
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return null
    throw err
  }
}

interface Case {
  id: string
  key: string
  hasStored: boolean
  stored: string | null
  storedBody: string
  fence: bigint
  expect: string
  storedAfter?: string
  largest?: bigint
  messageHas?: string
}

function cases(): Case[] {
  const all = JSON.parse(readFileSync(path.join(repo, 'vectors', 'behaviour.json'), 'utf8'))
  const raw: Record<string, unknown>[] = all.object_guard.cases
  assert.ok(raw.length >= 10, 'the object_guard vectors have lost cases')
  return raw.map(v => ({
    id: v.id as string,
    key: (v.key as string | undefined) ?? 'chats/42.json',
    hasStored: 'stored' in v,
    stored: (v.stored as string | null | undefined) ?? null,
    storedBody: (v.stored_body as string | undefined) ?? 'old',
    fence: parseFence(v.fence as string),
    expect: v.expect as string,
    storedAfter: v.stored_after as string | undefined,
    largest: v.largest === undefined ? undefined : parseFence(v.largest as string),
    messageHas: v.message_has as string | undefined,
  }))
}

s3Test('every object_guard vector, against moto', async () => {
  const s3 = client()
  for (const c of cases()) {
    const Bucket = await bucket(s3)
    if (c.hasStored) {
      const Metadata: Record<string, string> = c.stored === null ? {} : { 'tinystore-fence': c.stored }
      await s3.send(new PutObjectCommand({ Bucket, Key: c.key, Body: c.storedBody, Metadata }))
    }
    const before = await read(s3, Bucket, c.key)
    let err: unknown
    try {
      await guard.s3.put(s3, { bucket: Bucket, key: c.key, body: 'new', fence: c.fence })
    } catch (e) {
      err = e
    }
    const after = await read(s3, Bucket, c.key)
    if (c.expect === 'written') {
      assert.equal(err, undefined, `${c.id}: refused: ${err}`)
      assert.equal(after?.body, 'new', c.id)
      assert.equal(after?.meta['tinystore-fence'], c.storedAfter, c.id)
      continue
    }
    assert.ok(err instanceof TinystoreError, `${c.id}: ${err}`)
    const want = errorClasses[c.expect as keyof typeof errorClasses]
    assert.ok(want, `${c.id}: unknown code ${c.expect}`)
    assert.ok(err instanceof want, `${c.id}: ${err.name}: ${err.message}`)
    assert.equal(err.code, c.expect, c.id)
    if (c.messageHas !== undefined) assert.ok(err.message.includes(c.messageHas), `${c.id}: ${err.message}`)
    if (c.largest !== undefined) {
      assert.ok(err instanceof StaleError, c.id)
      assert.deepEqual([err.resource, err.fence, err.largest], [`${Bucket}/${c.key}`, c.fence, c.largest], c.id)
    }
    assert.deepEqual(after, before, `${c.id}: a refused put changed the object`)
  }
})

/**
 * A client whose PUTs of `key` first let `interlope` run (a real second
 * writer, through another client) on the tries `on` says; counts its
 * HEADs and PUTs.
 */
function racedClient(on: (put: number) => boolean, interlope: () => Promise<void>): { s3: S3Client; heads: () => number; puts: () => number } {
  const s3 = client()
  let heads = 0
  let puts = 0
  s3.middlewareStack.add(
    (next, context) => async args => {
      if (context.commandName === 'HeadObjectCommand') heads++
      if (context.commandName === 'PutObjectCommand') {
        puts++
        if (on(puts)) await interlope()
      }
      return next(args)
    },
    { step: 'initialize', name: 'interloper' },
  )
  return { s3, heads: () => heads, puts: () => puts }
}

s3Test('a put that loses a race to another writer reads and decides again', async () => {
  const plain = client()
  const Bucket = await bucket(plain)
  const Key = 'race.json'
  await guard.s3.put(plain, { bucket: Bucket, key: Key, body: 'first', fence: 5n })
  // Replace: the other writer (fence 6) comes in after the HEAD; the put (fence 7) meets 412, reads 6 and writes.
  const raced = racedClient(
    n => n === 1,
    () => guard.s3.put(plain, { bucket: Bucket, key: Key, body: 'other', fence: 6n }).then(() => undefined),
  )
  await guard.s3.put(raced.s3, { bucket: Bucket, key: Key, body: 'mine', fence: 7n })
  assert.deepEqual([raced.heads(), raced.puts()], [2, 2])
  assert.deepEqual(await read(plain, Bucket, Key), { body: 'mine', meta: { 'tinystore-fence': fenceText(7n) } })

  // Create: no object at the HEAD, the other writer creates it; If-None-Match: * fails, then If-Match.
  const created = racedClient(
    n => n === 1,
    () => guard.s3.put(plain, { bucket: Bucket, key: 'new.json', body: 'other', fence: 3n }).then(() => undefined),
  )
  await guard.s3.put(created.s3, { bucket: Bucket, key: 'new.json', body: 'mine', fence: 4n })
  assert.deepEqual([created.heads(), created.puts()], [2, 2])
  assert.equal((await read(plain, Bucket, 'new.json'))?.meta['tinystore-fence'], fenceText(4n))

  // The other writer has the larger fence: decided again, the put is stale and writes nothing.
  const late = racedClient(
    n => n === 1,
    () => guard.s3.put(plain, { bucket: Bucket, key: Key, body: 'newer', fence: 9n }).then(() => undefined),
  )
  await assert.rejects(guard.s3.put(late.s3, { bucket: Bucket, key: Key, body: 'late', fence: 8n }), (err: unknown) => {
    assert.ok(err instanceof StaleError, String(err))
    assert.deepEqual([err.resource, err.fence, err.largest], [`${Bucket}/${Key}`, 8n, 9n])
    return true
  })
  assert.deepEqual([late.heads(), late.puts()], [2, 1])
  assert.equal((await read(plain, Bucket, Key))?.body, 'newer')
})

s3Test('a put overtaken on every try gives up with LimitError, writing nothing', async () => {
  const plain = client()
  const Bucket = await bucket(plain)
  let n = 0
  const raced = racedClient(
    () => true,
    async () => {
      n++
      await plain.send(new PutObjectCommand({ Bucket, Key: 'k', Body: `other ${n}` }))
    },
  )
  await assert.rejects(guard.s3.put(raced.s3, { bucket: Bucket, key: 'k', body: 'mine', fence: 1n }), (err: unknown) => {
    assert.ok(err instanceof LimitError, String(err))
    assert.match(err.message, new RegExp(`${Bucket}/k.*${guard.s3.MAX_TRIES} times`))
    return true
  })
  assert.equal(raced.puts(), guard.s3.MAX_TRIES)
  assert.equal((await read(plain, Bucket, 'k'))?.body, `other ${guard.s3.MAX_TRIES}`)
})

s3Test('a delete leaves a tombstone that keeps the fence', async () => {
  const s3 = client()
  const Bucket = await bucket(s3)
  await guard.s3.put(s3, { bucket: Bucket, key: 'd', body: 'x', fence: 7n, metadata: { owner: 'me' } })
  assert.deepEqual(await read(s3, Bucket, 'd'), { body: 'x', meta: { owner: 'me', 'tinystore-fence': fenceText(7n) } })
  await assert.rejects(guard.s3.delete(s3, { bucket: Bucket, key: 'd', fence: 6n }), StaleError)
  await guard.s3.delete(s3, { bucket: Bucket, key: 'd', fence: 8n })
  assert.deepEqual(await read(s3, Bucket, 'd'), {
    body: '',
    meta: { 'tinystore-deleted': 'true', 'tinystore-fence': fenceText(8n) },
  })
  // A late holder cannot bring it back; a later one can.
  await assert.rejects(guard.s3.put(s3, { bucket: Bucket, key: 'd', body: 'late', fence: 7n }), StaleError)
  await assert.rejects(guard.s3.delete(s3, { bucket: Bucket, key: 'd', fence: 9n }), (err: unknown) => {
    assert.ok(err instanceof InvalidError && err.message.includes('ETag'), String(err))
    return true
  })
  await guard.s3.put(s3, { bucket: Bucket, key: 'd', body: 'back', fence: 9n })
  assert.equal((await read(s3, Bucket, 'd'))?.body, 'back')
})

s3Test('bad input is InvalidError naming it, and nothing is written', async () => {
  const s3 = client()
  const Bucket = await bucket(s3)
  const bad: [string, unknown, RegExp][] = [
    ['the guard\'s own metadata key', { metadata: { 'Tinystore-Fence': '1' } }, /Tinystore-Fence.*the guard's own/],
    ['the tombstone key', { metadata: { 'tinystore-deleted': 'true' } }, /tinystore-deleted/],
    ['a metadata value not a string', { metadata: { n: 1 } }, /metadata "n" must be a string/],
    ['a number fence', { fence: 7 }, /fence/],
    ['a negative fence', { fence: -1n }, /below 0/],
    ['a fence of 2^128', { fence: 1n << 128n }, /2\^128-1/],
    ['an empty key', { key: '' }, /key is empty/],
    ['a body of another kind', { body: { a: 1 } }, /body must be a string or a Uint8Array/],
  ]
  for (const [what, change, message] of bad) {
    const options = { bucket: Bucket, key: 'b', body: 'x', fence: 7n, ...(change as object) }
    await assert.rejects(guard.s3.put(s3, options as never), (err: unknown) => {
      assert.ok(err instanceof InvalidError, `${what}: ${err}`)
      assert.match(err.message, message, what)
      return true
    })
  }
  await assert.rejects(guard.s3.put({} as never, { bucket: Bucket, key: 'b', body: 'x', fence: 7n }), /S3Client/)
  assert.equal(await read(s3, Bucket, 'b'), null)
})

test('a HEAD refused with 403 is UnauthorizedError naming the object, and nothing is written', async () => {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    req.resume()
    res.statusCode = 403
    res.end()
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = server.address() as AddressInfo
    const s3 = client(`http://127.0.0.1:${port}`)
    await assert.rejects(guard.s3.put(s3, { bucket: 'locked', key: 'chats/1.json', body: 'x', fence: 3n }), (err: unknown) => {
      assert.ok(err instanceof UnauthorizedError, String(err))
      assert.equal(err.code, 'unauthorized')
      assert.match(err.message, /"locked\/chats\/1\.json".*403.*tinystore-fence metadata/)
      return true
    })
    assert.deepEqual(seen, ['HEAD /locked/chats/1.json'])
  } finally {
    server.close()
  }
})

test('guard.s3 has the core\'s names and bound', () => {
  assert.deepEqual(Object.keys(guard.s3).sort(), ['MAX_TRIES', 'METADATA_KEY', 'TOMBSTONE_KEY', 'delete', 'put'])
  assert.deepEqual([guard.s3.METADATA_KEY, guard.s3.TOMBSTONE_KEY, guard.s3.MAX_TRIES], ['tinystore-fence', 'tinystore-deleted', 5])
})

test('the package does not load @aws-sdk/client-s3 until a guarded write', () => {
  const script =
    "const t = require('tinystore'); const loaded = () => Object.keys(require.cache).some(k => k.includes('@aws-sdk'));" +
    "const before = loaded(); t.guard.s3.put({ send: async () => { throw Object.assign(new Error('x'), { name: 'NotFound' }) } }," +
    " { bucket: 'b', key: 'k', body: 'x', fence: 1n }).catch(() => {}).finally(() => console.log(before, loaded()))"
  const run = spawnSync(process.execPath, ['-e', script], { cwd: path.join(repo, 'bindings-node'), encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  assert.equal(run.stdout.trim(), 'false true')
})
