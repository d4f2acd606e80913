// tinystore on etcd through the Node binding: a real single-member etcd on
// loopback in a temp dir, reached with connect('etcd://...'), the same core
// as every other address (docs/etcd.md): locks, semaphores, elections and
// the more ways to hold (the vectors' more_ways cases).
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { test } from 'node:test'
import { type Store, connect } from 'tinystore'
import { keptDefaultedAndRefused } from './data-steps'
import { leadersInTurn } from './elections'
import { runCase, type MoreWaysCase } from './more-ways-steps'
import { repo, sleep, tempDir } from './helpers'

/** Two distinct loopback TCP ports that were free a moment ago (both held open while chosen). */
async function freePorts(): Promise<[number, number]> {
  const servers = [createServer(), createServer()]
  const ports: number[] = []
  for (const server of servers) {
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const address = server.address()
    assert.ok(address !== null && typeof address === 'object')
    ports.push(address.port)
  }
  for (const server of servers) {
    server.close()
    await once(server, 'close')
  }
  return [ports[0], ports[1]]
}

/** The last lines of etcd's log in `dir`, for an error message. */
function logTail(dir: string): string {
  try {
    return readFileSync(path.join(dir, 'etcd.log'), 'utf8').trimEnd().split('\n').slice(-8).join('\n')
  } catch (error) {
    return `(no log: ${(error as Error).message})`
  }
}

/**
 * Starts a single-member etcd in `dir`; resolves with it and its client
 * address once healthy. A member that exits while starting (a port taken
 * between choosing and binding it) is tried again on new ports, three times
 * in all; the error then carries the end of each log.
 */
async function startEtcd(dir: string): Promise<{ child: ChildProcess; client: string }> {
  const failures: string[] = []
  for (let attempt = 1; attempt <= 3; attempt++) {
    const tryDir = path.join(dir, `try-${attempt}`)
    mkdirSync(tryDir)
    const started = await startEtcdOnce(tryDir)
    if ('child' in started) return started
    failures.push(`try ${attempt}: ${started.failed}\n${logTail(tryDir)}`)
  }
  throw new Error(`etcd did not start:\n${failures.join('\n')}`)
}

/** One try of startEtcd: the running member, or why it failed. */
async function startEtcdOnce(dir: string): Promise<{ child: ChildProcess; client: string } | { failed: string }> {
  const [client, peer] = await freePorts()
  const c = `http://127.0.0.1:${client}`
  const p = `http://127.0.0.1:${peer}`
  const log = openSync(path.join(dir, 'etcd.log'), 'w')
  const child = spawn('etcd', [
    '--name', 't', '--data-dir', path.join(dir, 'etcd'),
    '--listen-client-urls', c, '--advertise-client-urls', c,
    '--listen-peer-urls', p, '--initial-advertise-peer-urls', p,
    '--initial-cluster', `t=${p}`,
  ], { stdio: ['ignore', log, log] })
  closeSync(log)
  let failed: string | undefined
  child.on('error', error => (failed = `etcd could not run (apt-get install etcd-server): ${error.message}`))
  child.on('exit', (code, signal) => (failed ??= `etcd exited with ${code ?? signal}`))
  const deadline = Date.now() + 20_000
  for (;;) {
    if (failed) return { failed }
    try {
      const answer = await fetch(`${c}/health`, { signal: AbortSignal.timeout(1000) })
      if ((await answer.text()).includes('"health":"true"')) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill()
      return { failed: 'etcd did not become healthy in 20 s' }
    }
    await sleep(50)
  }
  return { child, client: `127.0.0.1:${client}` }
}

/** Runs `fn` with a store on a new etcd, then closes both. */
async function onEtcd(fn: (store: Store) => Promise<void>): Promise<void> {
  await withEtcd(async client => {
    const store = await connect(`etcd://${client}/test-node`)
    try {
      await fn(store)
    } finally {
      await store.close()
    }
  })
}

/** Runs `fn` with the client address of a new etcd, then stops it. */
async function withEtcd(fn: (client: string) => Promise<void>): Promise<void> {
  const etcd = await startEtcd(tempDir('tinystore-etcd-'))
  try {
    await fn(etcd.client)
  } finally {
    if (etcd.child.exitCode === null) {
      const exited = once(etcd.child, 'exit')
      etcd.child.kill('SIGTERM')
      await exited
    }
  }
}

test('locks and a semaphore on a real etcd', async () => {
  await onEtcd(async store => {
    const locks = store.locks('jobs')
    const first = await locks.acquire('k')
    assert.equal(typeof first.fence, 'bigint')
    assert.equal(await locks.tryAcquire('k'), null, 'held: no second holder')
    await first.release()
    assert.equal(first.held, false)

    const second = await locks.acquire('k', { wait: 5000 }) // released: free again
    assert.ok(second.fence > first.fence, `${second.fence} > ${first.fence}`)
    await second.release()
    const third = await locks.tryAcquire('k')
    assert.ok(third !== null && third.fence > second.fence)
    await third.release()

    const exports = store.semaphore('exports', 1)
    const permit = await exports.acquire('daily')
    assert.ok(permit.held && !('fence' in permit))
    assert.equal(await exports.tryAcquire('daily'), null)
    await permit.release()
    const again = await exports.tryAcquire('daily')
    assert.ok(again !== null && again.held)
    await again.release()
  })
})

test('data on a lease on a real etcd: kept, shown by status, defaulted, refused when too long', async () => {
  await onEtcd(keptDefaultedAndRefused)
})

test('an election on a real etcd: leaders in turn with rising terms, an observer sees each', async () => {
  await onEtcd(store => leadersInTurn(store, store.election('scheduler', { wait: 20_000 })))
})


test('the more ways to hold on a real etcd: every more_ways case of the vectors, on two connections', async () => {
  const vectors: { more_ways: { cases: MoreWaysCase[] } } = JSON.parse(readFileSync(path.join(repo, 'vectors', 'behaviour.json'), 'utf8'))
  await withEtcd(async client => {
    for (const [i, c] of vectors.more_ways.cases.entries()) {
      // A prefix of its own per case: a store apart on the same etcd.
      const address = `etcd://${client}/test-node-more-${i}`
      const [a, b] = [await connect(address), await connect(address)]
      try {
        await runCase(c, a, b)
      } finally {
        await a.close()
        await b.close()
      }
    }
  })
})
