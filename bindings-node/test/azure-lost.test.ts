// guard.azure when the answer to its upload is lost and @azure/storage-blob
// makes it again, on Azurite ($TINYSTORE_AZURE_CONNECTION_STRING) through a
// proxy that forwards the first upload of the test's blob, waits for
// Azurite's answer, lets another writer in if the test says so, then closes
// the connection without a byte of that answer. The client sees the
// connection closed, and retries.
//
// The retry's condition fails, for the first attempt changed the blob. The
// guard reads again: its own fence, it uploads once more (accepted); a
// larger fence, it says `unavailable` (the first attempt may have been
// written, as it was) and tells the lease's store nothing. A refusal whose
// answer came is StaleError, and told.
// Without the connection string this test skips, unless
// TINYSTORE_REQUIRE_AZURE=1.
import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'
import { BlobServiceClient, type BlockBlobClient } from '@azure/storage-blob'
import { type Lease, StaleError, fenceText, guard, open } from 'tinystore'
import { tempDir } from './helpers'
import { type LosingProxy, losingProxy as proxyTo, startsWith } from './losing-proxy'
import { counts, inDoubt, racing, superseded } from './superseded'

const connection = process.env.TINYSTORE_AZURE_CONNECTION_STRING
if (!connection && process.env.TINYSTORE_REQUIRE_AZURE === '1') {
  throw new Error('TINYSTORE_AZURE_CONNECTION_STRING is unset, and TINYSTORE_REQUIRE_AZURE=1 forbids skipping the Azure guard tests')
}
const azureTest = connection ? test : test.skip
const HOST = /127\.0\.0\.1:(\d+)/

/** The blob `name` in the container tinystore, through `port` if given; its client retries at once. */
function blobOf(name: string, port?: number): BlockBlobClient {
  const at = port === undefined ? connection! : connection!.replace(HOST, `127.0.0.1:${port}`)
  const options = { retryOptions: { maxTries: 4, retryDelayInMs: 1, maxRetryDelayInMs: 1 } }
  return BlobServiceClient.fromConnectionString(at, options).getContainerClient('tinystore').getBlockBlobClient(name)
}

/**
 * The proxy that loses Azurite's answer to the first upload (PUT) of blob
 * `name`, or plays `plan` on its uploads (losingProxy in losing-proxy.ts).
 */
function losingProxy(name: string, between?: () => Promise<void>, plan?: (Buffer | null)[]): Promise<LosingProxy> {
  const port = Number(HOST.exec(connection!)![1])
  return proxyTo(port, startsWith(`PUT /devstoreaccount1/tinystore/${name} `), between, '127.0.0.1', plan)
}

/** Azure's 503 answer to a request it could not take. */
const SERVER_BUSY = Buffer.from(
  'HTTP/1.1 503 Server Busy\r\nx-ms-error-code: ServerBusy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
)

async function bodyOf(name: string): Promise<[string, string | undefined] | null> {
  const blob = blobOf(name)
  try {
    const props = await blob.getProperties()
    return [(await blob.downloadToBuffer()).toString(), props.metadata?.tinystore_fence]
  } catch (err) {
    if ((err as { statusCode?: unknown }).statusCode === 404) return null
    throw err
  }
}

azureTest('azure: a lost answer retried is accepted or in doubt, never stale', async () => {
  const put = (blob: unknown, body: string, under: bigint | Lease) => guard.azure.upload(blob as never, body, under)
  const run = `${process.pid}-${Date.now()}`
  const store = await open(path.join(tempDir('tinystore-azure-lost-'), 'store'))
  try {
    const { older, newer } = await superseded(store)

    // Accepted, its answer lost: the retry's condition fails on the blob
    // the first attempt wrote; the guard reads its own fence and uploads
    // again.
    const alone = `alone-${run}`
    let proxy = await losingProxy(alone)
    await put(blobOf(alone, proxy.port), 'by older', older)
    proxy.close()
    assert.equal(proxy.played(), 1)
    assert.deepEqual(await bodyOf(alone), ['by older', fenceText(older.fence)])

    // Accepted, its answer lost, overtaken before the retry: the older
    // upload landed (read there), so it may not be called stale.
    const overtaken = `overtaken-${run}`
    const seen: unknown[] = []
    proxy = await losingProxy(overtaken, async () => {
      seen.push(await bodyOf(overtaken))
      await put(blobOf(overtaken), 'by newer', newer.fence)
    })
    await assert.rejects(put(blobOf(overtaken, proxy.port), 'by older', older), inDoubt)
    proxy.close()
    assert.deepEqual(seen, [['by older', fenceText(older.fence)]], 'the older upload landed before the newer')
    assert.deepEqual(await bodyOf(overtaken), ['by newer', fenceText(newer.fence)])
    assert.deepEqual(await counts(store), [])

    // A refusal whose answer came (a writer between the guard's read and
    // its upload, the upload's 409 answered, on a client the guard
    // watches) is stale, and told: the one refusal the store counts, so
    // that the case above was not told.
    const raced = `raced-${run}`
    const racer = racing(blobOf(raced), 'upload', async () => {
      await put(blobOf(raced), 'by newer', newer.fence)
    })
    await assert.rejects(put(racer, 'by older', older), (err: unknown) => {
      assert.ok(err instanceof StaleError, String(err))
      assert.equal(err.largest, newer.fence)
      return true
    })
    assert.deepEqual(await bodyOf(raced), ['by newer', fenceText(newer.fence)])
    assert.deepEqual(await counts(store), [['chats', 'lock', 1]])
  } finally {
    await store.close()
  }
})

// Each attempt made again is told, not only the last: the proxy answers
// the first upload 503 without passing it on, forwards the second and
// loses its answer after Azurite wrote it, and lets the newer holder write;
// the third attempt's condition fails and the guard reads the larger fence.
// The second attempt was written: in doubt, never stale, and the store is
// told nothing.
azureTest('azure: every attempt made again is told, not only the last', async () => {
  const store = await open(path.join(tempDir('tinystore-azure-busy-'), 'store'))
  let proxy: LosingProxy | undefined
  try {
    const { older, newer } = await superseded(store)
    const name = `busy-then-lost-${process.pid}-${Date.now()}`
    const seen: unknown[] = []
    proxy = await losingProxy(name, async () => {
      seen.push(await bodyOf(name))
      await guard.azure.upload(blobOf(name) as never, 'by newer', newer.fence)
    }, [SERVER_BUSY, null])
    await assert.rejects(guard.azure.upload(blobOf(name, proxy.port) as never, 'by older', older), inDoubt)
    assert.equal(proxy.played(), 2)
    assert.deepEqual(seen, [['by older', fenceText(older.fence)]], 'the second attempt landed before the newer')
    assert.deepEqual(await bodyOf(name), ['by newer', fenceText(newer.fence)])
    assert.deepEqual(await counts(store), [])
  } finally {
    proxy?.close()
    await store.close()
  }
})
