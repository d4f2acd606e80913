// What the guards' lost-answer tests set up alike: one key's two leases in
// turn, the older released and the newer held, whose fence is larger (a
// holder that paused past its lease, and the one after it); the late
// writes the store counts; a client whose first write lets another writer
// in; and the check that an error leaves a write in doubt.
import assert from 'node:assert/strict'
import { type Lease, StaleError, type Store, TinystoreError } from 'tinystore'

/** Key "42" of the locks "chats" in `store`, held twice in turn. */
export async function superseded(store: Store): Promise<{ older: Lease; newer: Lease }> {
  const locks = store.locks('chats')
  const older = await locks.acquire('42')
  await older.release()
  return { older, newer: await locks.acquire('42') }
}

/** Each group's count of late writes refused, as [name, kind, refused]. */
export async function counts(store: Store): Promise<[string, string, number][]> {
  return (await store.status()).lateWritesRefused.map(r => [r.name, r.kind, r.refused])
}

/** `client`, whose `method` runs `first` before its first call goes through. */
export function racing<T extends object>(client: T, method: keyof T & string, first: () => Promise<void>): T {
  const inner = client[method] as (...args: unknown[]) => Promise<unknown>
  let ran = false
  return Object.create(client, {
    [method]: {
      value: async (...args: unknown[]) => {
        if (!ran) {
          ran = true
          await first()
        }
        return inner.apply(client, args)
      },
    },
  }) as T
}

/** Passes when `err` is `unavailable` with the write in doubt, not stale. */
export function inDoubt(err: unknown): true {
  assert.ok(err instanceof TinystoreError && !(err instanceof StaleError), String(err))
  assert.equal(err.code, 'unavailable')
  assert.match(err.message, /may have been written/)
  return true
}
