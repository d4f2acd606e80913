// Watching a key or a group (watch, watchAll) on an embedded store, one
// served on a socket by the test kit, and a `tinystore serve --testing`
// process: a lock group's events in the store's order (a grant with its
// fence and data, the queue's length, a release, a loss by expiry), a
// key's watch seeing only its key, semaphores and read-write locks, a
// watcher that never reads told it lagged while the holds go on, an
// AbortSignal and `break` ending it, and a bad key is InvalidError.
import assert from 'node:assert/strict'
import { hostname } from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { InvalidError, connect, type Store, type WatchEvent, type Watcher } from 'tinystore'
import { TestStore, expire } from 'tinystore/testing'
import { tempDir } from './helpers'
import { serve } from './server'
import { untilWaiting } from './status-wait'

const HOLDER = `${hostname()}:${process.pid}`

type Kind = 'embedded' | 'served' | 'process'

/** Runs `fn` with a test store of `kind`, closed at its end. */
async function withStore(kind: Kind, fn: (store: Store) => Promise<void>): Promise<void> {
  if (kind === 'process') {
    const server = await serve(path.join(tempDir(), 'served'), undefined, ['--testing'])
    const store = await connect(server.socket)
    try {
      await fn(store)
    } finally {
      store.close()
      await server.stop()
    }
    return
  }
  const kit = kind === 'served' ? await TestStore.served() : await TestStore.open()
  try {
    await fn(kit.store)
  } finally {
    await kit.close()
  }
}

/** The next `n` events of `watcher`. */
async function read(watcher: Watcher, n: number): Promise<WatchEvent[]> {
  const events: WatchEvent[] = []
  for (let i = 0; i < n; i++) {
    const next = await watcher.next()
    assert.equal(next.done, false, `the watch ended after ${events.length} events: ${JSON.stringify(events, show)}`)
    if (!next.done) events.push(next.value)
  }
  return events
}

/** JSON.stringify's replacer for bigints. */
function show(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? String(value) : value
}

for (const kind of ['embedded', 'served', 'process'] as const) {
  test(`a group's watch sees grants, the queue, releases and losses in order (${kind})`, async () => {
    await withStore(kind, async store => {
      const jobs = store.locks('jobs')
      const every = jobs.watchAll()
      const onlyB = jobs.watch('b')
      const first = await jobs.acquire('a', { data: 'web-1' })
      const waiting = jobs.acquire('a')
      await untilWaiting(store, 'jobs', 'a')
      await first.release()
      const second = await waiting
      const other = await jobs.acquire('b')
      await expire(second)
      await other.release()
      assert.ok(second.fence > first.fence)
      assert.deepEqual(await read(every, 8), [
        { kind: 'granted', key: 'a', fence: first.fence, data: 'web-1' },
        { kind: 'queue', key: 'a', length: 1 },
        { kind: 'released', key: 'a', fence: first.fence },
        { kind: 'granted', key: 'a', fence: second.fence, data: HOLDER },
        { kind: 'queue', key: 'a', length: 0 },
        { kind: 'granted', key: 'b', fence: other.fence, data: HOLDER },
        { kind: 'lost', key: 'a', fence: second.fence, cause: 'expired' },
        { kind: 'released', key: 'b', fence: other.fence },
      ])
      // A key's watch sees its key only: the first event it reads is b's.
      assert.deepEqual(await read(onlyB, 2), [
        { kind: 'granted', key: 'b', fence: other.fence, data: HOLDER },
        { kind: 'released', key: 'b', fence: other.fence },
      ])
      every.close()
      await onlyB.return()
      assert.deepEqual(await every.next(), { done: true, value: undefined })
    })
  })
}

for (const kind of ['embedded', 'served'] as const) {
  test(`semaphores and read-write locks are watched too (${kind})`, async () => {
    await withStore(kind, async store => {
      const slots = store.semaphore('slots', 2)
      const rw = store.rwLocks('doc')
      const permits = slots.watch('s')
      const docs = rw.watchAll()
      const permit = await slots.acquire('s', { weight: 2, data: '' })
      await permit.release()
      const reading = await rw.acquireRead('d')
      await reading.release()
      const writing = await rw.acquireWrite('d')
      await writing.release()
      // A permit and a read lease have no fence; empty data is none.
      assert.deepEqual(await read(permits, 2), [
        { kind: 'granted', key: 's', fence: null, data: null },
        { kind: 'released', key: 's', fence: null },
      ])
      assert.deepEqual(await read(docs, 4), [
        { kind: 'granted', key: 'd', fence: null, data: HOLDER },
        { kind: 'released', key: 'd', fence: null },
        { kind: 'granted', key: 'd', fence: writing.fence, data: HOLDER },
        { kind: 'released', key: 'd', fence: writing.fence },
      ])
      permits.close()
      docs.close()
    })
  })

  test(`a watcher that never reads is told it lagged and goes on (${kind})`, async () => {
    await withStore(kind, async store => {
      const busy = store.locks('busy')
      const slow = busy.watchAll()
      for (let i = 0; i < 3 * 1024; i++) {
        // 6,144 events, none read: the holds go on.
        const lease = await busy.acquire('k')
        await lease.release()
      }
      // Told it lagged (before the newest events it kept, or after the
      // oldest, as the store keeps them), then it goes on.
      let missed = 0
      let kept = 0
      let last: bigint | undefined
      for (;;) {
        const [event] = await read(slow, 1)
        if (event.kind === 'lagged') {
          assert.ok(event.missed > 0, 'a lagged event counts what was missed')
          missed += event.missed
          last ??= (await busy.acquire('k', { data: 'after' })).fence
        } else if (event.kind === 'granted' && event.fence === last) {
          assert.equal(event.data, 'after')
          break
        } else {
          kept++
          assert.ok(kept <= 2 * 1024, `no lagged event, or nothing after it, in ${kept} events`)
        }
      }
      assert.ok(missed > 0 && missed < 2 * 3 * 1024 && kept > 0)
      slow.close()
    })
  })

  test(`an AbortSignal and break end a watcher, a read under way too (${kind})`, async () => {
    await withStore(kind, async store => {
      const quiet = store.locks('quiet')
      const controller = new AbortController()
      const watcher = quiet.watch('k', { signal: controller.signal })
      const reading = watcher.next()
      controller.abort()
      assert.deepEqual(await reading, { done: true, value: undefined })
      assert.deepEqual(await watcher.next(), { done: true, value: undefined })
      // One made with an aborted signal ends at once.
      const aborted = quiet.watchAll({ signal: AbortSignal.abort() })
      assert.deepEqual(await aborted.next(), { done: true, value: undefined })
      // `break` leaves the loop and stops it.
      const again = quiet.watchAll()
      const lease = await quiet.acquire('k')
      for await (const event of again) {
        assert.deepEqual(event, { kind: 'granted', key: 'k', fence: lease.fence, data: HOLDER })
        break
      }
      assert.deepEqual(await again.next(), { done: true, value: undefined })
      await lease.release()
    })
  })

  test(`a bad key is InvalidError (${kind})`, async () => {
    await withStore(kind, async store => {
      const locks = store.locks('bad')
      await assert.rejects(locks.watch('').next(), (err: unknown) => err instanceof InvalidError && /key/.test(err.message))
      await assert.rejects(locks.watch('x'.repeat(1025)).next(), InvalidError)
      assert.throws(() => locks.watch({} as unknown as string), InvalidError)
      await assert.rejects(store.locks('').watchAll().next(), InvalidError)
    })
  })
}
