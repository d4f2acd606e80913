// Through a server the test starts: connect by socket, by served directory
// and by TCP with a token; cancelled waits; leases lost with the server;
// and the seed's scene with worker A a real process stopped by SIGSTOP.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { test } from 'node:test'
import { ClosedError, LeaseLostError, TinystoreError, UnauthorizedError, UnavailableError, connect, open } from 'tinystore'
import { sleep, tempDir } from './helpers'
import { untilWaiting } from './status-wait'
import { chatsDb, summarizeChat } from './seed'
import { serve } from './server'

test('clients of one server exclude each other and share one fence sequence', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  try {
    const one = await connect(`unix:${server.socket}`)
    const two = await open(path.join(server.socket, '..')) // a served directory connects
    const a = await one.locks('summaries').acquire(7)
    assert.equal(await two.locks('summaries').tryAcquire('7'), null)
    const waiting = two.locks('summaries').acquire(7n)
    await untilWaiting(one, 'summaries', '7', 1)
    await a.release()
    const b = await waiting
    assert.ok(b.fence > a.fence)
    assert.equal(await two.locks('summaries').hold(8, lease => typeof lease.fence), 'bigint')
    await b.release()
    const permits = two.semaphore('exports', 2)
    const p1 = await permits.acquire('k')
    const p2 = await permits.acquire('k')
    assert.equal(await permits.tryAcquire('k'), null)
    await Promise.all([p1.release(), p2.release()])
    await one.close()
    await two.close()
  } finally {
    await server.stop()
  }
})

test('a signal cancels a wait on the server without leaking a lease', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  try {
    const one = await connect(server.socket)
    const two = await connect(server.socket)
    const held = await one.locks('l').acquire('k')
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController()
      const waiting = two.locks('l').acquire('k', { signal: controller.signal })
      await sleep(i % 3)
      controller.abort()
      await assert.rejects(waiting, { name: 'AbortError' })
    }
    await held.release()
    // The last give-up and the release travel on two connections, so the
    // server may grant the key to the waiter just given up; its client then
    // releases that grant. Wait for the key far less than the TTL, so that a
    // leaked lease, held until it runs out, fails.
    const free = await two.locks('l').acquire('k', { wait: 5_000 })
    await free.release()
    await one.close()
    await two.close()
  } finally {
    await server.stop()
  }
})

test('aborts crossing grants on the server never leak a lease', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  try {
    const one = await connect(server.socket)
    const two = await connect(server.socket)
    for (let i = 0; i < 50; i++) {
      const held = await one.locks('x').acquire('k')
      const controller = new AbortController()
      const waiting = two.locks('x', { ttl: 600_000 }).acquire('k', { signal: controller.signal }).then(
        lease => lease.release().then(() => 'granted'),
        (err: unknown) => {
          assert.equal((err as Error).name, 'AbortError')
          return 'aborted'
        },
      )
      await sleep(i % 3)
      // Release and abort at once, so the grant and the give-up cross.
      const released = held.release()
      controller.abort()
      await released
      await waiting
      // A give-up reaches the server on its own connection, so another
      // connection may find the key held a moment longer: wait for it, for
      // far less than the TTL, so a lease leaked and left to run out fails.
      const free = await one.locks('x').acquire('k', { wait: 5_000 })
      await free.release()
    }
    await one.close()
    await two.close()
  } finally {
    await server.stop()
  }
})

test('a connected store closed during hold rejects with ClosedError', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  try {
    const client = await connect(server.socket)
    const holding = client.locks('l').hold('k', async lease => {
      await client.close()
      assert.equal(lease.held, false)
      return 'finished after the close'
    })
    await assert.rejects(holding, (err: unknown) => err instanceof ClosedError && err.code === 'closed')
  } finally {
    await server.stop()
  }
})

test('lease.signal aborts when the server is killed; later calls are unavailable', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  const store = await connect(server.socket)
  const lease = await store.locks('l').acquire('k')
  const lost = new Promise(resolve => lease.signal.addEventListener('abort', resolve, { once: true }))
  await server.stop('SIGKILL')
  await lost
  assert.ok(lease.signal.reason instanceof LeaseLostError, `${lease.signal.reason}`)
  assert.equal(lease.held, false)
  await assert.rejects(store.locks('l').acquire('k', { wait: 1000 }), TinystoreError)
  await store.close().catch(() => {})
  await assert.rejects(connect(server.socket), UnavailableError)
})

test('TCP needs the token', async () => {
  const token = 'a-token-of-at-least-sixteen-bytes'
  const server = await serve(path.join(tempDir(), 'data'), token)
  try {
    assert.ok(server.tcp, 'the server says its TCP address')
    const store = await connect(server.tcp, { token })
    assert.equal(await store.locks('t').hold('k', lease => lease.fence > 0n), true)
    await store.close()
    await assert.rejects(
      connect(server.tcp, { token: 'a-wrong-token-of-sixteen-bytes' }).then(s => s.locks('t').acquire('k')),
      UnauthorizedError,
    )
  } finally {
    await server.stop()
  }
})

test('the seed\'s scene: worker A stopped by SIGSTOP past its TTL, its late write refused', async () => {
  const dir = tempDir()
  const storeDir = path.join(dir, 'data')
  const dbFile = path.join(dir, 'chat.db')
  const server = await serve(storeDir)
  const worker = spawn(process.execPath, [path.join(__dirname, 'seed-worker.js'), storeDir, dbFile, '200'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = once(worker, 'exit')
  const said = createInterface({ input: worker.stdout! })[Symbol.asyncIterator]()
  try {
    assert.equal((await said.next()).value, 'holding')
    worker.kill('SIGSTOP') // a long garbage collection: no renewals
    const writes: { fence: string; changes: number }[] = []
    const { db, raw } = chatsDb(dbFile, writes)
    const store = await connect(server.socket)
    const summaries = store.locks('summaries', { ttl: 5_000 })
    await summarizeChat(summaries, 1, { summarize: async () => 'summary by B' }, async () => [], db)
    assert.deepEqual(writes.map(w => w.changes), [1], 'B saved')
    worker.kill('SIGCONT')
    worker.stdin!.write('go\n')
    const a = JSON.parse(String((await said.next()).value)) as { outcome: string; writes: { fence: string; changes: number }[] }
    assert.equal(a.outcome, LeaseLostError.name, 'A learns its lease was lost')
    assert.equal(a.writes.length, 1)
    assert.equal(a.writes[0].changes, 0, 'A\'s late write is refused')
    assert.ok(BigInt(a.writes[0].fence) < BigInt(writes[0].fence))
    const row = raw.prepare('select summary, summary_fence from chats where id = 1').get()
    assert.deepEqual(row, { summary: 'summary by B', summary_fence: writes[0].fence })
    raw.close()
    await store.close()
  } finally {
    if (worker.exitCode === null && worker.signalCode === null) {
      worker.kill('SIGCONT')
      worker.kill('SIGKILL')
    }
    await exited
    await server.stop()
  }
})
