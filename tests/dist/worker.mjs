// One worker of the page's scene, through the installed npm package (ESM):
// `node worker.mjs WORK NAME TTL` holds key 42 of `summaries` in the store
// that `tinystore serve WORK/data` serves (renew off), writes its fence to
// WORK/NAME.fence, waits for WORK/NAME.go, saves with the fenced update into
// WORK/chat.db (through the sqlite3 command) and writes the rows changed to
// WORK/NAME.rows. `node worker.mjs WORK check` prints chat 42's row.
import { execFileSync } from 'node:child_process'
import { existsSync, renameSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import path from 'node:path'
import { LeaseLostError, fenceText, open } from 'tinystore'

const [work, name, ttl] = process.argv.slice(2)
const db = path.join(work, 'chat.db')

/** Runs `sql` on chat.db with the sqlite3 command; gives its output. */
function sqlite(sql) {
  return execFileSync('sqlite3', ['-cmd', '.timeout 10000', db, sql], { encoding: 'utf8' }).trim()
}

function write(file, text) {
  writeFileSync(`${file}.tmp`, text)
  renameSync(`${file}.tmp`, file)
}

sqlite(`create table if not exists chats (id integer primary key, summary text, summary_fence text not null default '');
  insert or ignore into chats (id) values (42);`)
if (name === 'check') {
  console.log(sqlite("select summary || ' ' || summary_fence from chats where id = 42"))
} else {
  const store = await open(path.join(work, 'data'))
  const summaries = store.locks('summaries', { ttl: Number(ttl) * 1000, renew: false })
  const lease = await summaries.acquire(42)
  const fence = fenceText(lease.fence)
  if (!/^[0-9]{40}$/.test(fence)) throw new Error(`fence text ${fence} is not 40 digits`)
  write(path.join(work, `${name}.fence`), fence)
  while (!existsSync(path.join(work, `${name}.go`))) await sleep(50)
  const rows = sqlite(`update chats set summary = 'summary by ${name}', summary_fence = '${fence}'
    where id = 42 and summary_fence < '${fence}'; select changes();`)
  write(path.join(work, `${name}.rows`), rows)
  try {
    await lease.release()
  } catch (err) {
    if (!(err instanceof LeaseLostError)) throw err // A's lease ran out while it was stopped
  }
  await store.close()
}
