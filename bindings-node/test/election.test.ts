// Elections: campaign and lead on an embedded store, the next campaigner
// leading with a larger term, leader(), observe() seeing every change in
// order (and ending on break, close or a signal), l.signal aborted when
// the store closes during lead or maxHold passes, and two processes
// campaigning through a server.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, test } from 'node:test'
import { ClosedError, Election, InvalidError, Leader, Leadership, LeaseLostError, Observer, Store, UnavailableError, connect, open } from 'tinystore'
import { leadersInTurn, take } from './elections'
import { sleep, tempDir } from './helpers'
import { untilWaiting } from './status-wait'
import { serve } from './server'

let store: Store
before(async () => {
  store = await open(tempDir())
})
after(async () => {
  await store.close()
})

test('lead gives a leadership whose fence is a bigint term; leader() shows it', async () => {
  const election = store.election('scheduler')
  assert.ok(election instanceof Election)
  assert.equal(election.name, 'scheduler')
  assert.equal(await election.leader(), null)
  const term = await election.lead('worker-7', async l => {
    assert.ok(l instanceof Leadership)
    assert.equal(typeof l.fence, 'bigint')
    assert.equal(l.value, 'worker-7')
    assert.equal(l.held, true)
    assert.equal(l.signal.aborted, false)
    assert.deepEqual(await election.leader(), { value: 'worker-7', fence: l.fence })
    // An election and a lock group of one name are apart.
    const lease = await store.locks('scheduler').acquire('k')
    assert.ok(lease.fence > l.fence)
    await lease.release()
    return l.fence
  })
  assert.ok(term > 0n)
  assert.equal(await election.leader(), null)
})

test('a second campaigner waits and leads with a larger term once the first resigns', async () => {
  await leadersInTurn(store, store.election('line'))
})

test('a campaign given up by its signal never leads', async () => {
  const election = store.election('given-up')
  const a = await election.campaign('a')
  const controller = new AbortController()
  const waiting = election.campaign('b', { signal: controller.signal })
  await untilWaiting(store, 'given-up', '', 1)
  controller.abort(new Error('no longer wanted'))
  await assert.rejects(waiting, /no longer wanted/)
  await a.resign()
  assert.equal(await election.leader(), null)
})

test('observe sees every change in order and ends on break, close or its signal', async () => {
  const election = store.election('watched')
  const observer = election.observe()
  const a = await election.campaign('a')
  const bWaiting = election.campaign('b')
  await untilWaiting(store, 'watched', '', 1)
  await a.resign()
  const b = await bWaiting
  await b.resign()
  assert.deepEqual(await take(observer, 4), [null, { value: 'a', fence: a.fence }, { value: 'b', fence: b.fence }, null])

  // for await: break ends it.
  const seen: (Leader | null)[] = []
  const looping = (async () => {
    for await (const leader of election.observe()) {
      seen.push(leader)
      if (seen.length === 3) break
    }
  })()
  await sleep(20)
  await election.lead('c', async () => {})
  await looping
  assert.deepEqual(seen.map(l => l?.value ?? null), [null, 'c', null])

  // close() and the signal end a next() under way.
  observer.close()
  const closing = election.observe()
  assert.deepEqual(await closing.next(), { done: false, value: null })
  const pending = closing.next()
  closing.close()
  assert.deepEqual(await pending, { done: true, value: undefined })
  const controller = new AbortController()
  const signalled = election.observe({ signal: controller.signal })
  assert.deepEqual(await signalled.next(), { done: false, value: null })
  const waitingNext = signalled.next()
  controller.abort()
  assert.equal((await waitingNext).done, true)
})

test('l.signal aborts and lead rejects with ClosedError when the store closes during lead', async () => {
  const own = await open(tempDir())
  const election = own.election('closing')
  const observer = election.observe()
  assert.deepEqual(await observer.next(), { done: false, value: null })
  let reachedEnd = false
  let held: Leadership | undefined
  await assert.rejects(
    election.lead('a', async l => {
      held = l
      assert.equal((await observer.next()).value?.value, 'a')
      setTimeout(() => void own.close(), 20)
      await once(l.signal, 'abort')
      assert.ok(l.signal.reason instanceof ClosedError)
      reachedEnd = true
    }),
    ClosedError,
  )
  assert.equal(reachedEnd, true)
  assert.equal(held?.held, false)
  await assert.rejects(observer.next(), ClosedError)
  assert.equal((await observer.next()).done, true)
  await assert.rejects(election.campaign('b'), ClosedError)
})

test('a leader past maxHold is deposed: l.signal aborts, lead rejects naming max_hold, the next leads with a larger term', async () => {
  const election = store.election('capped', { ttl: 50, maxHold: 200 })
  let term = 0n
  let next: Promise<Leadership> | undefined
  await assert.rejects(
    election.lead('stuck', async l => {
      term = l.fence
      next = store.election('capped').campaign('next')
      await new Promise((_, reject) => l.signal.addEventListener('abort', () => reject(l.signal.reason), { once: true }))
    }),
    (err: unknown) => err instanceof LeaseLostError && /max_hold/.test(err.message),
  )
  assert.ok(next, 'the next campaigner started while stuck led')
  const leadership = await next
  assert.ok(leadership.fence > term)
  await leadership.resign()
  await assert.rejects(election.campaign('x', { maxHold: 5 }), (err: unknown) => err instanceof InvalidError && /max_hold/.test(err.message))
})

test('a bad value, name or option is InvalidError', async () => {
  await assert.rejects(store.election('e').campaign('x'.repeat(1025)), InvalidError)
  await assert.rejects(store.election('e').campaign(7 as unknown as string), InvalidError)
  await assert.rejects(store.election('no spaces').leader(), InvalidError)
  assert.throws(() => store.election('e', { ttl: -1 }), InvalidError)
  await assert.rejects(store.election('e').lead('v', 'no' as unknown as () => void), InvalidError)
})

test('two processes campaign through a server; the stopped leader is replaced with a larger term', async () => {
  const dir = tempDir()
  const server = await serve(path.join(dir, 'data'))
  const leader = spawn(process.execPath, [path.join(__dirname, 'leader-worker.js'), server.socket], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = once(leader, 'exit')
  const said = createInterface({ input: leader.stdout! })[Symbol.asyncIterator]()
  try {
    const first = BigInt(String((await said.next()).value))
    const here = await connect(server.socket)
    const election = here.election('jobs', { wait: 20_000 })
    const observer = election.observe()
    assert.deepEqual(await take(observer, 1), [{ value: 'p1', fence: first }])
    leader.kill('SIGSTOP') // past its TTL: no renewals
    try {
      await election.lead('p2', async mine => {
        assert.ok(mine.fence > first)
        assert.deepEqual(await take(observer, 1), [{ value: 'p2', fence: mine.fence }])
      })
    } finally {
      leader.kill('SIGCONT')
    }
    assert.deepEqual(await take(observer, 1), [null])
    leader.stdin!.write('go\n')
    const report = JSON.parse(String((await said.next()).value)) as { outcome: string }
    assert.equal(report.outcome, 'lease_lost', 'the stopped leader is told it lost')
    await here.close()
  } finally {
    if (leader.exitCode === null && leader.signalCode === null) {
      leader.kill('SIGCONT')
      leader.kill('SIGKILL')
    }
    await exited
    await server.stop()
  }
})

test('a leader whose server is killed is told: l.signal aborts, lead rejects with LeaseLostError, the observer ends', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  const here = await connect(server.socket)
  const election = here.election('jobs')
  const observer = election.observe()
  assert.deepEqual(await take(observer, 1), [null])
  await assert.rejects(
    election.lead('a', async l => {
      assert.deepEqual(await take(observer, 1), [{ value: 'a', fence: l.fence }])
      await server.stop('SIGKILL')
      await once(l.signal, 'abort')
      assert.ok(l.signal.reason instanceof LeaseLostError, `${l.signal.reason}`)
    }),
    LeaseLostError,
  )
  await assert.rejects(observer.next(), UnavailableError)
  await here.close().catch(() => {})
})
