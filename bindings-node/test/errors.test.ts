// Error classes: one per code, each a TinystoreError with `.code`, raised
// by real situations.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { test } from 'node:test'
import * as tinystore from 'tinystore'
import { ClosedError, InUseError, InvalidError, LeaseLostError, TinystoreError, WaitTimeoutError, errorClasses, open } from 'tinystore'
import { tempDir } from './helpers'

const codes = ['timeout', 'lease_lost', 'in_use', 'closed', 'invalid', 'limit', 'unauthorized', 'corrupt', 'io', 'unavailable', 'internal'] as const

test('one exported class per code, each extending TinystoreError', () => {
  // stale's class also takes what it carries: guard.test.ts covers it.
  assert.deepEqual(Object.keys(errorClasses).sort(), [...codes, 'stale'].sort())
  for (const code of codes) {
    const Made = errorClasses[code]
    const err = new Made('about something')
    assert.ok(err instanceof TinystoreError)
    assert.ok(err instanceof Error)
    assert.equal(err.code, code)
    assert.equal(err.message, 'about something')
    assert.equal((tinystore as Record<string, unknown>)[Made.name], Made, `${Made.name} is exported`)
    assert.equal(err.name, Made.name)
    assert.equal(Object.prototype.hasOwnProperty.call(globalThis, Made.name), false, `${Made.name} clashes with no global`)
  }
})

test('closed: a waiter fails and later calls fail when the store closes', async () => {
  const store = await open(tempDir())
  const locks = store.locks('c')
  const lease = await locks.acquire('k')
  const waiting = assert.rejects(locks.acquire('k'), ClosedError)
  const lost = new Promise(resolve => lease.signal.addEventListener('abort', resolve, { once: true }))
  await store.close()
  await waiting
  await lost
  assert.ok(lease.signal.reason instanceof TinystoreError)
  assert.equal(lease.held, false)
  await assert.rejects(locks.acquire('k'), (err: unknown) => err instanceof ClosedError && err.code === 'closed')
  await store.close() // idempotent
})

test('in_use: another process owns the directory, named by its pid', async () => {
  const dir = tempDir()
  // The child owns the store until its stdin closes.
  const owner = `require('tinystore').open(${JSON.stringify(dir)}).then(() => { console.log('ready'); process.stdin.resume() })`
  const child = spawn(process.execPath, ['-e', owner], {
    cwd: __dirname,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = once(child, 'exit')
  try {
    const [chunk] = await once(child.stdout, 'data')
    assert.match(String(chunk), /ready/)
    await assert.rejects(open(dir), (err: unknown) => err instanceof InUseError && err.message.includes(String(child.pid)))
  } finally {
    child.kill('SIGKILL')
    await exited
  }
})

test('invalid, timeout and lease_lost carry their messages', async () => {
  const store = await open(tempDir())
  try {
    await assert.rejects(store.locks('x y').acquire('k'), (err: unknown) => err instanceof InvalidError && /name "x y"/.test(err.message))
    await assert.rejects(store.locks('n').acquire('k'.repeat(1025)), (err: unknown) => err instanceof InvalidError && /1024/.test(err.message))
    const held = await store.locks('n').acquire('k')
    await assert.rejects(store.locks('n').acquire('k', { wait: 10 }), (err: unknown) => err instanceof WaitTimeoutError && /n/.test(err.message))
    await held.release()
    await assert.rejects(held.renew(), LeaseLostError)
    await assert.rejects(open(42 as unknown as string), InvalidError)
  } finally {
    await store.close()
  }
})
