// The runner of the `more_ways` cases of vectors/behaviour.json (read
// its `about`): each case is a script of steps on two handles `a` and `b`
// of one store, run here against the real library (behaviour.test.ts
// registers one test per case and store).
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { TinystoreError, type Lease, type Permit, type PermitOptions, type Store } from 'tinystore'
import { untilWaiting } from './status-wait'

/** One step of a case. */
export interface Step {
  who?: 'a' | 'b'
  do: string
  key?: string
  keys?: string[]
  as?: string
  expect?: string
  message_has?: string
  waiters?: number
  than?: string
  held?: { kind: string; mode?: string; weight: number }[]
  ttl_ms?: number
  wait_ms?: number
  max_hold_ms?: number
  weight?: number
}

/** One case: a group of `group`'s kind called `name`, and its steps. */
export interface MoreWaysCase {
  id: string
  group: 'locks' | 'semaphore' | 'rw_locks'
  name: string
  limit?: number
  stores: string[]
  steps: Step[]
  not_applicable?: Record<string, string>
}

/** What a label holds: a lease, a permit, or every lease of an acquireAll. */
type Held = Lease | Permit | Lease[]

/** How an acquire ended: what it gave (null: refused), or its error. */
type Outcome = { ok: Held | null } | { err: unknown }

/** Longest a step waits for a grant or a loss: only a bound for a broken test. */
const PATIENCE_MS = 20_000

function fenceOf(held: Held): bigint | undefined {
  return !Array.isArray(held) && 'fence' in held ? held.fence : undefined
}

function optionsOf(step: Step): PermitOptions {
  return { ttl: step.ttl_ms, wait: step.wait_ms, maxHold: step.max_hold_ms, weight: step.weight }
}

/** Within PATIENCE_MS, or fails saying `what` never happened. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  const timer = new AbortController()
  const late = sleep(PATIENCE_MS, undefined, { signal: timer.signal }).then(() => {
    throw new Error(`${what} within ${PATIENCE_MS} ms`)
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    timer.abort()
    late.catch(() => {})
  }
}

/** The outcome of `run`, never rejecting. */
function outcome(run: () => Promise<Held | null>): Promise<Outcome> {
  return run().then(
    ok => ({ ok }),
    (err: unknown) => ({ err }),
  )
}

/** Runs `c`'s steps on the handles `a` and `b` of one store. */
export async function runCase(c: MoreWaysCase, a: Store, b: Store): Promise<void> {
  const held = new Map<string, Held>()
  const fences = new Map<string, bigint>()
  const waiting = new Map<string, Promise<Outcome>>()

  /** Takes `key` on `store` as `what` says. */
  function take(store: Store, what: string, key: string, step: Step): Promise<Held | null> {
    const options = optionsOf(step)
    switch (`${c.group} ${what}`) {
      case 'locks try_acquire':
        return store.locks(c.name).tryAcquire(key, options)
      case 'locks acquire':
        return store.locks(c.name).acquire(key, options)
      case 'semaphore try_acquire':
        return store.semaphore(c.name, c.limit!).tryAcquire(key, options)
      case 'semaphore acquire':
        return store.semaphore(c.name, c.limit!).acquire(key, options)
      case 'rw_locks try_read':
        return store.rwLocks(c.name).tryAcquireRead(key, options)
      case 'rw_locks try_write':
        return store.rwLocks(c.name).tryAcquireWrite(key, options)
      case 'rw_locks acquire_read':
        return store.rwLocks(c.name).acquireRead(key, options)
      case 'rw_locks acquire_write':
        return store.rwLocks(c.name).acquireWrite(key, options)
      default:
        throw new Error(`${c.id}: a ${c.group} group cannot ${what}`)
    }
  }

  /** Checks `got` against the step's `expect`, keeping what was granted. */
  function expect(step: Step, got: Outcome): void {
    const wanted = step.expect ?? 'granted'
    const where = `${c.id}: ${JSON.stringify(step)}`
    if ('err' in got) {
      const err = got.err
      assert.ok(err instanceof TinystoreError, `${where}: ${String(err)}`)
      assert.equal(err.code, wanted, `${where}: ${err.message}`)
      assert.ok(err.message.includes(step.message_has ?? ''), `${where}: ${err.message} lacks ${step.message_has}`)
    } else if (got.ok === null) {
      assert.equal(wanted, 'refused', `${where}: refused`)
    } else {
      assert.equal(wanted, 'granted', `${where}: granted`)
      if (step.as === undefined) return
      held.set(step.as, got.ok)
      const fence = fenceOf(got.ok)
      if (fence !== undefined) fences.set(step.as, fence)
    }
  }

  function label(step: Step): Held {
    const h = held.get(step.as ?? '')
    assert.ok(h, `${c.id}: nothing held as ${step.as}`)
    return h
  }

  try {
    for (const step of c.steps) {
      const store = step.who === 'b' ? b : a
      const key = step.key ?? ''
      switch (step.do) {
        case 'try_acquire':
        case 'try_read':
        case 'try_write':
          expect(step, await outcome(() => take(store, step.do, key, step)))
          break
        case 'acquire':
        case 'acquire_read':
        case 'acquire_write':
          waiting.set(step.as!, outcome(() => take(store, step.do, key, step)))
          if (step.waiters !== undefined) await untilWaiting(a, c.name, key, step.waiters)
          break
        case 'acquire_all': {
          const keys = step.keys!
          const got = await outcome(() => store.locks(c.name).acquireAll(keys, optionsOf(step)))
          if ('ok' in got && Array.isArray(got.ok)) {
            assert.deepEqual(got.ok.map(l => l.key), keys, `${c.id}: leases in the caller's order`)
            assert.equal(new Set(got.ok.map(l => l.fence)).size, keys.length, `${c.id}: a fence each`)
          }
          expect(step, got)
          break
        }
        case 'granted': {
          const pending = waiting.get(step.as!)
          assert.ok(pending, `${c.id}: nothing waits as ${step.as}`)
          waiting.delete(step.as!)
          expect(step, await within(pending, `${c.id}: ${step.as} granted`))
          break
        }
        case 'release': {
          const h = label(step)
          held.delete(step.as!)
          for (const one of Array.isArray(h) ? h : [h]) await one.release()
          break
        }
        case 'lost': {
          const h = label(step)
          const signal = (Array.isArray(h) ? h[0] : h).signal
          const reason = await within(
            new Promise<unknown>(resolve => {
              if (signal.aborted) resolve(signal.reason)
              else signal.addEventListener('abort', () => resolve(signal.reason), { once: true })
            }),
            `${c.id}: ${step.as} lost`,
          )
          held.delete(step.as!)
          expect(step, { err: reason })
          break
        }
        case 'no_fence':
          assert.equal(fenceOf(label(step)), undefined, `${c.id}: ${step.as} has no fence`)
          break
        case 'fence_above': {
          const [mine, than] = [fences.get(step.as!), fences.get(step.than!)]
          assert.ok(mine !== undefined && than !== undefined && mine > than, `${c.id}: ${step.as} ${mine} above ${step.than} ${than}`)
          break
        }
        case 'status': {
          const status = await a.status()
          const row = (kind: string, mode: string | null | undefined, weight: number) => `${kind} ${mode ?? '-'} ${weight}`
          const shown = status.held.filter(h => h.name === c.name && h.key === key).map(h => row(h.kind, h.mode, h.weight))
          const wanted = step.held!.map(h => row(h.kind, h.mode, h.weight))
          assert.deepEqual(shown.sort(), wanted.sort(), `${c.id}: status of ${key}`)
          break
        }
        default:
          throw new Error(`${c.id}: unknown step ${step.do}`)
      }
    }
    assert.equal(waiting.size, 0, `${c.id}: ${[...waiting.keys()]} never granted`)
  } finally {
    for (const h of held.values()) for (const one of Array.isArray(h) ? h : [h]) await one.release().catch(() => {})
  }
}
