// Read-write locks: readers share a key, a writer holds it alone with a
// fence, and a waiting writer holds back the readers that came after it;
// hold, acquire and tryAcquire on each side, signals that cancel waits.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { InvalidError, Lease, LeaseLostError, Permit, RwLocks, Store, WaitTimeoutError, open } from 'tinystore'
import { tempDir } from './helpers'
import { untilWaiting } from './status-wait'

let store: Store
before(async () => {
  store = await open(tempDir())
})
after(async () => {
  await store.close()
})

test('readers share a key; a writer waits for them and holds it alone, with a fence', async () => {
  const docs = store.rwLocks('docs')
  assert.ok(docs instanceof RwLocks)
  assert.equal(docs.name, 'docs')
  const [r1, r2] = await Promise.all([docs.acquireRead('d'), docs.acquireRead('d')])
  assert.ok(r1 instanceof Permit && r2 instanceof Permit)
  assert.equal('fence' in r1, false, 'a read lease has no fence')
  assert.equal(await docs.tryAcquireWrite('d'), null)
  const writing = docs.acquireWrite('d')
  await untilWaiting(store, 'docs', 'd', 1)
  await r1.release()
  await r2.release()
  const w = await writing
  assert.ok(w instanceof Lease)
  assert.equal(typeof w.fence, 'bigint')
  assert.equal(await docs.tryAcquireRead('d'), null, 'no reader beside a writer')
  assert.equal(await docs.tryAcquireWrite('d'), null, 'no second writer')
  await w.release()
  const w2 = await docs.tryAcquireWrite('d')
  assert.ok(w2 && w2.fence > w.fence, 'write fences rise')
  await w2.release()
})

test('a waiting writer holds back later readers; given up, it lets them in', async () => {
  const docs = store.rwLocks('preference')
  const reader = await docs.acquireRead('k')
  const abort = new AbortController()
  const writer = docs.acquireWrite('k', { signal: abort.signal })
  await untilWaiting(store, 'preference', 'k', 1)
  assert.equal(await docs.tryAcquireRead('k'), null, 'a reader may not pass a waiting writer')
  const later = docs.acquireRead('k')
  await untilWaiting(store, 'preference', 'k', 2)
  const waiting = (await store.status()).waiting.find(w => w.name === 'preference')
  assert.equal(waiting?.kind, 'rwlock')
  abort.abort(new Error('no longer needed'))
  await assert.rejects(writer, /no longer needed/)
  const second = await later
  const held = (await store.status()).held.filter(h => h.name === 'preference')
  assert.deepEqual(held.map(h => [h.kind, h.mode, h.weight, h.fence]), [
    ['rwlock', 'read', 1, null],
    ['rwlock', 'read', 1, null],
  ])
  await Promise.all([reader.release(), second.release()])
})

test('holdRead and holdWrite release however fn ends and tell a loss', async () => {
  const docs = store.rwLocks('holds', { ttl: 50 })
  assert.equal(await docs.holdRead('h', permit => permit.key), 'h')
  const fence = await docs.holdWrite('h', lease => lease.fence)
  assert.equal(typeof fence, 'bigint')
  await assert.rejects(
    docs.holdWrite('h', async () => {
      throw new Error('own')
    }),
    /own/,
  )
  const free = await docs.tryAcquireWrite('h')
  assert.ok(free, 'released after fn threw')
  await free.release()
  // A lease with maxHold runs out while fn waits on its signal: the hold
  // tells the loss, not fn's abort.
  await assert.rejects(
    docs.holdRead('h', permit => new Promise((_, reject) => permit.signal.addEventListener('abort', () => reject(permit.signal.reason))), {
      maxHold: 150,
    }),
    (err: unknown) => err instanceof LeaseLostError && /max_hold/.test(err.message),
  )
})

test('a wait runs out; bad options and a weight are refused', async () => {
  const docs = store.rwLocks('bad')
  const w = await docs.acquireWrite('k')
  await assert.rejects(docs.acquireRead('k', { wait: 30 }), WaitTimeoutError)
  await w.release()
  await assert.rejects(docs.tryAcquireRead('k', { weight: 2 } as object), (err: unknown) => err instanceof InvalidError && /weight/.test(err.message))
  await assert.rejects(docs.acquireWrite('k', { maxHold: 5 }), (err: unknown) => err instanceof InvalidError && /max_hold/.test(err.message))
  await assert.rejects(docs.acquireWrite(1.5), InvalidError)
  assert.throws(() => store.rwLocks('bad', { maxHold: '1s' as unknown as number }), InvalidError)
  const aborted = AbortSignal.abort(new Error('before'))
  await assert.rejects(docs.acquireRead('k', { signal: aborted }), /before/)
  assert.equal((await store.status()).held.filter(h => h.name === 'bad').length, 0, 'nothing left held')
})
