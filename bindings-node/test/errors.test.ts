// Error classes: one per code of the core's table, each a TinystoreError
// with `.code`; what the addon throws arrives as its class; and real
// situations raise them.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import * as tinystore from 'tinystore'
import { ClosedError, InUseError, InvalidError, LeaseLostError, TinystoreError, WaitTimeoutError, errorClasses, open } from 'tinystore'
import type * as Native from '../native'
import { tempDir } from './helpers'

// The addon and the error mapping, as the package loads them.
const native = createRequire(__filename)('../lib/native') as typeof Native
const { mappedSync } = createRequire(__filename)('../lib/errors') as { mappedSync<T>(call: () => T): T }

// Every code but stale, whose class also takes what it carries.
const codes = native.errorCodes().map(c => c.code).filter(c => c !== 'stale') as Exclude<keyof typeof errorClasses, 'stale'>[]

test('every code of the core has its class, exported under the core\'s name', () => {
  const core = native.errorCodes()
  assert.ok(core.some(c => c.code === 'lease_lost' && c.className === 'LeaseLostError'), JSON.stringify(core))
  assert.deepEqual(Object.keys(errorClasses).sort(), core.map(c => c.code).sort())
  for (const { code, className } of core) {
    const Made = errorClasses[code as keyof typeof errorClasses]
    assert.ok(Made, `no class for ${code}`)
    assert.equal(Made.name, className)
    assert.equal((tinystore as Record<string, unknown>)[className], Made, `${className} is exported`)
  }
})

/** What `call` throws, through the package's mapping. */
function thrown(call: () => unknown): unknown {
  try {
    mappedSync(call)
  } catch (err) {
    return err
  }
  assert.fail('nothing was thrown')
}

test('an error the addon throws arrives as its code\'s class, its message whole', () => {
  const message = 'about "k" \\ {"code":"closed"}\nand more'
  for (const { code, className } of native.errorCodes()) {
    const err = thrown(() => native.errorThrow(code, message))
    if (code === 'stale') {
      // A stale error without its fences is a bug, never a StaleError.
      assert.ok(err instanceof tinystore.TinystoreInternalError, `${err}`)
      continue
    }
    assert.ok(err instanceof TinystoreError, `${err}`)
    assert.equal(err.constructor.name, className)
    assert.equal(err.code, code)
    assert.equal(err.message, message)
  }
  const unknown = thrown(() => native.errorThrow('no_such_code', 'x'))
  assert.ok(unknown instanceof InvalidError && /no_such_code/.test(unknown.message), `${unknown}`)
})

test('a stale error the addon throws carries its resource and fences', () => {
  const largest = (1n << 128n) - 1n
  const err = thrown(() => native.errorThrow('stale', '', { resource: 'chats/42', fence: 5n, largest }))
  assert.ok(err instanceof tinystore.StaleError, `${err}`)
  assert.deepEqual([err.resource, err.fence, err.largest], ['chats/42', 5n, largest])
  assert.match(err.message, /chats\/42/)
})

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
    await assert.rejects(held.renew(), (err: unknown) => err instanceof LeaseLostError && /k/.test(err.message))
    await assert.rejects(open(42 as unknown as string), InvalidError)
  } finally {
    await store.close()
  }
})
