// What the seed's TypeScript snippet runs against: a real SQLite file
// through better-sqlite3 with `db.exec` as a tagged template, and the
// worker function that holds the snippet as written.
import Database from 'better-sqlite3'
import type { Locks } from 'tinystore'

/** The result of a write: how many rows it changed. */
export interface Done {
  changes: number
}

/** The application's database, as the seed uses it. */
export interface Db {
  exec(sql: TemplateStringsArray, ...values: (string | number | bigint)[]): Promise<Done>
}

/** The application's summarizer. */
export interface Model {
  summarize(history: string[]): Promise<string>
}

/** The chats table, with the seed's migration 0004 applied. */
export function chatsDb(file: string, writes: { fence: string; changes: number }[] = []): { db: Db; raw: Database.Database } {
  const raw = new Database(file)
  raw.pragma('journal_mode = WAL')
  raw.exec('create table if not exists chats (id integer primary key, summary text)')
  const columns = raw.prepare('select name from pragma_table_info(?)').all('chats') as { name: string }[]
  if (!columns.some(c => c.name === 'summary_fence')) {
    raw.exec("alter table chats add column summary_fence text not null default '';")
  }
  raw.prepare('insert or ignore into chats (id) values (?)').run(1)
  const db: Db = {
    async exec(sql, ...values) {
      const info = raw.prepare(sql.join('?')).run(...values)
      writes.push({ fence: String(values[1]), changes: info.changes })
      return { changes: info.changes }
    },
  }
  return { db, raw }
}

/** Runs the seed's snippet with the application's pieces around it. */
export async function summarizeChat(summaries: Locks, chatId: number, model: Model, history: (chatId: number) => Promise<string[]>, db: Db): Promise<void> {
// -- the seed's snippet, as written (seed/fences.md) --
await summaries.hold(chatId, async lease => {
	const summary = await model.summarize(await history(chatId))
	const fence = lease.fence.toString().padStart(40, '0')
	const done = await db.exec`update chats set summary = ${summary}, summary_fence = ${fence}
		where id = ${chatId} and summary_fence < ${fence}`
	if (done.changes === 0) return // a later holder already wrote
})
// -- end of the seed's snippet --
}
