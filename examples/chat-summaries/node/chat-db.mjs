// chat.db: the migrations, some chats with messages, and the two ways to
// save a summary: the fenced conditional update (the column form of
// docs/fences.md) and the guarded save (docs/guards.md), over better-sqlite3;
// `openChats` gives scene and hold-and-save the same over pg too.

import Database from 'better-sqlite3'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import pg from 'pg'
import { guard } from 'tinystore'

const MIGRATIONS = new URL('../migrations/', import.meta.url).pathname

/** The migrations' names and texts, in order. */
function migrations() {
  return readdirSync(MIGRATIONS)
    .filter(f => f.endsWith('.sql'))
    .sort()
    .map(file => ({ name: basename(file, '.sql'), sql: readFileSync(join(MIGRATIONS, file), 'utf8') }))
}

/**
 * Opens chat.db (a 10 s busy timeout) and applies each migration once, in a
 * `begin immediate` transaction of its own; then makes the guard's register
 * table, tinystore_fences, if it is missing.
 * @param {string} path
 * @returns {Database.Database}
 */
export function openDb(path) {
  const db = new Database(path, { timeout: 10_000 })
  db.exec('create table if not exists schema_migrations (name text primary key)')
  const done = db.prepare('select count(*) as n from schema_migrations where name = ?')
  const record = db.prepare('insert into schema_migrations (name) values (?)')
  for (const { name, sql } of migrations()) {
    db.transaction(() => {
      if (/** @type {{n: number}} */ (done.get(name)).n === 0) {
        db.exec(sql)
        record.run(name)
      }
    }).immediate()
  }
  guard.ensure(db)
  return db
}

/**
 * Makes chats 1..=n, each with a few messages, where missing.
 * @param {Database.Database} db
 * @param {number} n
 */
export function seed(db, n) {
  const chat = db.prepare('insert into chats (id, title) values (?, ?) on conflict do nothing')
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

/**
 * The guarded save of docs/guards.md: the update and the guard's check for
 * "chats/<id>", in one `begin immediate` transaction. Returns the rows the
 * update changed; throws StaleError when a larger fence has written the
 * chat (the update rolls back with the refusal).
 * @param {Database.Database} db
 * @param {number} chat
 * @param {string} summary
 * @param {bigint} fence
 * @returns {number}
 */
export function saveGuarded(db, chat, summary, fence) {
  return db
    .transaction(() => {
      const { changes } = db.prepare('update chats set summary = ? where id = ?').run(summary, chat)
      guard.check(db, `chats/${chat}`, fence)
      return changes
    })
    .immediate()
}

/**
 * Chat.db as scene and hold-and-save use it, on SQLite (a path) or on
 * PostgreSQL (a postgresql:// URL).
 * @typedef {object} Chats
 * @property {(id: number, title: string) => Promise<void>} addChat makes the chat if missing
 * @property {(chat: number, summary: string, fence: string) => Promise<number>} save the fenced update (fence: 40 digits)
 * @property {(chat: number, summary: string, fence: bigint) => Promise<number>} saveGuarded the guarded save
 * @property {(chat: number) => Promise<{summary: string, fence: string}>} kept the summary and the fence kept with it
 * @property {(chat: number) => Promise<string | undefined>} recorded the fence tinystore_fences keeps for the chat
 * @property {() => Promise<void>} close
 */

/** @param {string} target */
export const isPostgres = target => /^postgres(ql)?:\/\//.test(target)

/**
 * Opens chat.db at `target`, migrated, with the guard's table.
 * @param {string} target a SQLite file's path or a postgresql:// URL
 * @returns {Promise<Chats>}
 */
export async function openChats(target) {
  if (isPostgres(target)) return pgChats(target)
  const db = openDb(target)
  return {
    async addChat(id, title) {
      db.prepare('insert into chats (id, title) values (?, ?) on conflict do nothing').run(id, title)
    },
    save: async (chat, summary, fence) => save(db, chat, summary, fence),
    saveGuarded: async (chat, summary, fence) => saveGuarded(db, chat, summary, fence),
    kept: async chat => kept(db, chat),
    recorded: async chat => recorded(db, chat),
    async close() {
      db.close()
    },
  }
}

/**
 * The fence tinystore_fences keeps for a chat's resource.
 * @param {Database.Database} db
 * @param {number} chat
 * @returns {string | undefined}
 */
function recorded(db, chat) {
  return /** @type {string | undefined} */ (
    db.prepare('select fence from tinystore_fences where resource = ?').pluck().get(`chats/${chat}`)
  )
}

/**
 * Chat.db on PostgreSQL: the same migrations, applied once under an
 * advisory lock (so that two programs migrate one after the other, as the
 * Go program does), then the guard's table.
 * @param {string} url
 * @returns {Promise<Chats>}
 */
async function pgChats(url) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  /**
   * Runs `body` in one transaction: committed when it returns, rolled back when it throws.
   * @template T
   * @param {() => Promise<T>} body
   * @returns {Promise<T>}
   */
  const transaction = async body => {
    await client.query('BEGIN')
    try {
      const out = await body()
      await client.query('COMMIT')
      return out
    } catch (err) {
      await client.query('ROLLBACK')
      throw err
    }
  }
  await transaction(async () => {
    await client.query('select pg_advisory_xact_lock(20260004)')
    await client.query('create table if not exists schema_migrations (name text primary key)')
    for (const { name, sql } of migrations()) {
      const { rowCount } = await client.query('select 1 from schema_migrations where name = $1', [name])
      if (rowCount) continue
      await client.query(sql)
      await client.query('insert into schema_migrations (name) values ($1)', [name])
    }
    await guard.ensure(client)
  })
  return {
    async addChat(id, title) {
      await client.query('insert into chats (id, title) values ($1, $2) on conflict do nothing', [id, title])
    },
    async save(chat, summary, fence) {
      const sql = 'update chats set summary = $1, summary_fence = $2 where id = $3 and summary_fence < $2'
      return (await client.query(sql, [summary, fence, chat])).rowCount ?? 0
    },
    saveGuarded: (chat, summary, fence) =>
      transaction(async () => {
        const { rowCount } = await client.query('update chats set summary = $1 where id = $2', [summary, chat])
        await guard.check(client, `chats/${chat}`, fence)
        return rowCount ?? 0
      }),
    async kept(chat) {
      const { rows } = await client.query('select summary, summary_fence as fence from chats where id = $1', [chat])
      return rows[0]
    },
    async recorded(chat) {
      const { rows } = await client.query('select fence from tinystore_fences where resource = $1', [`chats/${chat}`])
      return rows[0]?.fence
    },
    close: () => client.end(),
  }
}
