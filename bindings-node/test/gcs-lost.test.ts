// guard.gcs when the answer to its save is lost and @google-cloud/storage
// makes it again (File#save retries a save whose generation condition is
// set), on fake-gcs-server ($TINYSTORE_GCS_URL) through a proxy that
// forwards the first upload, waits for the server's answer, lets another
// writer in if the test says so, then closes the connection without a byte
// of that answer. The client sees the connection closed, and retries.
//
// The retry's condition fails, for the first attempt changed the object.
// The guard reads again: its own fence, it saves once more (accepted); a
// larger fence, it says `unavailable` (the first attempt may have been
// written, as it was) and tells the lease's store nothing. A refusal whose
// answer came is StaleError, and told; so is a larger fence found after an
// attempt the proxy answered 429 itself, which wrote nothing.
// Without $TINYSTORE_GCS_URL this test skips, unless TINYSTORE_REQUIRE_GCS=1.
import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'
import { type File, Storage } from '@google-cloud/storage'
import { type Lease, StaleError, fenceText, guard, open } from 'tinystore'
import { tempDir } from './helpers'
import { type LosingProxy, losingProxy as proxyTo, startsWith } from './losing-proxy'
import { counts, inDoubt, racing, superseded } from './superseded'

const connection = process.env.TINYSTORE_GCS_URL
if (!connection && process.env.TINYSTORE_REQUIRE_GCS === '1') {
  throw new Error('TINYSTORE_GCS_URL is unset, and TINYSTORE_REQUIRE_GCS=1 forbids skipping the GCS guard tests')
}
const gcsTest = connection ? test : test.skip
// @google-cloud/storage 7 takes STORAGE_EMULATOR_HOST (which with-gcs.sh
// sets, for other clients) as its JSON API's whole base URL, ahead of
// apiEndpoint: every read would go around the proxy, to a path the server
// answers 404. The endpoint is named instead.
delete process.env.STORAGE_EMULATOR_HOST
const HOST = /127\.0\.0\.1:(\d+)/

/** The object `name` in the bucket tinystore, through `port` if given; its client retries as it does by default. */
function fileOf(name: string, port?: number): File {
  const at = port === undefined ? connection! : connection!.replace(HOST, `127.0.0.1:${port}`)
  return new Storage({ apiEndpoint: at, projectId: 'test' }).bucket('tinystore').file(name)
}

/**
 * The proxy that loses fake-gcs-server's answer to the first upload, or
 * plays `plan` on the uploads (losingProxy in losing-proxy.ts).
 */
function losingProxy(between?: () => Promise<void>, plan?: (Buffer | null)[]): Promise<LosingProxy> {
  return proxyTo(Number(HOST.exec(connection!)![1]), startsWith('POST /upload/'), between, '127.0.0.1', plan)
}

const THROTTLED = '{"error": {"code": 429, "message": "rate limited by the test"}}'
const TOO_MANY_REQUESTS = Buffer.from(
  'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nConnection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(THROTTLED)}\r\n\r\n${THROTTLED}`,
)

async function bodyOf(name: string): Promise<[string, unknown] | null> {
  const file = fileOf(name)
  try {
    const [meta] = await file.getMetadata()
    const [data] = await file.download()
    return [data.toString(), meta.metadata?.['tinystore-fence']]
  } catch (err) {
    if ((err as { code?: unknown }).code === 404) return null
    throw err
  }
}

gcsTest('gcs: a lost answer retried is accepted or in doubt, never stale', async () => {
  const put = (file: unknown, body: string, under: bigint | Lease) => guard.gcs.save(file as never, body, under)
  const run = `${process.pid}-${Date.now()}`
  const store = await open(path.join(tempDir('tinystore-gcs-lost-'), 'store'))
  const proxies: { close: () => void }[] = []
  try {
    const { older, newer } = await superseded(store)

    // Accepted, its answer lost: the retry's condition fails on the object
    // the first attempt wrote; the guard reads its own fence and saves
    // again.
    const alone = `alone-${run}`
    let proxy = await losingProxy()
    proxies.push(proxy)
    await put(fileOf(alone, proxy.port), 'by older', older)
    assert.equal(proxy.played(), 1)
    assert.deepEqual(await bodyOf(alone), ['by older', fenceText(older.fence)])

    // Accepted, its answer lost, overtaken before the retry: the older
    // save landed (read there), so it may not be called stale.
    const overtaken = `overtaken-${run}`
    const seen: unknown[] = []
    proxy = await losingProxy(async () => {
      seen.push(await bodyOf(overtaken))
      await put(fileOf(overtaken), 'by newer', newer.fence)
    })
    proxies.push(proxy)
    await assert.rejects(put(fileOf(overtaken, proxy.port), 'by older', older), inDoubt)
    assert.deepEqual(seen, [['by older', fenceText(older.fence)]], 'the older save landed before the newer')
    assert.deepEqual(await bodyOf(overtaken), ['by newer', fenceText(newer.fence)])
    assert.deepEqual(await counts(store), [])

    // A refusal whose answer came (a writer between the guard's read and
    // its save, the save's 412 answered, on a client the guard
    // watches) is stale, and told: the one refusal the store counts, so
    // that the case above was not told.
    const raced = `raced-${run}`
    const racer = racing(fileOf(raced), 'save', async () => {
      await put(fileOf(raced), 'by newer', newer.fence)
    })
    await assert.rejects(put(racer, 'by older', older), (err: unknown) => {
      assert.ok(err instanceof StaleError, String(err))
      assert.equal(err.largest, newer.fence)
      return true
    })
    assert.deepEqual(await bodyOf(raced), ['by newer', fenceText(newer.fence)])
    assert.deepEqual(await counts(store), [['chats', 'lock', 1]])
  } finally {
    for (const p of proxies) p.close()
    await store.close()
  }
})

// A 429 is the server's answer: that attempt wrote nothing. The proxy keeps
// the first upload from the server, lets the newer holder write, and
// answers 429; the client saves again, whose condition fails on the newer
// object, and the guard reads the larger fence: stale, and told, not in
// doubt (core's rule: only no answer, a 5xx or a 408 leave an attempt's
// outcome unknown).
gcsTest('gcs: a retried 429 was answered, so a larger fence after it is stale', async () => {
  const store = await open(path.join(tempDir('tinystore-gcs-429-'), 'store'))
  let proxy: LosingProxy | undefined
  try {
    const { older, newer } = await superseded(store)
    const name = `throttled-${process.pid}-${Date.now()}`
    const seen: unknown[] = []
    proxy = await losingProxy(async () => {
      seen.push(await bodyOf(name))
      await guard.gcs.save(fileOf(name) as never, 'by newer', newer.fence)
    }, [TOO_MANY_REQUESTS])
    await assert.rejects(guard.gcs.save(fileOf(name, proxy.port) as never, 'by older', older), (err: unknown) => {
      assert.ok(err instanceof StaleError, String(err))
      assert.equal(err.largest, newer.fence)
      return true
    })
    assert.equal(proxy.played(), 1, 'the proxy answered no upload 429')
    assert.deepEqual(seen, [null], 'the throttled save reached the server')
    assert.deepEqual(await bodyOf(name), ['by newer', fenceText(newer.fence)])
    assert.deepEqual(await counts(store), [['chats', 'lock', 1]])
  } finally {
    proxy?.close()
    await store.close()
  }
})

// Each attempt made again is told, not only the first: the proxy answers
// the first upload 429 (it wrote nothing), forwards the second and loses
// its answer after fake-gcs-server wrote it, and lets the newer holder
// write; the third attempt's condition fails and the guard reads the
// larger fence. The second attempt was written: in doubt, never stale, and
// the store is told nothing.
gcsTest('gcs: a 429, then a lost answer, then a newer writer is in doubt', async () => {
  const store = await open(path.join(tempDir('tinystore-gcs-429-lost-'), 'store'))
  let proxy: LosingProxy | undefined
  try {
    const { older, newer } = await superseded(store)
    const name = `throttled-then-lost-${process.pid}-${Date.now()}`
    const seen: unknown[] = []
    proxy = await losingProxy(async () => {
      seen.push(await bodyOf(name))
      await guard.gcs.save(fileOf(name) as never, 'by newer', newer.fence)
    }, [TOO_MANY_REQUESTS, null])
    await assert.rejects(guard.gcs.save(fileOf(name, proxy.port) as never, 'by older', older), inDoubt)
    assert.equal(proxy.played(), 2)
    assert.deepEqual(seen, [['by older', fenceText(older.fence)]], 'the second attempt landed before the newer')
    assert.deepEqual(await bodyOf(name), ['by newer', fenceText(newer.fence)])
    assert.deepEqual(await counts(store), [])
  } finally {
    proxy?.close()
    await store.close()
  }
})
