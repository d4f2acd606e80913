// The guards on Google Cloud Storage (guard.gcs) and Azure Blob Storage
// (guard.azure) against real emulators: fake-gcs-server at
// $TINYSTORE_GCS_URL (tests/guards/with-gcs.sh) through
// @google-cloud/storage, and Azurite at $TINYSTORE_AZURE_CONNECTION_STRING
// (tests/guards/with-azurite.sh) through @azure/storage-blob. The same cases
// on both: the rule with nothing written on a refusal, an object written
// without the guard taken over, a fence edited by hand, the guard's own
// metadata key and bad names, a real second writer let in between the read
// and the upload (the client wrapped so that its first upload waits for
// it), one let in before every upload (limit), and the server gone. Without
// their variables these tests skip, unless TINYSTORE_REQUIRE_GCS=1 or
// TINYSTORE_REQUIRE_AZURE=1 (make test-node).
import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'
import { Storage } from '@google-cloud/storage'
import { BlobServiceClient } from '@azure/storage-blob'
import { CorruptError, InvalidError, LimitError, StaleError, TinystoreError, guard } from 'tinystore'
import { repo } from './helpers'

const gcsUrl = process.env.TINYSTORE_GCS_URL
const azureConnection = process.env.TINYSTORE_AZURE_CONNECTION_STRING
if (!gcsUrl && process.env.TINYSTORE_REQUIRE_GCS === '1') {
  throw new Error('TINYSTORE_GCS_URL is unset, and TINYSTORE_REQUIRE_GCS=1 forbids skipping the GCS guard tests')
}
if (!azureConnection && process.env.TINYSTORE_REQUIRE_AZURE === '1') {
  throw new Error('TINYSTORE_AZURE_CONNECTION_STRING is unset, and TINYSTORE_REQUIRE_AZURE=1 forbids skipping the Azure guard tests')
}
// @google-cloud/storage 7 takes STORAGE_EMULATOR_HOST (which with-gcs.sh
// sets, for other clients) as its JSON API's whole base URL, ahead of
// apiEndpoint: every read would 404. The endpoint is named instead.
delete process.env.STORAGE_EMULATOR_HOST
// eslint-disable-next-line @typescript-eslint/no-require-imports
const driver: { failureClass(err: unknown): string } = require(path.join(repo, 'bindings-node', 'lib', 'guard_driver.js'))

/** One store as the cases use it: a guarded write, a plain one, a read. */
interface Store {
  name: 'gcs' | 'azure'
  key: string
  /** A handle on object `name` (a File, a BlockBlobClient); `before` runs before each of its uploads. */
  handle(name: string, before?: () => Promise<void>): unknown
  guarded(handle: unknown, body: string, fence: bigint, metadata?: Record<string, string>): Promise<unknown>
  plain(name: string, body: string, metadata?: Record<string, string>): Promise<void>
  read(name: string): Promise<{ body: string; metadata: Record<string, string> } | null>
  /** A handle on a server that is gone. */
  gone(): unknown
}

function gcsStore(): Store {
  const storage = new Storage({ apiEndpoint: gcsUrl, projectId: 'test', retryOptions: { autoRetry: false } })
  const bucket = storage.bucket('tinystore')
  return {
    name: 'gcs',
    key: 'tinystore-fence',
    handle(name, before) {
      const file = bucket.file(name)
      if (!before) return file
      return {
        name: file.name,
        bucket: file.bucket,
        getMetadata: () => file.getMetadata(),
        save: async (data: unknown, options: unknown) => {
          await before()
          return file.save(data as Buffer, options as object)
        },
      }
    },
    guarded: (handle, body, fence, metadata) => guard.gcs.save(handle as never, body, fence, { metadata }),
    plain: async (name, body, metadata) => bucket.file(name).save(body, { resumable: false, metadata: { metadata } }),
    async read(name) {
      const file = bucket.file(name)
      try {
        const [meta] = await file.getMetadata()
        const [body] = await file.download()
        return { body: body.toString(), metadata: (meta.metadata ?? {}) as Record<string, string> }
      } catch (err) {
        if ((err as { code?: unknown }).code === 404) return null
        throw err
      }
    },
    gone: () => new Storage({ apiEndpoint: 'http://127.0.0.1:1', projectId: 'test', retryOptions: { autoRetry: false } }).bucket('tinystore').file('x'),
  }
}

function azureStore(): Store {
  const options = { retryOptions: { maxTries: 1 } }
  const container = BlobServiceClient.fromConnectionString(azureConnection ?? '', options).getContainerClient('tinystore')
  return {
    name: 'azure',
    key: 'tinystore_fence',
    handle(name, before) {
      const blob = container.getBlockBlobClient(name)
      if (!before) return blob
      return {
        containerName: blob.containerName,
        name: blob.name,
        getProperties: () => blob.getProperties(),
        upload: async (body: Buffer, length: number, opts: object) => {
          await before()
          return blob.upload(body, length, opts)
        },
      }
    },
    guarded: (handle, body, fence, metadata) => guard.azure.upload(handle as never, body, fence, { metadata }),
    plain: async (name, body, metadata) => {
      await container.getBlockBlobClient(name).upload(body, Buffer.byteLength(body), { metadata })
    },
    async read(name) {
      const blob = container.getBlockBlobClient(name)
      try {
        const props = await blob.getProperties()
        const body = await blob.downloadToBuffer()
        return { body: body.toString(), metadata: props.metadata ?? {} }
      } catch (err) {
        if ((err as { statusCode?: unknown }).statusCode === 404) return null
        throw err
      }
    },
    gone: () =>
      BlobServiceClient.fromConnectionString((azureConnection ?? '').replace(/127\.0\.0\.1:\d+/, '127.0.0.1:1'), options)
        .getContainerClient('tinystore')
        .getBlockBlobClient('x'),
  }
}

const stores: Array<[string, boolean, () => Store]> = [
  ['gcs', !!gcsUrl, gcsStore],
  ['azure', !!azureConnection, azureStore],
]

let objects = 0
const objectName = () => `node-${process.pid}/chats/${++objects}`
const text40 = (fence: bigint) => fence.toString().padStart(40, '0')

function assertStale(err: unknown, resource: string, fence: bigint, largest: bigint): true {
  assert.ok(err instanceof StaleError, String(err))
  assert.deepEqual([err.resource, err.fence, err.largest], [resource, fence, largest])
  return true
}

for (const [label, present, make] of stores) {
  const storeTest = present ? test : test.skip

  storeTest(`${label}: the rule: first write, equal and later accepted, smaller refused with nothing written`, async () => {
    const s = make()
    const name = objectName()
    const resource = `tinystore/${name}`
    await s.guarded(s.handle(name), 'seven', 7n, { owner: 'me' })
    assert.deepEqual(await s.read(name), { body: 'seven', metadata: { owner: 'me', [s.key]: text40(7n) } })
    await s.guarded(s.handle(name), 'seven again', 7n)
    await assert.rejects(s.guarded(s.handle(name), 'five', 5n), err => assertStale(err, resource, 5n, 7n))
    assert.equal((await s.read(name))?.body, 'seven again')
    const big = (1n << 100n) + 1n
    await s.guarded(s.handle(name), 'big', big)
    await assert.rejects(s.guarded(s.handle(name), 'nine', 9n), err => assertStale(err, resource, 9n, big))
    assert.deepEqual(await s.read(name), { body: 'big', metadata: { [s.key]: text40(big) } })
  })

  storeTest(`${label}: an object written without the guard is taken over`, async () => {
    const s = make()
    const name = objectName()
    await s.plain(name, 'unguarded', { owner: 'them' })
    await s.guarded(s.handle(name), 'guarded', 3n)
    assert.deepEqual(await s.read(name), { body: 'guarded', metadata: { [s.key]: text40(3n) } })
  })

  storeTest(`${label}: a fence edited by hand is corrupt`, async () => {
    const s = make()
    for (const junk of ['12', 'junk', '9'.repeat(41)]) {
      const name = objectName()
      await s.plain(name, 'edited', { [s.key]: junk })
      await assert.rejects(s.guarded(s.handle(name), 'x', 7n), (err: unknown) => {
        assert.ok(err instanceof CorruptError, `${junk}: ${err}`)
        assert.match(err.message, new RegExp(name))
        return true
      })
      assert.equal((await s.read(name))?.body, 'edited')
    }
  })

  storeTest(`${label}: the guard's own metadata key and bad names are invalid, nothing written`, async () => {
    const s = make()
    const name = objectName()
    for (const key of ['tinystore-fence', 'TINYSTORE_FENCE', 'Tinystore_Deleted']) {
      await assert.rejects(s.guarded(s.handle(name), 'x', 1n, { [key]: 'x' }), InvalidError)
    }
    await assert.rejects(s.guarded(s.handle(name), 'x', 1n, { owner: 1 as never }), InvalidError)
    await assert.rejects(s.guarded(s.handle(name), 'x', -1n), InvalidError)
    await assert.rejects(s.guarded(s.handle(name), 'x', 1 as never), InvalidError)
    await assert.rejects(s.guarded(s.handle(name), 3 as never, 1n), InvalidError)
    await assert.rejects(s.guarded({}, 'x', 1n), InvalidError)
    // A name the SDKs would not even make a handle of: a lone surrogate.
    const never = async () => assert.fail('no call is made')
    const lone = { name: `${name}\uD800`, bucket: { name: 'tinystore' }, containerName: 'tinystore', getMetadata: never, save: never, getProperties: never, upload: never }
    await assert.rejects(s.guarded(lone, 'x', 1n), InvalidError)
    await assert.rejects(s.guarded({ ...lone, name: 'x'.repeat(1100) }, 'x', 1n), InvalidError)
    assert.equal(await s.read(name), null)
  })

  storeTest(`${label}: a writer between the read and the upload: the guard reads again and decides again`, async () => {
    const s = make()
    // A later holder comes in first: refused, its write kept.
    let name = objectName()
    await s.guarded(s.handle(name), 'five', 5n)
    let first = true
    const later = async () => {
      if (!first) return
      first = false
      await s.guarded(s.handle(name), 'eight', 8n)
    }
    await assert.rejects(s.guarded(s.handle(name, later), 'seven', 7n), err => assertStale(err, `tinystore/${name}`, 7n, 8n))
    assert.equal((await s.read(name))?.body, 'eight')
    // An earlier one comes in first (and on a new object): the guard lands after it.
    name = objectName()
    first = true
    const earlier = async () => {
      if (!first) return
      first = false
      await s.guarded(s.handle(name), 'three', 3n)
    }
    await s.guarded(s.handle(name, earlier), 'seven', 7n)
    assert.deepEqual(await s.read(name), { body: 'seven', metadata: { [s.key]: text40(7n) } })
  })

  storeTest(`${label}: a writer before every upload: limit after ${guard.gcs.MAX_TRIES} tries`, async () => {
    const s = make()
    const name = objectName()
    await s.plain(name, 'zero')
    let n = 0
    const every = async () => s.plain(name, `other ${++n}`)
    await assert.rejects(s.guarded(s.handle(name, every), 'mine', 7n), LimitError)
    assert.equal(n, 5)
    assert.equal((await s.read(name))?.body, 'other 5')
  })

  test(`${label}: the server gone is the SDK's own error, classed unavailable`, async () => {
    const s = present ? make() : null
    if (!s) return
    await assert.rejects(s.guarded(s.gone(), 'x', 1n), (err: unknown) => {
      assert.ok(!(err instanceof TinystoreError), String(err))
      assert.equal(driver.failureClass(err), 'unavailable')
      assert.equal(guard.isSerializationFailure(err), false)
      return true
    })
  })
}

test('azure: your own conditions are invalid, before any call', async () => {
  let calls = 0
  const blob = {
    containerName: 'c',
    name: 'n',
    getProperties: async () => ((calls += 1), {}),
    upload: async () => ((calls += 1), {}),
  }
  await assert.rejects(guard.azure.upload(blob, 'x', 1n, { conditions: { ifMatch: '*' } }), InvalidError)
  await assert.rejects(guard.azure.upload({ ...blob, name: '' }, 'x', 1n), InvalidError)
  await assert.rejects(guard.gcs.save({ name: '', bucket: { name: 'b' }, getMetadata: blob.getProperties, save: blob.upload }, 'x', 1n), InvalidError)
  assert.equal(calls, 0)
})

test('guard.gcs and guard.azure have the core\'s names and bound', () => {
  assert.deepEqual([guard.gcs.METADATA_KEY, guard.gcs.MAX_TRIES], ['tinystore-fence', 5])
  assert.deepEqual([guard.azure.METADATA_KEY, guard.azure.MAX_TRIES], ['tinystore_fence', 5])
})
