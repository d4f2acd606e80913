// The other ways to hold, for the torture worker (`--ways all`), as the
// Rust worker's torture_ways.rs holds them: several chats at once
// (`holdAll`, each saved through the fenced update with its own lease's
// fence), read and write leases of a read-write lock, and weighted permits
// of a semaphore, one in three of the last three capped by a `maxHold`
// shorter than the hold, so that it is renewed once and runs out there.
// Only the server's audit log checks these (tests/torture/check.py).

import { setTimeout as sleep } from 'node:timers/promises'

const REPORTS = 'reports'
const POOL = 'pool'
const POOL_KEY = 'gpu'
const POOL_LIMIT = 3
const MAX_HOLD_MS = 150
const CAPPED_PAUSE_MS = 220

/**
 * Runs the hold `roll` (0..99) picks: several chats (`chat` and `other`,
 * one when they are the same), a read or a write of `chat`, or a weighted
 * permit; one in three capped by a maxHold (then it rejects with
 * `lease_lost`).
 * @param {import('tinystore').Store} store
 * @param {(chat: number, fence: string) => unknown} saveLogged the fenced save and its save_log row
 * @param {number} ttl milliseconds
 * @param {number} pause milliseconds inside a hold
 * @param {number} roll
 * @param {number} chat
 * @param {number} other
 * @returns {Promise<void>}
 */
export async function holdAnotherWay(store, saveLogged, ttl, pause, roll, chat, other) {
  const capped = roll % 3 === 0
  const maxHold = capped ? MAX_HOLD_MS : undefined
  const wait = () => sleep(capped ? CAPPED_PAUSE_MS : pause)
  if (roll < 40) {
    const chats = chat === other ? [chat] : [chat, other]
    await store.locks('summaries', { ttl }).holdAll(chats, async leases => {
      await sleep(pause)
      chats.forEach((each, i) => saveLogged(each, leases[i].fence.toString().padStart(40, '0')))
    })
  } else if (roll < 70) {
    await store.rwLocks(REPORTS, { ttl }).holdRead(chat, wait, { maxHold })
  } else if (roll < 85) {
    await store.rwLocks(REPORTS, { ttl }).holdWrite(chat, wait, { maxHold })
  } else {
    const weight = (roll % POOL_LIMIT) + 1
    await store.semaphore(POOL, POOL_LIMIT, { ttl }).hold(POOL_KEY, wait, { weight, maxHold })
  }
}
