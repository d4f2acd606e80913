// What the election tests share (embedded, through a server, on etcd).
import assert from 'node:assert/strict'
import type { Election, Leader, Observer, Store } from 'tinystore'
import { untilWaiting } from './status-wait'

/** The next `n` changes an observer gives. */
export async function take(observer: Observer, n: number): Promise<(Leader | null)[]> {
  const seen: (Leader | null)[] = []
  while (seen.length < n) {
    const change = await observer.next()
    assert.equal(change.done, false, `the observer ended after ${JSON.stringify(seen.map(String))}`)
    seen.push(change.value ?? null)
  }
  return seen
}

/**
 * a leads; b waits in line until a resigns, then leads with a larger
 * term; an observer sees nobody, a, b, nobody; resigning twice is fine.
 */
export async function leadersInTurn(store: Store, election: Election): Promise<void> {
  const observer = election.observe()
  assert.deepEqual(await take(observer, 1), [null])
  const a = await election.campaign('a')
  assert.deepEqual(await take(observer, 1), [{ value: 'a', fence: a.fence }])
  let bLeads = false
  const waiting = election.campaign('b').then(b => {
    bLeads = true
    return b
  })
  await untilWaiting(store, election.name, '', 1)
  assert.equal(bLeads, false, 'b waits while a leads')
  await a.resign()
  await a.resign() // idempotent
  const b = await waiting
  assert.ok(b.fence > a.fence, `${b.fence} > ${a.fence}`)
  assert.equal(a.held, false)
  assert.deepEqual(await election.leader(), { value: 'b', fence: b.fence })
  assert.deepEqual(await take(observer, 1), [{ value: 'b', fence: b.fence }])
  await b.resign()
  assert.deepEqual(await take(observer, 1), [null])
  observer.close()
}
