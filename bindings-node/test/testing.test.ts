// The test kit (tinystore/testing) on real stores, with no sleep: expire
// ends a lease, permit or leadership as if its holder paused past its TTL
// (its signal aborted with lease_lost, the next waiter granted with a
// larger fence); advance runs out exactly the leases whose TTL passed;
// expireKey counts; a served kit expires a second connection's lease; a
// store not made for tests refuses every control and keeps its lease;
// status.testing; testStore(t) closes its kit at the test's end.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { test } from 'node:test'
import {
  InvalidError,
  LeaseLostError,
  connect,
  open,
  serve,
  type Lease,
  type Store,
} from 'tinystore'
import { TestStore, advance, expire, expireKey, testStore } from 'tinystore/testing'
import { tempDir } from './helpers'
import { untilWaiting } from './status-wait'

type Held = Parameters<typeof expire>[0]

const REFUSAL =
  "this store is not a test store: advance and expire work only on a store made by tinystore's test kit, " +
  'or served with `tinystore serve --testing`'

/** Resolves once `signal` aborted (a test that waits forever fails by its timeout). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise(resolve => signal.addEventListener('abort', () => resolve(), { once: true }))
}

/** `held` was lost as a lease that ran out: not held, its signal aborted with LeaseLostError. */
function assertRanOut(held: Held, what: string): void {
  assert.equal(held.held, false, `${what} is no longer held`)
  assert.equal(held.signal.aborted, true, `${what}'s signal aborted`)
  const reason: unknown = held.signal.reason
  assert.ok(reason instanceof LeaseLostError, `${what}'s reason is a LeaseLostError: ${String(reason)}`)
  assert.equal(reason.code, 'lease_lost')
}

test('expire: the loss signal has fired; a waiting acquirer gets a larger fence', async t => {
  const kit = await testStore(t)
  const jobs = kit.store.locks('jobs')
  const a = await jobs.acquire('report')
  const b = jobs.acquire('report')
  await untilWaiting(kit.store, 'jobs', 'report', 1)

  await kit.expire(a)
  assertRanOut(a, 'A')
  assert.match((a.signal.reason as Error).message, /jobs\/report ran out/)
  await assert.rejects(a.release(), LeaseLostError)

  const second = await b
  assert.ok(second.fence > a.fence, `B's fence ${second.fence} is larger than A's ${a.fence}`)
  assert.equal(second.held, true)
  await second.release()
})

test('expire on a lease no longer held rejects with LeaseLostError', async t => {
  const kit = await testStore(t)
  const lease = await kit.store.locks('jobs').acquire('report')
  await lease.release()
  await assert.rejects(kit.expire(lease), (err: unknown) => err instanceof LeaseLostError && err.code === 'lease_lost')
})

test('advance runs out exactly the leases whose TTL passed', async t => {
  // The store's time is the real one plus what the test advanced: each
  // lease that stays held has seconds of TTL to spare, so that a slow
  // machine's own milliseconds never end it.
  const kit = await testStore(t)
  const locks = kit.store.locks('ttls')
  const short = await locks.acquire('1s', { ttl: 1_000, renew: false })
  const long = await locks.acquire('20s', { ttl: 20_000, renew: false })
  const renewing = await locks.acquire('10s-renewing', { ttl: 10_000 })

  await kit.advance(2_000)
  await aborted(short.signal)
  assertRanOut(short, 'the 1 s lease')
  assert.deepEqual([long.held, renewing.held], [true, true], 'the 20 s lease and the renewing 10 s one are held')
  assert.deepEqual((await kit.store.status()).held.map(h => h.key).sort(), ['10s-renewing', '20s'])

  // 21 s in all: past the 20 s lease's TTL; the renewing lease's TTL (10 s)
  // passed within this step, with nothing renewing it meanwhile.
  await kit.advance(19_000)
  await Promise.all([aborted(long.signal), aborted(renewing.signal)])
  assertRanOut(long, 'the 20 s lease')
  assertRanOut(renewing, 'the renewing 10 s lease')
  assert.equal((await kit.store.status()).heldTotal, 0)

  // A lease granted now counts its TTL from now, not from the store's start.
  const later = await locks.acquire('10s', { ttl: 10_000, renew: false })
  assert.ok(later.fence > short.fence)
  await kit.advance(9_000)
  assert.equal(later.held, true)
  await kit.advance(1_000)
  await aborted(later.signal)
  assertRanOut(later, 'the later 10 s lease')
})

test('advance hands a run-out lease to its waiter', async t => {
  const kit = await testStore(t)
  const locks = kit.store.locks('jobs', { ttl: 1_000, renew: false })
  const a = await locks.acquire('k')
  const b = locks.acquire('k')
  await untilWaiting(kit.store, 'jobs', 'k', 1)
  await kit.advance(1_000)
  const second = await b
  assert.ok(second.fence > a.fence)
  await aborted(a.signal)
  assertRanOut(a, 'A')
})

test('expireKey ends every lease on the key of the groups of that name and counts them', async t => {
  const kit = await testStore(t)
  const lease = await kit.store.locks('jobs').acquire('k')
  const pool = kit.store.semaphore('jobs', 3)
  const permits = [await pool.acquire('k'), await pool.acquire('k')]
  const other = await kit.store.locks('jobs').acquire('other')
  const elsewhere = await kit.store.locks('reports').acquire('k')
  const numbered = await kit.store.locks('jobs').acquire(42)

  assert.equal(await kit.expireKey('jobs', 'k'), 3)
  await Promise.all([lease, ...permits].map(held => aborted(held.signal)))
  for (const held of [lease, ...permits]) assertRanOut(held, `${held.name}/${held.key}`)
  assert.deepEqual([other.held, elsewhere.held], [true, true])
  assert.equal(await kit.expireKey('jobs', 'k'), 0)

  // An integer key is its decimal, as everywhere.
  assert.equal(await expireKey(kit.store, 'jobs', 42n), 1)
  await aborted(numbered.signal)
  assertRanOut(numbered, 'jobs/42')

  await assert.rejects(kit.expireKey('bad name!', 'k'), InvalidError)
  await assert.rejects(kit.expireKey('jobs', 1.5), InvalidError)
})

test('expire: a permit, a read-write lock lease and a leadership', async t => {
  const kit = await testStore(t)
  const pool = kit.store.semaphore('exports', 1)
  const permit = await pool.acquire('k')
  const waiting = pool.acquire('k')
  await untilWaiting(kit.store, 'exports', 'k', 1)
  await kit.expire(permit)
  assertRanOut(permit, 'the permit')
  const next = await waiting
  assert.equal(next.held, true)
  await next.release()

  const rw = kit.store.rwLocks('docs')
  const read = await rw.acquireRead('d')
  await expire(read)
  assertRanOut(read, 'the read')
  const write = await rw.acquireWrite('d')
  await expire(write)
  assertRanOut(write, 'the write')

  const election = kit.store.election('scheduler')
  const leader = await election.campaign('worker-1')
  const follower = election.campaign('worker-2')
  await kit.expire(leader)
  assertRanOut(leader, 'the leadership')
  const second = await follower
  assert.ok(second.fence > leader.fence, 'the next leader has a larger term')
  assert.deepEqual(await election.leader(), { value: 'worker-2', fence: second.fence })
  await second.resign()
})

test('a lease held in a hold: its body sees the signal abort; hold rejects with LeaseLostError', async t => {
  const kit = await testStore(t)
  await assert.rejects(
    kit.store.locks('jobs').hold('report', async lease => {
      await kit.expire(lease)
      assert.equal(lease.signal.aborted, true)
      return 'done'
    }),
    LeaseLostError,
  )
})

test('a served kit expires a second connection\'s lease', async t => {
  const kit = await testStore(t, { served: true })
  assert.match(kit.address ?? '', /^unix:\/.*tinystore\.sock$/)
  const other = await connect(kit.address!)
  t.after(() => other.close())
  const a = await other.locks('jobs').acquire('report')
  const b = kit.store.locks('jobs').acquire('report')
  await untilWaiting(kit.store, 'jobs', 'report', 1)

  await kit.expire(a)
  assertRanOut(a, "the other connection's lease")
  const second = await b
  assert.ok(second.fence > a.fence)

  // And by key, from the kit's own connection, of a lease of the other's.
  const c = await other.locks('jobs').acquire('other')
  assert.equal(await kit.expireKey('jobs', 'other'), 1)
  await aborted(c.signal)
  assertRanOut(c, "the other connection's second lease")
  assert.equal((await other.status()).testing, true)
  await second.release()
})

/** Every control refused on `store` with the exact message; its lease still held. */
async function refusesEverything(store: Store): Promise<void> {
  const lease: Lease = await store.locks('jobs').acquire('report')
  const refused = (err: unknown): boolean => {
    assert.ok(err instanceof InvalidError, `an InvalidError: ${String(err)}`)
    assert.equal(err.code, 'invalid')
    assert.equal(err.message, REFUSAL)
    return true
  }
  await assert.rejects(advance(store, 60_000), refused)
  await assert.rejects(expire(lease), refused)
  await assert.rejects(expireKey(store, 'jobs', 'report'), refused)
  assert.equal(lease.held, true)
  assert.equal(lease.signal.aborted, false)
  assert.equal((await store.status()).testing, false)
  await lease.release()
}

test('a store opened on a directory refuses the controls', async () => {
  const store = await open(tempDir())
  try {
    await refusesEverything(store)
  } finally {
    await store.close()
  }
})

test('a store served without --testing refuses the controls', async () => {
  const dir = tempDir()
  const server = await serve(dir)
  const store = await connect(`unix:${server.socket}`)
  try {
    await refusesEverything(store)
  } finally {
    await store.close()
    await server.close()
  }
})

test('status says testing on a test store, embedded and served', async () => {
  for (const kit of [await TestStore.open(), await TestStore.served()]) {
    try {
      assert.equal((await kit.store.status()).testing, true)
    } finally {
      await kit.close()
    }
  }
})

test('TestStore: its directory and address; close is idempotent and removes the directory', async () => {
  const embedded = await TestStore.open()
  assert.equal(embedded.address, null)
  assert.ok(existsSync(embedded.dir))
  await embedded.close()
  await embedded.close()
  assert.equal(existsSync(embedded.dir), false)

  let dir: string
  {
    await using served = await TestStore.served()
    dir = served.dir
    assert.equal(served.address, `unix:${dir}/tinystore.sock`)
    assert.ok(existsSync(`${dir}/tinystore.sock`))
  }
  assert.equal(existsSync(dir), false, '`await using` closed it')
})

test('the controls check their arguments', async t => {
  const kit = await testStore(t)
  for (const ms of [-1, Number.NaN, Infinity]) await assert.rejects(kit.advance(ms), InvalidError, `advance(${ms})`)
  await assert.rejects(advance('store' as unknown as Store, 1), InvalidError)
  await assert.rejects(kit.advance('1' as unknown as number), InvalidError)
  await assert.rejects(expire({} as unknown as Held), InvalidError)
  await assert.rejects(kit.expireKey(7 as unknown as string, 'k'), InvalidError)
  await kit.advance(0)
})

let closedByTheRunner: TestStore | undefined

test('testStore(t): the kit is open during the test', async t => {
  const kit = await testStore(t)
  closedByTheRunner = kit
  assert.ok(existsSync(kit.dir))
  assert.equal((await kit.store.status()).testing, true)
})

test('testStore(t): t.after closed it when that test ended', () => {
  assert.ok(closedByTheRunner, 'the test before ran')
  assert.equal(existsSync(closedByTheRunner.dir), false)
})

test('testStore without a way to close the kit refuses before opening one', async () => {
  await assert.rejects(testStore(), (err: unknown) => err instanceof InvalidError && /needs jest's or vitest's global afterEach/.test(err.message))
  await assert.rejects(testStore((() => {}) as never), (err: unknown) => err instanceof InvalidError && /jest done callback/.test(err.message))
  await assert.rejects(testStore({ served: 'yes' } as never), InvalidError)
})
