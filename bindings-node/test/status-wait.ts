// Waiting on a store's state instead of on time: until `store.status()`
// shows the callers a test lines up (its tests: status.test.ts).
import type { Status, Store } from 'tinystore'

/** How long a test waits for a state before it fails: generous, as a slow machine may need. */
export const DEADLINE_MS = 10_000

/** How many callers `status` shows waiting for `name`/`key`. */
export function waiters(status: Status, name: string, key: string): number {
  return status.waiting.filter(w => w.name === name && w.key === key).reduce((n, w) => n + w.waiters, 0)
}

/** Resolves once `count` callers wait for `name`/`key`; rejects after DEADLINE_MS, naming what it saw. */
export async function untilWaiting(store: Store, name: string, key: string, count = 1): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS
  for (;;) {
    const status = await store.status()
    if (waiters(status, name, key) === count) return
    if (Date.now() > deadline) {
      throw new Error(`${count} waiting for ${name}/${key} never shown; the status shows ${JSON.stringify(status.waiting)}`)
    }
    await new Promise(resolve => setTimeout(resolve, 1))
  }
}
