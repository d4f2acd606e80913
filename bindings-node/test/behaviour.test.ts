// Every case of vectors/behaviour.json against the real library: what hold
// gives for each way its function and its lease can end (on an embedded
// store and over a real `tinystore serve`, killed or stopped), which
// error each bad input gets, and the more ways to hold (read-write locks,
// weighted permits, several keys, maxHold: more-ways-steps.ts runs their
// steps). A case this runner cannot express fails, unless the file marks
// it not applicable to TypeScript.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { connect, open, TinystoreError, type Key, type Lease, type Options, type Store } from 'tinystore'
import { repo, tempDir } from './helpers'
import { runCase, type MoreWaysCase } from './more-ways-steps'
import { serve, type Server } from './server'

interface HoldCase {
  id: string
  store: string
  during: string
  body: string
  ttl_ms?: number
  renew?: boolean
  expect: string
}

type Text = string | { repeat: string; times: number }

interface BadCase {
  id: string
  group: string
  name: Text
  key: Text | { float: number }
  limit?: number
  ttl_ms?: number
  wait_ms?: number | string
  held_first?: number
  stores: string[]
  expect: string
  message_has: string
  not_applicable?: Record<string, string>
}

const vectors: {
  hold: { cases: HoldCase[] }
  hold_end: { cases: HoldCase[] }
  bad_input: { cases: BadCase[] }
  more_ways: { cases: MoreWaysCase[] }
} = JSON.parse(
  readFileSync(path.join(repo, 'vectors', 'behaviour.json'), 'utf8'),
)
const VALUE = "the body's value"

class OwnError extends Error {}

/** A store of the kind a case names, with the server behind it if served. */
async function storeOf(kind: string): Promise<{ store: Store; server?: Server }> {
  const dir = path.join(tempDir(), 'store')
  if (kind === 'embedded') return { store: await open(dir) }
  if (kind === 'served') {
    const server = await serve(dir)
    return { store: await connect(`unix:${server.socket}`), server }
  }
  throw new Error(`unknown store ${kind}`)
}

/** Resolves when the lease is lost (its signal aborts). */
function lost(lease: Lease): Promise<void> {
  return new Promise(resolve => {
    if (lease.signal.aborted) resolve()
    else lease.signal.addEventListener('abort', () => resolve(), { once: true })
  })
}

/** What a hold gave: 'value', 'body_error' or a tinystore error code. */
async function resultOf(run: () => Promise<unknown>): Promise<string> {
  try {
    assert.equal(await run(), VALUE)
    return 'value'
  } catch (err) {
    if (err instanceof OwnError) return 'body_error'
    if (err instanceof TinystoreError) return err.code
    throw err
  }
}

/** Longest a case waits for a loss: only a bound for a broken test. */
const LOST_WITHIN = 20_000

for (const [section, c] of [
  ...vectors.hold.cases.map(c => ['hold', c] as const),
  ...vectors.hold_end.cases.map(c => ['hold_end', c] as const),
]) {
  test(`${section}: ${c.id}`, async () => {
    const { store, server } = await storeOf(c.store)
    try {
      const locks = store.locks('behaviour', { ttl: c.ttl_ms, renew: c.renew })
      const got = await resultOf(() =>
        locks.hold('k', async lease => {
          switch (c.during) {
            case 'nothing':
              break
            case 'released':
              await lease.release()
              break
            case 'runs_out':
              await lost(lease)
              break
            case 'store_closes':
              await store.close()
              await lost(lease)
              break
            case 'server_killed':
            case 'server_stopped':
              assert.ok(server, `${c.id} needs a served store`)
              server.process.kill(c.during === 'server_killed' ? 'SIGKILL' : 'SIGTERM')
              await lost(lease)
              break
            default:
              throw new Error(`${c.id}: unknown event ${c.during}`)
          }
          if (c.body === 'error') throw new OwnError(c.id)
          if (c.body === 'cancelled') {
            // Rejects with an AbortError caused by the signal's reason: only
            // the abort the loss caused, which the hold answers as the loss.
            await sleep(LOST_WITHIN, undefined, { signal: lease.signal })
            throw new Error(`${c.id}: the signal never aborted`)
          }
          if (c.body !== 'value') throw new Error(`${c.id}: unknown body ${c.body}`)
          return VALUE
        }),
      )
      assert.equal(got, c.expect, c.id)
    } finally {
      await store.close()
      await server?.stop('SIGKILL')
    }
  })
}

function text(value: BadCase['name'] | BadCase['key'], id: string): string {
  if (typeof value === 'string') return value
  if ('repeat' in value) return value.repeat.repeat(value.times)
  throw new Error(`${id}: no text for ${JSON.stringify(value)}`)
}

function keyOf(value: BadCase['key'], id: string): Key {
  return typeof value === 'object' && 'float' in value ? value.float : text(value, id)
}

function millis(value: number | string | undefined, id: string): number | undefined {
  if (value === undefined || typeof value === 'number') return value
  if (value === 'infinity') return Infinity
  throw new Error(`${id}: no duration for ${value}`)
}

for (const c of vectors.bad_input.cases) {
  for (const kind of c.stores) {
    const reason = c.not_applicable?.typescript
    test(`bad input: ${c.id} on ${kind}`, { skip: reason && `not applicable to TypeScript: ${reason}` }, async () => {
      const { store, server } = await storeOf(kind)
      let ran = false
      try {
        const name = text(c.name, c.id)
        const options: Options = { ttl: c.ttl_ms, wait: millis(c.wait_ms, c.id) }
        const err = await (async () => {
          if (c.held_first !== undefined) await store.semaphore(name, c.held_first).acquire(keyOf(c.key, c.id))
          const group =
            c.group === 'locks' ? store.locks(name) : c.group === 'semaphore' ? store.semaphore(name, c.limit!) : undefined
          if (group === undefined) throw new Error(`${c.id}: unknown group ${c.group}`)
          await group.hold(keyOf(c.key, c.id), () => {
            ran = true
          }, options)
        })().then(
          () => assert.fail(`${c.id}: hold succeeded`),
          (e: unknown) => e,
        )
        assert.ok(!ran, `${c.id}: the body ran`)
        assert.ok(err instanceof TinystoreError, `${c.id}: ${String(err)}`)
        assert.equal(err.code, c.expect, `${c.id}: ${err.message}`)
        assert.ok(err.message.includes(c.message_has), `${c.id}: ${err.message} does not name ${c.message_has}`)
      } finally {
        await store.close()
        await server?.stop('SIGKILL')
      }
    })
  }
}

for (const c of vectors.more_ways.cases) {
  for (const kind of c.stores) {
    const reason = c.not_applicable?.typescript
    test(`more ways: ${c.id} on ${kind}`, { skip: reason && `not applicable to TypeScript: ${reason}` }, async () => {
      // Two handles of one store: the same open store twice, or two
      // connections to one server.
      const dir = path.join(tempDir(), 'store')
      const server = kind === 'served' ? await serve(dir) : undefined
      if (kind !== 'embedded' && kind !== 'served') throw new Error(`unknown store ${kind}`)
      const a = server ? await connect(`unix:${server.socket}`) : await open(dir)
      const b = server ? await connect(`unix:${server.socket}`) : a
      try {
        await runCase(c, a, b)
      } finally {
        await a.close()
        await b.close()
        await server?.stop('SIGKILL')
      }
    })
  }
}

test('the more_ways section has its cases', () => {
  assert.ok(vectors.more_ways.cases.length >= 8, 'the section lost cases')
})

test('every not_applicable names a language and a reason', () => {
  for (const c of [...vectors.bad_input.cases, ...vectors.more_ways.cases]) {
    for (const [language, reason] of Object.entries(c.not_applicable ?? {})) {
      assert.ok(['rust', 'python', 'typescript', 'go'].includes(language) && reason, c.id)
    }
  }
})
