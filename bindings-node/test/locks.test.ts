// Locks in one process: acquire, tryAcquire, hold, keys, options, waits that
// leave the event loop free, signals that cancel waits, lost leases.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ClosedError, InvalidError, LeaseLostError, Store, WaitTimeoutError, open } from 'tinystore'
import { gate, sleep, tempDir } from './helpers'
import { untilWaiting } from './status-wait'

let store: Store
before(async () => {
  store = await open(tempDir())
})
after(async () => {
  await store.close()
})

test('acquire gives a lease with a bigint fence; tryAcquire refuses a held key', async () => {
  const locks = store.locks('basics')
  const lease = await locks.acquire('a')
  assert.equal(typeof lease.fence, 'bigint')
  assert.ok(lease.fence > 1n << 64n, 'the epoch is in the high bits')
  assert.equal(lease.held, true)
  assert.equal(lease.key, 'a')
  assert.equal(lease.name, 'basics')
  assert.equal(await locks.tryAcquire('a'), null)
  await lease.release()
  await lease.release() // idempotent
  assert.equal(lease.held, false)
  const next = await locks.tryAcquire('a')
  assert.ok(next)
  assert.ok(next.fence > lease.fence)
  await next.release()
})

test('42, 42n and "42" are one key; a non-integer number is refused', async () => {
  const locks = store.locks('keys')
  const lease = await locks.acquire(42)
  assert.equal(lease.key, '42')
  assert.equal(await locks.tryAcquire('42'), null)
  assert.equal(await locks.tryAcquire(42n), null)
  await lease.release()
  const big = await locks.acquire(2n ** 100n)
  assert.equal(big.key, (2n ** 100n).toString())
  await big.release()
  const huge = await locks.acquire(1e21)
  assert.equal(huge.key, '1000000000000000000000')
  await huge.release()
  await assert.rejects(locks.acquire(1.5), InvalidError)
  await assert.rejects(locks.acquire(NaN), InvalidError)
  await assert.rejects(locks.acquire({} as unknown as string), InvalidError)
  await assert.rejects(locks.acquire(''), InvalidError)
})

test('hold returns what fn returned and releases on every exit path', async () => {
  const locks = store.locks('hold')
  const value = await locks.hold('k', async lease => `fence ${lease.fence}`)
  assert.match(value, /^fence \d+$/)
  assert.ok(await locks.tryAcquire('k').then(l => l?.release().then(() => true)))
  await assert.rejects(
    locks.hold('k', async () => {
      throw new Error('boom')
    }),
    /boom/,
  )
  const free = await locks.tryAcquire('k')
  assert.ok(free, 'released after a throw')
  await free.release()
  assert.equal(await locks.hold('k', () => 7), 7, 'a plain function works too')
  await assert.rejects(locks.hold('k', 'not a function' as unknown as () => void), InvalidError)
  const still = await locks.tryAcquire('k')
  assert.ok(still, 'a refused hold took nothing')
  await still.release()
})

test('await using releases the lease at the end of the block', async () => {
  const locks = store.locks('using')
  {
    await using lease = await locks.acquire('u')
    assert.equal(lease.held, true)
    assert.equal(await locks.tryAcquire('u'), null)
  }
  const after = await locks.tryAcquire('u')
  assert.ok(after)
  await after.release()
})

test('timers fire while acquire waits', async () => {
  const locks = store.locks('timers')
  const first = await locks.acquire('t')
  let ticks = 0
  const timer = setInterval(() => ticks++, 2)
  let ticksWhenGranted = -1
  const waiting = locks.acquire('t').then(lease => {
    ticksWhenGranted = ticks
    return lease
  })
  while (ticks < 10) await sleep(2)
  assert.equal(ticksWhenGranted, -1, 'still waiting after ten ticks')
  await first.release()
  const second = await waiting
  clearInterval(timer)
  assert.ok(ticksWhenGranted >= 10)
  assert.ok(second.fence > first.fence)
  await second.release()
})

test('wait runs out with WaitTimeoutError; group and call options both apply', async () => {
  const locks = store.locks('wait', { wait: 20 })
  const held = await locks.acquire('w')
  await assert.rejects(locks.acquire('w'), WaitTimeoutError)
  await assert.rejects(locks.acquire('w', { wait: 0 }), (err: unknown) => err instanceof WaitTimeoutError && err.code === 'timeout')
  await held.release()
})

test('a signal cancels a wait without leaking a lease', async () => {
  const locks = store.locks('signal')
  const held = await locks.acquire('s')
  const controller = new AbortController()
  const waiting = locks.acquire('s', { signal: controller.signal })
  await untilWaiting(store, 'signal', 's', 1)
  controller.abort()
  await assert.rejects(waiting, (err: unknown) => err instanceof Error && err.name === 'AbortError')
  await held.release()
  const free = await locks.tryAcquire('s')
  assert.ok(free, 'the cancelled waiter holds nothing')
  await free.release()
  await assert.rejects(locks.acquire('s', { signal: AbortSignal.abort() }), { name: 'AbortError' })
})

test('aborts crossing grants never leak a lease', async () => {
  const locks = store.locks('crossing')
  for (let i = 0; i < 200; i++) {
    const held = await locks.acquire('x')
    const controller = new AbortController()
    const waiting = locks.acquire('x', { signal: controller.signal }).then(
      lease => lease.release().then(() => 'granted'),
      () => 'aborted',
    )
    // Release and abort at once, in either order, so the grant and the
    // give-up cross.
    if (i % 2) {
      controller.abort()
      await held.release()
    } else {
      const released = held.release()
      controller.abort()
      await released
    }
    await waiting
    const free = await locks.tryAcquire('x')
    assert.ok(free, `round ${i}: the key is free afterwards`)
    await free.release()
  }
})

test('a group signal cancels the waits of the group', async () => {
  const controller = new AbortController()
  const locks = store.locks('group-signal', { signal: controller.signal })
  const held = await locks.acquire('g')
  const waiting = locks.acquire('g')
  controller.abort(new Error('shutting down'))
  await assert.rejects(waiting, /shutting down/)
  await held.release()
})

test('many concurrent holds never have two holders, and fences grow in grant order', async () => {
  const locks = store.locks('many')
  let inside = 0
  const fences: bigint[] = []
  const n = 100
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      locks.hold('one', async lease => {
        assert.equal(inside, 0, 'nobody else holds the key')
        inside++
        fences.push(lease.fence)
        await sleep(0)
        inside--
        return i
      }),
    ),
  )
  assert.equal(results.length, n)
  assert.deepEqual([...results].sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i))
  for (let i = 1; i < fences.length; i++) assert.ok(fences[i - 1] < fences[i])
})

test('lease.signal aborts when a lease with renew off runs out', async () => {
  const locks = store.locks('expire', { ttl: 30, renew: false })
  const lease = await locks.acquire('e')
  const signal = lease.signal
  assert.equal(signal.aborted, false)
  await new Promise(resolve => signal.addEventListener('abort', resolve, { once: true }))
  assert.ok(signal.reason instanceof LeaseLostError)
  assert.equal(lease.held, false)
  await assert.rejects(lease.renew(), LeaseLostError)
  await assert.rejects(lease.release(), LeaseLostError)
  const next = await locks.tryAcquire('e')
  assert.ok(next && next.fence > lease.fence)
  await next.release()
})

test('a renewed lease outlives its ttl; renew off per call overrides the group', async () => {
  const locks = store.locks('renew', { ttl: 300 })
  const kept = await locks.acquire('r')
  const lapsing = await locks.acquire('r2', { renew: false })
  await new Promise(resolve => lapsing.signal.addEventListener('abort', resolve, { once: true }))
  await sleep(150)
  assert.equal(kept.held, true, 'renewed every ttl/3')
  assert.equal(lapsing.held, false)
  await kept.renew()
  await kept.release()
})

test('hold turns a success into LeaseLostError when the lease was lost', async () => {
  const locks = store.locks('hold-lost', { ttl: 20, renew: false })
  const done = gate()
  await assert.rejects(
    locks.hold('h', async lease => {
      await new Promise(resolve => lease.signal.addEventListener('abort', resolve, { once: true }))
      done.open()
      return 'finished late'
    }),
    LeaseLostError,
  )
  await done.promise
})

test('a store closed during hold rejects with ClosedError; the body\'s own error still wins', async () => {
  for (const body of ['returns', 'throws'] as const) {
    const closing = await open(tempDir())
    const own = new Error('the body failed')
    const holding = closing.locks('hold-closed').hold('h', async lease => {
      const lost = new Promise(resolve => lease.signal.addEventListener('abort', resolve, { once: true }))
      await closing.close()
      await lost
      assert.equal(lease.held, false)
      if (body === 'throws') throw own
      return 'finished after the close'
    })
    if (body === 'returns') await assert.rejects(holding, (err: unknown) => err instanceof ClosedError && err.code === 'closed')
    else await assert.rejects(holding, (err: unknown) => err === own)
  }
})

test('a lease the body released itself was not lost: hold gives the value', async () => {
  const locks = store.locks('hold-released')
  assert.equal(await locks.hold('h', async lease => (await lease.release(), 'value')), 'value')
  const free = await locks.tryAcquire('h')
  assert.ok(free)
  await free.release()
})

test('options are checked: ttl range, types', async () => {
  await assert.rejects(store.locks('opts').acquire('o', { ttl: 5 }), InvalidError)
  await assert.rejects(store.locks('opts').acquire('o', { ttl: -1 }), InvalidError)
  assert.throws(() => store.locks('opts', { wait: 'soon' as unknown as number }), InvalidError)
  assert.throws(() => store.locks('opts', { renew: 1 as unknown as boolean }), InvalidError)
  assert.throws(() => store.locks(3 as unknown as string), InvalidError)
})
