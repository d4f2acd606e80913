// Data on a lease, as every store shows it (embedded, served, etcd):
// `{ data }` on a group and per call, seen in `status().held[i].data`;
// the default `HOST:PID` of this process; `''` attaches nothing; more than
// 1024 bytes rejects with an InvalidError and grants nothing.
import assert from 'node:assert/strict'
import { hostname } from 'node:os'
import { InvalidError, type Store } from 'tinystore'

/** Each held key's data, by `name/key`. */
async function dataOf(store: Store): Promise<Map<string, string | null>> {
  const status = await store.status()
  return new Map(status.held.map(h => [`${h.name}/${h.key}`, h.data]))
}

/** The steps every store passes, on `store`. */
export async function keptDefaultedAndRefused(store: Store): Promise<void> {
  const jobs = store.locks('jobs', { data: 'worker 3' })
  const a = await jobs.acquire('a')
  const b = await jobs.acquire('b', { data: 'é on call' })
  const d = await jobs.acquire('d', { data: '' })
  const p = await store.semaphore('pool', 3).tryAcquire('p', { data: 'permit 1', weight: 2 })
  assert.ok(p !== null)
  await store.locks('plain').hold('c', async () => {
    await store.rwLocks('docs').holdRead('r', async () => {
      const seen = await dataOf(store)
      assert.equal(seen.get('jobs/a'), 'worker 3')
      assert.equal(seen.get('jobs/b'), 'é on call')
      assert.equal(seen.get('plain/c'), `${hostname()}:${process.pid}`)
      assert.equal(seen.get('jobs/d'), null, 'an empty text attaches nothing')
      assert.equal(seen.get('pool/p'), 'permit 1')
      assert.equal(seen.get('docs/r'), 'reader')
    }, { data: 'reader' })
  })
  for (const held of [a, b, d, p]) await held.release()

  await assert.rejects(jobs.acquire('e', { data: 'x'.repeat(1025) }), (error: unknown) => {
    assert.ok(error instanceof InvalidError, String(error))
    assert.match(error.message, /data must be at most 1024 bytes, not 1025/)
    return true
  })
  // On a group: refused as the group is made.
  assert.throws(() => store.locks('long', { data: 'é'.repeat(513) }), /at most 1024 bytes, not 1026/)
  await assert.rejects(
    jobs.acquire('e', { data: 7 as unknown as string }),
    /data must be a text, not a number/,
  )
  const seen = await dataOf(store)
  assert.ok(!seen.has('jobs/e') && !seen.has('long/e'), 'nothing granted')
  const free = await jobs.tryAcquire('e', { data: 'é'.repeat(512) })
  assert.ok(free !== null, 'the refused acquires left the key free')
  assert.equal((await dataOf(store)).get('jobs/e'), 'é'.repeat(512))
  await free.release()
}
