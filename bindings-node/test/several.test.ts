// Several keys of a lock group at once: acquireAll and holdAll give a lease
// per key in the caller's order, or none; an abort, a timeout or a loss
// leaves none held (also through a server); callers naming overlapping
// keys in any order finish.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import path from 'node:path'
import { InvalidError, LeaseLostError, Store, WaitTimeoutError, connect, open } from 'tinystore'
import { tempDir } from './helpers'
import { serve } from './server'
import { DEADLINE_MS, untilWaiting } from './status-wait'

let store: Store
before(async () => {
  store = await open(tempDir())
})
after(async () => {
  await store.close()
})

/** The keys of `name` held now in `on` (the embedded store by default), sorted. */
async function heldKeys(name: string, on: Store = store): Promise<string[]> {
  return (await on.status()).held.filter(h => h.name === name).map(h => h.key).sort()
}

/** Resolves once `on` shows exactly `keys` of `name` held; rejects after DEADLINE_MS. */
async function untilHeld(on: Store, name: string, keys: string[]): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS
  while (JSON.stringify(await heldKeys(name, on)) !== JSON.stringify(keys)) {
    if (Date.now() > deadline) throw new Error(`${name}: ${keys} never shown held; shown: ${await heldKeys(name, on)}`)
    await sleep(2)
  }
}

test('acquireAll gives a lease per key in the caller order, each with its own fence', async () => {
  const accounts = store.locks('accounts')
  const leases = await accounts.acquireAll(['z', 7, 'a'])
  assert.deepEqual(leases.map(l => l.key), ['z', '7', 'a'])
  assert.equal(new Set(leases.map(l => l.fence)).size, 3)
  assert.deepEqual(await heldKeys('accounts'), ['7', 'a', 'z'])
  await Promise.all(leases.map(l => l.release()))
  assert.deepEqual(await heldKeys('accounts'), [])
})

test('an abort of acquireAll leaves none held, also the keys it took first', async () => {
  const accounts = store.locks('abort-all')
  const other = await accounts.acquire('b')
  const abort = new AbortController()
  const all = accounts.acquireAll(['c', 'b', 'a'], { signal: abort.signal })
  // Keys are taken in key order: 'a' is held, 'b' waited for.
  await untilWaiting(store, 'abort-all', 'b', 1)
  assert.deepEqual(await heldKeys('abort-all'), ['a', 'b'])
  abort.abort(new Error('gave up'))
  await assert.rejects(all, /gave up/)
  assert.deepEqual(await heldKeys('abort-all'), ['b'], 'only the other holder is left')
  await assert.rejects(accounts.acquireAll(['a'], { signal: abort.signal }), /gave up/)
  await other.release()
  assert.deepEqual(await heldKeys('abort-all'), [])
})

test('wait covers all the keys; a timeout leaves none held', async () => {
  const accounts = store.locks('timeout-all')
  const other = await accounts.acquire('m')
  await assert.rejects(accounts.acquireAll(['z', 'm', 'a'], { wait: 50 }), (err: unknown) => {
    return err instanceof WaitTimeoutError && /all of 3 keys/.test(err.message)
  })
  assert.deepEqual(await heldKeys('timeout-all'), ['m'])
  await other.release()
})

test('holdAll runs fn with the leases and releases them however fn ends', async () => {
  const accounts = store.locks('hold-all')
  const fences = await accounts.holdAll(['y', 'x'], async leases => {
    assert.deepEqual(leases.map(l => l.key), ['y', 'x'])
    assert.deepEqual(await heldKeys('hold-all'), ['x', 'y'])
    return leases.map(l => l.fence)
  })
  assert.equal(fences.length, 2)
  assert.deepEqual(await heldKeys('hold-all'), [])
  await assert.rejects(
    accounts.holdAll(['x', 'y'], () => {
      throw new Error('own')
    }),
    /own/,
  )
  assert.deepEqual(await heldKeys('hold-all'), [])
})

test("holdAll's fn is stopped by its signal when one lease is lost, and the hold tells the loss", async () => {
  const accounts = store.locks('lost-all')
  let stopped = false
  await assert.rejects(
    accounts.holdAll(
      ['p', 'q'],
      async (_leases, signal) => {
        try {
          await sleep(20_000, undefined, { signal })
        } finally {
          stopped = signal.aborted
        }
      },
      { ttl: 50, maxHold: 200 },
    ),
    (err: unknown) => err instanceof LeaseLostError && /max_hold/.test(err.message),
  )
  assert.ok(stopped, 'fn ended by the signal')
  assert.deepEqual(await heldKeys('lost-all'), [], 'every lease released')
})

test('callers naming overlapping keys in any order all finish', async () => {
  const accounts = store.locks('overlap')
  const keys = ['a', 'b', 'c', 'd']
  let inside = 0
  const runs = Array.from({ length: 12 }, (_, i) => {
    const mine = [keys[i % 4], keys[(i + 1) % 4], keys[(i + 2) % 4]]
    if (i % 2) mine.reverse()
    return accounts.holdAll(mine, async () => {
      inside++
      await sleep(1)
      return mine.length
    }, { wait: 10_000 })
  })
  assert.deepEqual(await Promise.all(runs), Array(12).fill(3))
  assert.equal(inside, 12)
})

test('bad key lists are refused before anything is held', async () => {
  const accounts = store.locks('bad-all')
  await assert.rejects(accounts.acquireAll(['x', 'y', 'x']), (err: unknown) => err instanceof InvalidError && /twice/.test(err.message))
  await assert.rejects(accounts.acquireAll([]), (err: unknown) => err instanceof InvalidError && /keys/.test(err.message))
  await assert.rejects(accounts.acquireAll('xy' as unknown as string[]), InvalidError)
  await assert.rejects(accounts.acquireAll(Array.from({ length: 1025 }, (_, i) => i)), InvalidError)
  await assert.rejects(accounts.acquireAll([1.5]), InvalidError)
  await assert.rejects(accounts.holdAll(['x'], 'no function' as unknown as () => void), InvalidError)
  assert.deepEqual(await heldKeys('bad-all'), [])
})

test('through a server, an aborted acquireAll leaves none held and the keys free to another connection', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  const [mine, other] = [await connect(`unix:${server.socket}`), await connect(`unix:${server.socket}`)]
  try {
    const held = await other.locks('served-all').acquire('b')
    const abort = new AbortController()
    const all = mine.locks('served-all').acquireAll(['c', 'b', 'a'], { signal: abort.signal })
    await untilWaiting(other, 'served-all', 'b', 1)
    assert.deepEqual(await heldKeys('served-all', other), ['a', 'b'])
    abort.abort(new Error('gave up'))
    await assert.rejects(all, /gave up/)
    await untilHeld(other, 'served-all', ['b'])
    await held.release()
    const taken = await other.locks('served-all').acquireAll(['a', 'c'], { wait: DEADLINE_MS })
    assert.deepEqual(taken.map(l => l.key), ['a', 'c'])
    await Promise.all(taken.map(l => l.release()))
  } finally {
    await mine.close()
    await other.close()
    await server.stop()
  }
})
