// Semaphores: up to `limit` places per key, permits without a fence, and
// weighted permits that take several places at once.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { InvalidError, Permit, Store, open } from 'tinystore'
import { sleep, tempDir } from './helpers'
import { untilWaiting } from './status-wait'

let store: Store
before(async () => {
  store = await open(tempDir())
})
after(async () => {
  await store.close()
})

test('never more than limit holders, and the limit is reached', async () => {
  const exports = store.semaphore('exports', 3)
  assert.equal(exports.limit, 3)
  let inside = 0
  let most = 0
  await Promise.all(
    Array.from({ length: 12 }, () =>
      exports.hold('k', async permit => {
        assert.ok(permit instanceof Permit)
        inside++
        most = Math.max(most, inside)
        await sleep(2)
        inside--
      }),
    ),
  )
  assert.equal(most, 3)
})

test('a permit has no fence; tryAcquire gives null when full', async () => {
  const sem = store.semaphore('full', 2)
  const a = await sem.acquire(1)
  const b = await sem.acquire(1)
  assert.equal('fence' in a, false)
  assert.equal((a as unknown as { fence?: bigint }).fence, undefined)
  assert.equal(await sem.tryAcquire(1), null)
  const other = await sem.tryAcquire(2)
  assert.ok(other, 'another key has its own places')
  await Promise.all([a.release(), b.release(), other.release()])
})

test('a different limit for a held key, or a bad limit, is invalid', async () => {
  const held = await store.semaphore('limits', 2).acquire('k')
  await assert.rejects(store.semaphore('limits', 3).acquire('k'), InvalidError)
  await held.release()
  await assert.rejects(store.semaphore('limits', 0).acquire('k'), InvalidError)
  assert.throws(() => store.semaphore('limits', 1.5), InvalidError)
  assert.throws(() => store.semaphore('limits', '3' as unknown as number), InvalidError)
})

test('a permit signal aborts when the permit runs out', async () => {
  const sem = store.semaphore('lapse', 1, { ttl: 20, renew: false })
  const permit = await sem.acquire('p')
  await new Promise(resolve => permit.signal.addEventListener('abort', resolve, { once: true }))
  assert.equal(permit.held, false)
})

test('a weighted permit takes its places all or nothing, first come first served', async () => {
  const pool = store.semaphore('weights', 5)
  const three = await pool.acquire('k', { weight: 3 })
  assert.equal(await pool.tryAcquire('k', { weight: 3 }), null, 'not 3 of the 2 left')
  const four = pool.acquire('k', { weight: 4 })
  await untilWaiting(store, 'weights', 'k', 1)
  assert.equal(await pool.tryAcquire('k'), null, 'a later permit may not pass a waiting one')
  const shown = (await store.status()).held.filter(h => h.name === 'weights')
  assert.deepEqual(shown.map(h => [h.kind, h.mode, h.weight]), [['semaphore', null, 3]])
  await three.release()
  const got = await four
  assert.equal(await pool.hold('k', () => 'fits', { weight: 1 }), 'fits')
  await got.release()
  const whole = store.semaphore('weights', 5, { weight: 5 })
  await whole.hold('k', async () => assert.equal(await pool.tryAcquire('k'), null, "the group's weight is every place"))
})

test('a weight outside 1 to the limit, or not a whole number, is invalid', async () => {
  const pool = store.semaphore('bad-weights', 5)
  for (const weight of [0, 6]) {
    await assert.rejects(pool.acquire('k', { weight }), (err: unknown) => err instanceof InvalidError && /weight/.test(err.message))
  }
  await assert.rejects(pool.tryAcquire('k', { weight: 1.5 }), InvalidError)
  await assert.rejects(pool.tryAcquire('k', { weight: '2' as unknown as number }), InvalidError)
  await assert.rejects(store.locks('bad-weights').tryAcquire('k', { weight: 1 } as object), /only a semaphore/)
})
