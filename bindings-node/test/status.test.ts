// store.status(): a holder with its fence and kind, then a waiter, then
// nothing after release; permits without a fence; a leader's value; pages;
// the same through a server.
import assert from 'node:assert/strict'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { InvalidError, Store, connect, open } from 'tinystore'
import { tempDir } from './helpers'
import { serve } from './server'
import { untilWaiting, waiters } from './status-wait'

let store: Store
before(async () => {
  store = await open(tempDir())
})
after(async () => {
  await store.close()
})

test('status shows a holder and its fence, then a waiter, then nothing', async () => {
  const locks = store.locks('jobs', { ttl: 30_000 })
  const before = await store.status()
  assert.deepEqual([before.held, before.waiting, before.heldTotal], [[], [], 0])

  const holder = await locks.acquire('k')
  let status = await store.status()
  assert.deepEqual(status.held.map(h => [h.name, h.key, h.fence]), [['jobs', 'k', holder.fence]])
  const held = status.held[0]
  assert.equal(held.ttl, 30_000)
  assert.ok(held.left > 0 && held.left <= 30_000)
  assert.equal(held.renewing, true)
  assert.equal(held.leader, null)
  assert.deepEqual([held.kind, held.mode, held.weight], ['lock', null, 1])
  assert.equal(status.lastFence, holder.fence)
  assert.equal(status.epoch, holder.fence >> 64n)
  assert.equal(status.graceLeft, null)
  assert.ok(Object.isFrozen(status) && Object.isFrozen(held))

  const waiting = locks.acquire('k')
  await untilWaiting(store, 'jobs', 'k', 1)
  status = await store.status()
  const waited = status.waiting[0]?.waited ?? -1
  assert.ok(waited >= 0 && waited < 30_000, `waited ${waited}`)
  assert.deepEqual(status.waiting, [{ name: 'jobs', key: 'k', kind: 'lock', waiters: 1, waited }])
  assert.equal(status.waitingTotal, 1)
  assert.deepEqual(status.longestWaits.map(w => [w.key, w.waiters]), [['k', 1]])
  assert.ok((status.longestWaits[0]?.waited ?? -1) >= waited)

  await holder.release()
  const second = await waiting
  status = await store.status()
  assert.deepEqual(status.held.map(h => h.fence), [second.fence])
  assert.equal(waiters(status, 'jobs', 'k'), 0)
  await second.release()

  const after = await store.status()
  assert.deepEqual([after.held, after.waiting, after.heldTotal, after.waitingTotal], [[], [], 0, 0])
})

test('a permit has no fence; a leadership shows its term and value', async () => {
  const permit = await store.semaphore('exports', 2).acquire('k')
  await store.election('scheduler').lead('worker-7', async leadership => {
    const shown = new Map((await store.status()).held.map(h => [`${h.name}/${h.key}`, h]))
    assert.equal(shown.get('exports/k')?.fence, null)
    assert.equal(shown.get('exports/k')?.kind, 'semaphore')
    assert.equal(shown.get('scheduler/')?.fence, leadership.fence)
    assert.equal(shown.get('scheduler/')?.kind, 'election')
    assert.equal(shown.get('scheduler/')?.leader, 'worker-7')
  })
  await permit.release()
})

test('a page of held leases with the totals; a bad limit is InvalidError', async () => {
  const locks = store.locks('many')
  const leases = await Promise.all(['k0', 'k1', 'k2', 'k3', 'k4'].map(k => locks.acquire(k)))
  const page = await store.status({ offset: 1, limit: 2 })
  assert.deepEqual(page.held.map(h => h.key), ['k1', 'k2'])
  assert.equal(page.heldTotal, 5)
  assert.equal(page.more, true)
  await assert.rejects(store.status({ limit: 0 }), InvalidError)
  await assert.rejects(store.status({ offset: -1 }), InvalidError)
  for (const lease of leases) await lease.release()
})

test('through a server, status shows another connection waiting', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  try {
    const a = await connect(`unix:${server.socket}`)
    const b = await connect(`unix:${server.socket}`)
    const holder = await a.locks('served').acquire('k')
    const waiting = b.locks('served').acquire('k')
    await untilWaiting(a, 'served', 'k', 1)
    assert.deepEqual((await a.status()).held.map(h => [h.key, h.fence]), [['k', holder.fence]])
    await holder.release()
    await (await waiting).release()
    const after = await b.status()
    assert.deepEqual([after.held, after.waiting], [[], []])
    await a.close()
    await b.close()
  } finally {
    await server.stop()
  }
})
