// chat.db: the migrations, some chats with messages, and the fenced
// conditional update, over better-sqlite3.

import Database from 'better-sqlite3'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'

const MIGRATIONS = new URL('../migrations/', import.meta.url).pathname

/**
 * Opens chat.db (a 10 s busy timeout) and applies each migration once, in a
 * `begin immediate` transaction of its own.
 * @param {string} path
 * @returns {Database.Database}
 */
export function openDb(path) {
  const db = new Database(path, { timeout: 10_000 })
  db.exec('create table if not exists schema_migrations (name text primary key)')
  const done = db.prepare('select count(*) as n from schema_migrations where name = ?')
  const record = db.prepare('insert into schema_migrations (name) values (?)')
  for (const file of readdirSync(MIGRATIONS).filter(f => f.endsWith('.sql')).sort()) {
    const name = basename(file, '.sql')
    db.transaction(() => {
      if (/** @type {{n: number}} */ (done.get(name)).n === 0) {
        db.exec(readFileSync(join(MIGRATIONS, file), 'utf8'))
        record.run(name)
      }
    }).immediate()
  }
  return db
}

/**
 * Makes chats 1..=n, each with a few messages, where missing.
 * @param {Database.Database} db
 * @param {number} n
 */
export function seed(db, n) {
  const chat = db.prepare('insert or ignore into chats (id, title) values (?, ?)')
  const message = db.prepare('insert into messages (chat_id, body) values (?, ?)')
  for (let id = 1; id <= n; id++) {
    if (chat.run(id, `chat ${id}`).changes === 1) {
      for (let m = 1; m <= 3; m++) message.run(id, `message ${m} of chat ${id}`)
    }
  }
}

/**
 * The chat's messages, oldest first.
 * @param {Database.Database} db
 * @param {number} chat
 * @returns {string[]}
 */
export function history(db, chat) {
  return db
    .prepare('select body from messages where chat_id = ? order by id')
    .pluck()
    .all(chat)
    .map(body => String(body))
}

/**
 * The fenced update of docs/fences.md: saves only when `fence` (40 digits) is larger
 * than the fence kept with the summary. Returns the rows changed.
 * @param {Database.Database} db
 * @param {number} chat
 * @param {string} summary
 * @param {string} fence
 * @returns {number}
 */
export function save(db, chat, summary, fence) {
  return db
    .prepare('update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?')
    .run(summary, fence, chat, fence).changes
}

/**
 * The summary and fence chat.db keeps for a chat.
 * @param {Database.Database} db
 * @param {number} chat
 * @returns {{summary: string, fence: string}}
 */
export function kept(db, chat) {
  return /** @type {{summary: string, fence: string}} */ (
    db.prepare('select summary, summary_fence as fence from chats where id = ?').get(chat)
  )
}
