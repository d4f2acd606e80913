// `torture`: a worker for the torture test. It holds random chats and saves
// through the fenced update, logging each save in `save_log` in the same
// transaction, and carries on through lost leases and server restarts.

import { setTimeout as sleep } from 'node:timers/promises'
import { openDb, save, seed } from './chat-db.mjs'
import { holdAnotherWay } from './torture-ways.mjs'

const LOG = `create table if not exists save_log (
    seq integer primary key autoincrement,
    chat integer not null, fence text not null, worker text not null,
    accepted integer not null, kept text not null)`

/**
 * Runs until `seconds` pass; resolves to what the worker saw.
 * @param {import('tinystore').Store} store
 * @param {string} path chat.db
 * @param {string} worker
 * @param {number} chats
 * @param {number} seconds
 * @param {number} ttl milliseconds
 * @param {number} longestPause milliseconds, the longest pause in a hold before its save
 * @param {boolean} [allWays] half the holds of the other ways (torture-ways.mjs)
 * @returns {Promise<{saves: number, lost: number, errors: number, ways: number}>}
 */
export async function run(store, path, worker, chats, seconds, ttl, longestPause, allWays = false) {
  const db = openDb(path)
  db.exec(LOG)
  seed(db, chats)
  const log = db.prepare(`insert into save_log (chat, fence, worker, accepted, kept)
      values (?, ?, ?, ?, (select summary_fence from chats where id = ?))`)
  // The fenced update and its save_log row, in one `begin immediate` transaction.
  const saveLogged = db
    .transaction((/** @type {number} */ chat, /** @type {string} */ fence) => {
      const changed = save(db, chat, `summary by ${worker}`, fence)
      log.run(chat, fence, worker, changed, chat)
      return changed
    })
    .immediate
  const summaries = store.locks('summaries', { ttl })
  const deadline = Date.now() + seconds * 1000
  const tally = { saves: 0, lost: 0, errors: 0, ways: 0 }
  while (Date.now() < deadline) {
    const chat = 1 + Math.floor(Math.random() * chats)
    const pause = Math.floor(Math.random() * (longestPause + 1))
    const otherWay = allWays && Math.random() < 0.5
    try {
      if (otherWay) {
        const other = 1 + Math.floor(Math.random() * chats)
        await holdAnotherWay(store, saveLogged, ttl, pause, Math.floor(Math.random() * 100), chat, other)
        tally.ways++
      } else {
        await summaries.hold(chat, async lease => {
          await sleep(pause)
          saveLogged(chat, lease.fence.toString().padStart(40, '0'))
        })
        tally.saves++
      }
    } catch (err) {
      if (/** @type {{code?: string}} */ (err).code === 'lease_lost') {
        if (otherWay) tally.ways++
        else tally.saves++
        tally.lost++
      } else {
        tally.errors++
        await sleep(50)
      }
    }
  }
  return tally
}
