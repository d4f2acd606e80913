// The S3 guard (guard.s3) against moto's real S3 server on loopback, at
// $TINYSTORE_S3_URL (tests/guards/with-s3.sh): every object_guard case of
// vectors/behaviour.json on the layout of one object per fence, writes that
// meet a real second writer between their steps (sent from the client's
// middleware stack), guarded reads, the delete's tombstone, bad input, and
// a listing refused with 403 (by a node:http server on loopback). Without
// the URL these tests skip, unless TINYSTORE_REQUIRE_S3=1 (make test-node).
// The conformance matrix (guard-conformance.test.mjs) runs the rest.
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
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import {
  CorruptError,
  InvalidError,
  LimitError,
  StaleError,
  TinystoreError,
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
const FENCES = '/tinystore-fence/'

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

/** Every key in the bucket (under `prefix`), sorted. */
async function keys(s3: S3Client, Bucket: string, Prefix = ''): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket, Prefix }))
  return (listed.Contents ?? []).map(o => o.Key ?? '').sort()
}

/** An object's body and metadata, or null when there is none. */
async function read(s3: S3Client, Bucket: string, Key: string): Promise<{ body: string; meta: Record<string, string> } | null> {
  try {
    const got = await s3.send(new GetObjectCommand({ Bucket, Key }))
    return { body: (await got.Body?.transformToString()) ?? '', meta: got.Metadata ?? {} }
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return null
    throw err
  }
}

/** What guard.s3.get reads, the body as text. */
async function guarded(s3: S3Client, Bucket: string, key: string): Promise<{ body: string; fence: bigint; metadata: Record<string, string> } | null> {
  const got = await guard.s3.get(s3, Bucket, key)
  return got && { body: Buffer.from(got.body).toString('utf8'), fence: got.fence, metadata: got.metadata }
}

interface Case {
  id: string
  key: string
  stored?: string
  plain: boolean
  body: string
  fence: bigint
  expect: string
  readAfter?: bigint
  listedAfter?: string[]
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
    stored: v.stored as string | undefined,
    plain: v.plain === true,
    body: (v.body as string | undefined) ?? 'new',
    fence: parseFence(v.fence as string),
    expect: v.expect as string,
    readAfter: v.read_after === undefined ? undefined : parseFence(v.read_after as string),
    listedAfter: v.listed_after as string[] | undefined,
    largest: v.largest === undefined ? undefined : parseFence(v.largest as string),
    messageHas: v.message_has as string | undefined,
  }))
}

s3Test('every object_guard vector, against moto', async () => {
  const s3 = client()
  for (const c of cases()) {
    const Bucket = await bucket(s3)
    const prefix = `${c.key}${FENCES}`
    if (c.stored !== undefined) await s3.send(new PutObjectCommand({ Bucket, Key: `${prefix}${c.stored}`, Body: 'old' }))
    if (c.plain) await s3.send(new PutObjectCommand({ Bucket, Key: c.key, Body: 'plain' }))
    const before = await keys(s3, Bucket)
    let err: unknown
    try {
      await guard.s3.put(s3, { bucket: Bucket, key: c.key, body: c.body, fence: c.fence })
    } catch (e) {
      err = e
    }
    if (c.plain) assert.equal((await read(s3, Bucket, c.key))?.body, 'plain', `${c.id}: the plain object was touched`)
    if (c.expect === 'written') {
      assert.equal(err, undefined, `${c.id}: refused: ${err}`)
      assert.deepEqual(await guarded(s3, Bucket, c.key), { body: c.body, fence: c.readAfter, metadata: {} }, c.id)
      assert.deepEqual(
        (await keys(s3, Bucket, prefix)).map(k => k.slice(prefix.length)),
        c.listedAfter,
        `${c.id}: the smaller fences' objects are deleted`,
      )
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
    assert.deepEqual(await keys(s3, Bucket), before, `${c.id}: a refused put changed the bucket`)
  }
})

/**
 * A client whose requests of kind `command` first let `interlope` run (a
 * real second writer, through another client) when `on(n)` says, n
 * counting those requests from 1; counts every command it sends.
 */
function racedClient(command: string, on: (n: number) => boolean, interlope: () => Promise<unknown>) {
  const s3 = client()
  const sent: string[] = []
  let n = 0
  s3.middlewareStack.add(
    (next, context) => async args => {
      sent.push(String(context.commandName))
      if (context.commandName === command && on(++n)) await interlope()
      return next(args)
    },
    { step: 'initialize', name: 'interloper' },
  )
  return { s3, sent }
}

s3Test('a write that meets a larger fence between its steps is stale and leaves nothing a reader sees', async () => {
  const plain = client()
  const Bucket = await bucket(plain)
  await guard.s3.put(plain, { bucket: Bucket, key: 'k', body: 'first', fence: 5n })
  // Fence 9 is written after this write's first listing, before its put.
  const late = racedClient('PutObjectCommand', n => n === 1, () => guard.s3.put(plain, { bucket: Bucket, key: 'k', body: 'newer', fence: 9n }))
  await assert.rejects(guard.s3.put(late.s3, { bucket: Bucket, key: 'k', body: 'late', fence: 7n }), (err: unknown) => {
    assert.ok(err instanceof StaleError, String(err))
    assert.deepEqual([err.resource, err.fence, err.largest], [`${Bucket}/k`, 7n, 9n])
    return true
  })
  // It listed, put, listed again, and deleted its own object.
  assert.deepEqual(late.sent, ['ListObjectsV2Command', 'PutObjectCommand', 'ListObjectsV2Command', 'DeleteObjectCommand'])
  assert.deepEqual(await keys(plain, Bucket), [`k${FENCES}${fenceText(9n)}`])
  assert.deepEqual(await guarded(plain, Bucket, 'k'), { body: 'newer', fence: 9n, metadata: {} })
})

s3Test('a write that meets a smaller fence between its steps is accepted and deletes it', async () => {
  const plain = client()
  const Bucket = await bucket(plain)
  const raced = racedClient('PutObjectCommand', n => n === 1, () => guard.s3.put(plain, { bucket: Bucket, key: 'k', body: 'older', fence: 3n }))
  await guard.s3.put(raced.s3, { bucket: Bucket, key: 'k', body: 'mine', fence: 4n })
  assert.deepEqual(raced.sent, ['ListObjectsV2Command', 'PutObjectCommand', 'ListObjectsV2Command', 'DeleteObjectCommand'])
  assert.deepEqual(await keys(plain, Bucket), [`k${FENCES}${fenceText(4n)}`])
  assert.deepEqual(await guarded(plain, Bucket, 'k'), { body: 'mine', fence: 4n, metadata: {} })
})

s3Test('a read whose object a later writer deletes before its get lists again, MAX_TRIES times in all, then LimitError', async () => {
  const plain = client()
  const Bucket = await bucket(plain)
  let fence = 1n
  await guard.s3.put(plain, { bucket: Bucket, key: 'k', body: 'v1', fence })
  const later = () => {
    fence++
    return guard.s3.put(plain, { bucket: Bucket, key: 'k', body: `v${fence}`, fence })
  }
  // Once: the read lists again and reads the later writer's object.
  const once = racedClient('GetObjectCommand', n => n === 1, later)
  assert.deepEqual(await guarded(once.s3, Bucket, 'k'), { body: 'v2', fence: 2n, metadata: {} })
  assert.deepEqual(once.sent, ['ListObjectsV2Command', 'GetObjectCommand', 'ListObjectsV2Command', 'GetObjectCommand'])
  // Every time: it gives up.
  const always = racedClient('GetObjectCommand', () => true, later)
  await assert.rejects(guard.s3.get(always.s3, Bucket, 'k'), (err: unknown) => {
    assert.ok(err instanceof LimitError, String(err))
    assert.match(err.message, new RegExp(`${Bucket}/k.*${guard.s3.MAX_TRIES} times`))
    return true
  })
  assert.equal(always.sent.filter(c => c === 'GetObjectCommand').length, guard.s3.MAX_TRIES)
})

s3Test('a delete leaves a tombstone that keeps the fence; get reads none; the same body again is written', async () => {
  const s3 = client()
  const Bucket = await bucket(s3)
  assert.equal(await guard.s3.get(s3, Bucket, 'd'), null, 'never written')
  await guard.s3.put(s3, { bucket: Bucket, key: 'd', body: 'x', fence: 7n, metadata: { owner: 'me' }, contentType: 'text/plain' })
  assert.deepEqual(await guarded(s3, Bucket, 'd'), { body: 'x', fence: 7n, metadata: { owner: 'me' } })
  const stored = await s3.send(new GetObjectCommand({ Bucket, Key: `d${FENCES}${fenceText(7n)}` }))
  assert.deepEqual([stored.ContentType, stored.Metadata], ['text/plain', { owner: 'me', 'tinystore-fence': fenceText(7n) }])
  await assert.rejects(guard.s3.delete(s3, { bucket: Bucket, key: 'd', fence: 6n }), StaleError)
  await guard.s3.delete(s3, { bucket: Bucket, key: 'd', fence: 8n })
  assert.equal(await guard.s3.get(s3, Bucket, 'd'), null, 'deleted')
  assert.deepEqual(await read(s3, Bucket, `d${FENCES}${fenceText(8n)}`), {
    body: '',
    meta: { 'tinystore-deleted': 'true', 'tinystore-fence': fenceText(8n) },
  })
  // A late holder cannot bring it back; deleting again is fine; a later holder writes the same body again.
  await assert.rejects(guard.s3.put(s3, { bucket: Bucket, key: 'd', body: 'late', fence: 7n }), StaleError)
  await guard.s3.delete(s3, { bucket: Bucket, key: 'd', fence: 8n })
  await guard.s3.put(s3, { bucket: Bucket, key: 'd', body: 'x', fence: 9n })
  assert.deepEqual(await guarded(s3, Bucket, 'd'), { body: 'x', fence: 9n, metadata: {} })
  assert.deepEqual(await keys(s3, Bucket), [`d${FENCES}${fenceText(9n)}`])
})

s3Test('an object put by hand among the fences is CorruptError naming it, for a write and a read', async () => {
  const s3 = client()
  const Bucket = await bucket(s3)
  await guard.s3.put(s3, { bucket: Bucket, key: 'c', body: 'x', fence: 3n })
  await s3.send(new PutObjectCommand({ Bucket, Key: `c${FENCES}notes.txt`, Body: 'stray' }))
  for (const call of [() => guard.s3.put(s3, { bucket: Bucket, key: 'c', body: 'y', fence: 4n }), () => guard.s3.get(s3, Bucket, 'c')]) {
    await assert.rejects(call(), (err: unknown) => {
      assert.ok(err instanceof CorruptError, String(err))
      assert.ok(err.message.includes(`${Bucket}/c`) && err.message.includes('notes.txt'), err.message)
      return true
    })
  }
})

s3Test('bad input is InvalidError naming it, and nothing is written', async () => {
  const s3 = client()
  const Bucket = await bucket(s3)
  const bad: [string, unknown, RegExp][] = [
    ['the guard\'s own metadata key', { metadata: { 'Tinystore-Fence': '1' } }, /Tinystore-Fence.*the guard's own/],
    ['the tombstone key', { metadata: { 'tinystore-deleted': 'true' } }, /tinystore-deleted/],
    ['a metadata value not a string', { metadata: { n: 1 } }, /metadata "n" must be a string/],
    ['a metadata value with a lone surrogate', { metadata: { n: 'a\ud800' } }, /metadata "n" .*lone surrogate/],
    ['a number fence', { fence: 7 }, /fence/],
    ['a negative fence', { fence: -1n }, /below 0/],
    ['a fence of 2^128', { fence: 1n << 128n }, /2\^128-1/],
    ['an empty key', { key: '' }, /a bucket and a key/],
    ['a key that is not a string', { key: 42 }, /key must be a string/],
    ['a key with a lone surrogate', { key: 'chats/\ud800' }, /key "chats\/\\ud800" is not well-formed/],
    ['a bucket with a lone surrogate', { bucket: '\udc00' }, /bucket .*lone surrogate/],
    ['a key holding the fences\' folder', { key: `a${FENCES}b` }, /tinystore-fence/],
    ['a key too long for its fences', { key: 'k'.repeat(1000) }, /at most 967 bytes/],
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
  await assert.rejects(guard.s3.delete(s3, { bucket: Bucket, key: '\ud800', fence: 7n }), InvalidError)
  await assert.rejects(guard.s3.get(s3, Bucket, 'chats/\udc00'), InvalidError)
  assert.deepEqual(await keys(s3, Bucket), [])
})

test("a listing refused with 403 is the SDK's own error, classified as permission, and nothing is written", async () => {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    req.resume()
    res.statusCode = 403
    res.setHeader('Content-Type', 'application/xml')
    res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>')
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = server.address() as AddressInfo
    const s3 = client(`http://127.0.0.1:${port}`)
    await assert.rejects(guard.s3.put(s3, { bucket: 'locked', key: 'chats/1.json', body: 'x', fence: 3n }), (err: unknown) => {
      assert.ok(!(err instanceof TinystoreError), `the SDK's own error, not ${err}`)
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } }
      assert.deepEqual([e.name, e.$metadata?.httpStatusCode], ['AccessDenied', 403])
      assert.equal(guard.isSerializationFailure(err), false)
      return true
    })
    assert.equal(seen.length, 1)
    assert.match(seen[0], /^GET \/locked\/?\?list-type=2&prefix=chats%2F1\.json%2Ftinystore-fence%2F/)
  } finally {
    server.close()
  }
})

test('an unreachable store is the SDK\'s own error (ECONNREFUSED)', async () => {
  const s3 = client('http://127.0.0.1:1')
  for (const call of [() => guard.s3.put(s3, { bucket: 'b', key: 'k', body: 'x', fence: 1n }), () => guard.s3.get(s3, 'b', 'k')]) {
    await assert.rejects(call(), (err: unknown) => {
      assert.ok(!(err instanceof TinystoreError), String(err))
      assert.equal((err as { code?: string }).code, 'ECONNREFUSED')
      return true
    })
  }
})

test('guard.s3 has the core\'s names and bound', () => {
  assert.deepEqual(Object.keys(guard.s3).sort(), ['MAX_TRIES', 'METADATA_KEY', 'TOMBSTONE_KEY', 'delete', 'get', 'put'])
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
