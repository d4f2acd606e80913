// The SQL guard on better-sqlite3 (real SQLite files) and pg (the real
// PostgreSQL at $TINYSTORE_PG_URL, started by tests/guards/with-postgres.sh):
// every guard case of vectors/behaviour.json, a refusal rolling back the
// caller's own write, calls outside a transaction, handles of unknown kinds,
// resources that are not well-formed UTF-16, the missing table's cause, the
// driver's own errors as they are, and two writers at READ COMMITTED and at
// SERIALIZABLE (isSerializationFailure). Without the URL the PostgreSQL
// tests skip, unless TINYSTORE_REQUIRE_PG=1 (make test-node).
import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import {
  CorruptError,
  InvalidError,
  StaleError,
  TinystoreError,
  errorClasses,
  fenceText,
  guard,
  open,
} from 'tinystore'
import { cases, failure, judge } from './guard-cases'
import { repo, tempDir } from './helpers'

// ---- better-sqlite3 ----------------------------------------------------

function sqlite(): Database.Database {
  const db = new Database(path.join(tempDir('tinystore-guard-'), 'app.db'))
  db.exec('create table notes(resource text, fence text)')
  return db
}

function sqliteRegister(db: Database.Database, resource: string): string | undefined {
  const row = db.prepare('select fence from tinystore_fences where resource = ?').get(resource) as { fence: string } | undefined
  return row?.fence
}

/** One guarded write on better-sqlite3: a notes row and the check, in one transaction. */
function sqliteWrite(db: Database.Database, resource: string, fence: bigint): void {
  db.transaction(() => {
    db.prepare('insert into notes values (?, ?)').run(resource, fenceText(fence))
    guard.check(db, resource, fence)
  })()
}

test('every guard vector holds on better-sqlite3 (a real file)', async () => {
  for (const c of cases()) {
    const db = sqlite()
    try {
      if (c.table) {
        guard.ensure(db)
        guard.ensure(db) // safe to run again
      }
      if (c.recorded !== undefined) db.prepare("insert into tinystore_fences values ('chats/42', ?)").run(c.recorded)
      const err = await failure(() => sqliteWrite(db, c.resource, c.fence))
      const notes = (db.prepare('select count(*) as n from notes').get() as { n: number }).n
      judge(c, err, notes, c.table ? sqliteRegister(db, c.resource) : undefined)
    } finally {
      db.close()
    }
  }
})

test('better-sqlite3: a lease writes twice, a later one shuts it out, and the fences of a real store order', async () => {
  const db = sqlite()
  const store = await open(tempDir())
  try {
    guard.ensure(db)
    const locks = store.locks('summaries')
    const first = await locks.hold('42', lease => lease.fence)
    const second = await locks.hold('42', lease => lease.fence)
    assert.ok(second > first)
    sqliteWrite(db, 'chats/42', first)
    sqliteWrite(db, 'chats/42', first) // equal: accepted
    sqliteWrite(db, 'chats/42', second)
    assert.throws(
      () => sqliteWrite(db, 'chats/42', first),
      (err: unknown) =>
        err instanceof StaleError &&
        err.code === 'stale' &&
        err.resource === 'chats/42' &&
        err.fence === first &&
        err.largest === second &&
        err.message.includes(String(second)),
    )
    sqliteWrite(db, 'chats/42', second)
    assert.equal(sqliteRegister(db, 'chats/42'), fenceText(second))
    const notes = db.prepare('select fence from notes order by rowid').all() as { fence: string }[]
    assert.deepEqual(
      notes.map(n => n.fence),
      [first, first, second, second].map(fenceText),
      'the refused write took its own row with it',
    )
  } finally {
    db.close()
    await store.close()
  }
})

test('better-sqlite3: a check outside a transaction is invalid and records nothing', () => {
  const db = sqlite()
  try {
    guard.ensure(db)
    assert.throws(() => guard.check(db, 'chats/42', 7n), (err: unknown) => err instanceof InvalidError && /transaction/.test(err.message))
    assert.equal(sqliteRegister(db, 'chats/42'), undefined)
  } finally {
    db.close()
  }
})

test("better-sqlite3: the driver's own errors pass through as they are", () => {
  const db = sqlite()
  guard.ensure(db)
  const readonly = new Database(db.name, { readonly: true })
  try {
    assert.throws(
      () => readonly.transaction(() => guard.check(readonly, 'chats/42', 7n))(),
      (err: unknown) =>
        err instanceof Database.SqliteError &&
        err.code === 'SQLITE_READONLY' &&
        !(err instanceof TinystoreError) &&
        !guard.isSerializationFailure(err),
    )
  } finally {
    readonly.close()
    db.close()
  }
})

test('better-sqlite3: a writer whose snapshot is stale gets SQLITE_BUSY_SNAPSHOT as it is, a serialization failure', () => {
  const db = sqlite()
  db.pragma('journal_mode = wal')
  guard.ensure(db)
  const other = new Database(db.name)
  try {
    db.exec('BEGIN')
    db.prepare('select count(*) from tinystore_fences').get() // its snapshot
    other.transaction(() => guard.check(other, 'chats/42', 9n))()
    assert.throws(
      () => guard.check(db, 'chats/42', 7n),
      (err: unknown) =>
        err instanceof Database.SqliteError && err.code === 'SQLITE_BUSY_SNAPSHOT' && guard.isSerializationFailure(err),
    )
    db.exec('ROLLBACK')
    assert.equal(sqliteRegister(db, 'chats/42'), fenceText(9n))
  } finally {
    other.close()
    db.close()
  }
})

test('isSerializationFailure is false for what is not a serialization failure', () => {
  for (const err of [
    new StaleError('m', { resource: 'r', fence: 1n, largest: 2n }),
    new InvalidError('m'),
    new Error('could not serialize access'), // words are not what it reads
    Object.assign(new Error('m'), { code: '23505', severity: 'ERROR' }),
    Object.assign(new Error('m'), { code: 'SQLITE_CONSTRAINT' }),
    null,
    undefined,
    '40001',
  ]) {
    assert.equal(guard.isSerializationFailure(err), false, String(err))
  }
  assert.equal(guard.isSerializationFailure(Object.assign(new Error('m'), { code: '40P01', severity: 'ERROR' })), true)
  assert.equal(guard.isSerializationFailure(Object.assign(new Error('m'), { code: 'SQLITE_LOCKED' })), true)
})

test('better-sqlite3: a missing table is InvalidError saying how to make it, the SqliteError its cause', () => {
  const db = sqlite()
  try {
    assert.throws(
      () => db.transaction(() => guard.check(db, 'chats/42', 7n))(),
      (err: unknown) =>
        err instanceof InvalidError &&
        /tinystore_fences/.test(err.message) &&
        /ensure/.test(err.message) &&
        err.cause instanceof Database.SqliteError &&
        /no such table/.test(err.cause.message),
    )
  } finally {
    db.close()
  }
})

/** Resources a JS string holds that have no UTF-8 form: lone surrogates. */
const NOT_UTF8 = ['chats/\ud800', 'chats/\udc00', '\udfff', 'a\ud800\ud800b']

test('better-sqlite3: a resource that is not well-formed UTF-16 is InvalidError, and nothing is recorded', () => {
  const db = sqlite()
  try {
    guard.ensure(db)
    sqliteWrite(db, 'chats/\ufffd', 9n) // what a lone surrogate would become in UTF-8
    for (const resource of NOT_UTF8) {
      assert.throws(
        () => sqliteWrite(db, resource, 7n),
        (err: unknown) => err instanceof InvalidError && /lone surrogate/.test(err.message) && err.message.includes(JSON.stringify(resource)),
        JSON.stringify(resource),
      )
    }
    assert.equal((db.prepare('select count(*) as n from tinystore_fences').get() as { n: number }).n, 1)
    assert.equal((db.prepare('select count(*) as n from notes').get() as { n: number }).n, 1)
  } finally {
    db.close()
  }
})

test('a handle of an unknown kind, a fence that is not a fence and an unknown dialect are invalid, naming what they got', () => {
  const check = guard.check as (handle: unknown, resource: unknown, fence: unknown) => unknown
  const ensure = guard.ensure as (handle: unknown) => unknown
  for (const handle of [{}, null, 'app.db', 42, { prepare() {} }]) {
    assert.throws(() => check(handle, 'chats/42', 7n), (err: unknown) => err instanceof InvalidError && /better-sqlite3 Database or a pg Client/.test(err.message))
    assert.throws(() => ensure(handle), InvalidError)
  }
  assert.throws(() => check({}, 'r', 7n), /not an object/)
  assert.throws(() => check('app.db', 'r', 7n), /not "app.db"/)
  assert.throws(() => check(new pg.Pool(), 'r', 7n), (err: unknown) => err instanceof InvalidError && /pool.connect\(\)/.test(err.message))
  const db = sqlite()
  try {
    guard.ensure(db)
    for (const fence of [7, '7', -1n, 2n ** 128n, null]) {
      assert.throws(
        () => db.transaction(() => check(db, 'chats/42', fence))(),
        (err: unknown) => err instanceof InvalidError && /fence/.test(err.message),
        `fence ${String(fence)}`,
      )
    }
    assert.throws(() => db.transaction(() => check(db, 42, 7n))(), (err: unknown) => err instanceof InvalidError && /resource/.test(err.message))
    assert.equal(sqliteRegister(db, 'chats/42'), undefined)
  } finally {
    db.close()
  }
  assert.match(guard.migration('sqlite'), /^CREATE TABLE IF NOT EXISTS tinystore_fences /)
  assert.match(guard.migration('postgres'), /COLLATE "C"/)
  assert.match(guard.migration('mysql'), /ENGINE=InnoDB/)
  assert.throws(() => guard.migration('oracle' as 'sqlite'), (err: unknown) => err instanceof InvalidError && /"oracle"/.test(err.message) && /mysql/.test(err.message))
  assert.throws(() => guard.migration(undefined as unknown as 'sqlite'), InvalidError)
})

test('a StaleError carries its resource and both fences; the classes of stale and corrupt are exported', () => {
  const err = new StaleError('refused', { resource: 'chats/42', fence: 7n, largest: 9n })
  assert.ok(err instanceof TinystoreError)
  assert.deepEqual([err.code, err.name, err.resource, err.fence, err.largest], ['stale', 'StaleError', 'chats/42', 7n, 9n])
  assert.equal(errorClasses.stale, StaleError)
  assert.equal(errorClasses.corrupt, CorruptError)
  assert.throws(() => new StaleError('x', { resource: 'r', fence: 7 } as never), TypeError)
})

// ---- pg ------------------------------------------------------------------

const pgUrl = process.env.TINYSTORE_PG_URL
if (!pgUrl && process.env.TINYSTORE_REQUIRE_PG === '1') {
  throw new Error('TINYSTORE_PG_URL is not set: run under tests/guards/with-postgres.sh')
}
const pgTest = pgUrl ? test : test.skip

/** A client on a schema of its own (made afresh), so that test files running at once share no table. */
async function pgClient(schema: string, fresh = true): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: pgUrl })
  await client.connect()
  if (fresh) await client.query(`drop schema if exists ${schema} cascade; create schema ${schema}`)
  await client.query(`set search_path to ${schema}`)
  return client
}

async function pgRegister(client: pg.Client, resource: string): Promise<string | undefined> {
  const { rows } = await client.query('select fence from tinystore_fences where resource = $1', [resource])
  return rows[0]?.fence
}

pgTest('every guard vector holds on PostgreSQL (pg)', async () => {
  const client = await pgClient('node_guard_vectors')
  try {
    for (const c of cases()) {
      await client.query('drop table if exists tinystore_fences, notes; create table notes(resource text, fence text)')
      if (c.table) {
        await guard.ensure(client)
        await guard.ensure(client)
      }
      if (c.recorded !== undefined) await client.query("insert into tinystore_fences values ('chats/42', $1)", [c.recorded])
      await client.query('BEGIN')
      await client.query('insert into notes values ($1, $2)', [c.resource, fenceText(c.fence)])
      const err = await failure(() => guard.check(client, c.resource, c.fence))
      await client.query(err === undefined ? 'COMMIT' : 'ROLLBACK')
      const { rows } = await client.query('select count(*)::int as n from notes')
      judge(c, err, rows[0].n, c.table ? await pgRegister(client, c.resource) : undefined)
    }
  } finally {
    await client.end()
  }
})

pgTest('pg: a pool client, a check outside BEGIN, and a missing table', async () => {
  const setup = await pgClient('node_guard_pool')
  const pool = new pg.Pool({ connectionString: pgUrl, options: '-c search_path=node_guard_pool' })
  try {
    await guard.ensure(setup)
    const client = await pool.connect()
    try {
      await assert.rejects(guard.check(client, 'chats/42', 7n), (err: unknown) => err instanceof InvalidError && /transaction/.test(err.message))
      assert.equal(await pgRegister(setup, 'chats/42'), undefined, 'a check outside BEGIN recorded nothing')
      await client.query('BEGIN')
      await guard.check(client, 'chats/42', 9n)
      await client.query('COMMIT')
      await client.query('BEGIN')
      await assert.rejects(guard.check(client, 'chats/42', 8n), (err: unknown) => err instanceof StaleError && err.largest === 9n && err.fence === 8n)
      await client.query('ROLLBACK')
      // A bad argument rejects (no throw) and sends nothing.
      const bad = guard.check(client, '', 9n)
      assert.ok(bad instanceof Promise)
      await assert.rejects(bad, (err: unknown) => err instanceof InvalidError && /resource/.test(err.message))
      await setup.query('drop table tinystore_fences')
      await client.query('BEGIN')
      await assert.rejects(
        guard.check(client, 'chats/42', 9n),
        (err: unknown) =>
          err instanceof InvalidError &&
          /tinystore_fences/.test(err.message) &&
          /ensure/.test(err.message) &&
          err.cause instanceof pg.DatabaseError &&
          err.cause.code === '42P01',
      )
      // The failed statement aborted the caller's transaction.
      await assert.rejects(client.query('select 1'), /aborted/)
      await client.query('ROLLBACK')
    } finally {
      client.release()
    }
  } finally {
    await pool.end()
    await setup.end()
  }
})

pgTest('pg: a resource that is not well-formed UTF-16 is InvalidError before any statement is sent', async () => {
  const client = await pgClient('node_guard_utf16')
  try {
    await guard.ensure(client)
    await client.query('BEGIN')
    await guard.check(client, 'chats/\ufffd', 9n)
    const sent: string[] = []
    const watched = { query: (text: string, values?: unknown[]) => (sent.push(text), client.query(text, values)) }
    for (const resource of NOT_UTF8) {
      await assert.rejects(guard.check(watched, resource, 7n), (err: unknown) => err instanceof InvalidError && /lone surrogate/.test(err.message))
    }
    assert.deepEqual(sent, [])
    await client.query('COMMIT')
    assert.deepEqual((await client.query('select resource from tinystore_fences')).rows, [{ resource: 'chats/\ufffd' }])
  } finally {
    await client.end()
  }
})

pgTest("pg: a connection the server ended is pg's own error, as it is", async () => {
  const admin = await pgClient('node_guard_gone')
  const victim = await pgClient('node_guard_gone', false)
  victim.on('error', () => {}) // the terminated backend's, also the failed query's
  try {
    await guard.ensure(admin)
    const ended = new Promise(resolve => victim.once('end', resolve))
    await victim.query('BEGIN')
    const { pid } = (await victim.query('select pg_backend_pid() as pid')).rows[0]
    await admin.query('select pg_terminate_backend($1)', [pid])
    await ended
    await assert.rejects(guard.check(victim, 'chats/42', 7n), (err: unknown) => {
      assert.ok(err instanceof Error && !(err instanceof TinystoreError), String(err))
      assert.match(err.message, /not queryable|terminat/)
      assert.equal(guard.isSerializationFailure(err), false)
      return true
    })
  } finally {
    await admin.end()
  }
})

/** Resolves once the backend `pid` waits on a lock, as pg_stat_activity tells `observer`. */
async function waitingOnLock(observer: pg.Client, pid: number): Promise<void> {
  for (;;) {
    const { rows } = await observer.query('select wait_event_type from pg_stat_activity where pid = $1', [pid])
    if (rows[0]?.wait_event_type === 'Lock') return
    await new Promise(resolve => setImmediate(resolve))
  }
}

pgTest('pg at READ COMMITTED: the second writer waits for the first commit, then the rule refuses it', async () => {
  const first = await pgClient('node_guard_read_committed')
  const second = await pgClient('node_guard_read_committed', false)
  const observer = await pgClient('node_guard_read_committed', false)
  try {
    await guard.ensure(first)
    await first.query('create table notes(resource text, fence text)')
    await first.query('BEGIN')
    await guard.check(first, 'chats/42', 9n)
    await second.query('BEGIN')
    await second.query("insert into notes values ('chats/42', $1)", [fenceText(8n)])
    const secondPid = (await second.query('select pg_backend_pid() as pid')).rows[0].pid as number
    let settled = false
    const late = failure(() => guard.check(second, 'chats/42', 8n)).finally(() => {
      settled = true
    })
    await waitingOnLock(observer, secondPid)
    assert.equal(settled, false, 'the second writer went on while the first held the row')
    await first.query('COMMIT')
    const err = await late
    assert.ok(err instanceof StaleError, String(err))
    assert.equal(err.largest, 9n)
    await second.query('ROLLBACK')
    assert.equal(await pgRegister(first, 'chats/42'), fenceText(9n))
    assert.equal((await first.query('select count(*)::int as n from notes')).rows[0].n, 0, 'the refused write left its row')
  } finally {
    await Promise.all([first.end(), second.end(), observer.end()])
  }
})

pgTest('pg at SERIALIZABLE: the second writer fails with the driver error 40001, and retrying the whole transaction decides by the rule', async () => {
  const first = await pgClient('node_guard_serializable')
  const second = await pgClient('node_guard_serializable', false)
  try {
    await guard.ensure(first)
    await first.query('create table notes(resource text, fence text)')
    await first.query("insert into tinystore_fences values ('chats/42', $1)", [fenceText(5n)])
    /** The second writer's transaction; `beforeCheck` runs between its snapshot and its check. */
    const write = async (fence: bigint, beforeCheck: () => Promise<void> = async () => {}): Promise<unknown> => {
      await second.query('BEGIN ISOLATION LEVEL SERIALIZABLE')
      await second.query('select fence from tinystore_fences') // its snapshot
      await beforeCheck()
      await second.query('insert into notes values ($1, $2)', ['chats/42', fenceText(fence)])
      const err = await failure(() => guard.check(second, 'chats/42', fence))
      await second.query(err === undefined ? 'COMMIT' : 'ROLLBACK')
      return err
    }
    /** Retries the whole transaction while it fails with 40001. */
    const retried = async (fence: bigint, beforeFirst: () => Promise<void>): Promise<{ tries: number; err: unknown }> => {
      for (let tries = 1; ; tries++) {
        const err = await write(fence, tries === 1 ? beforeFirst : undefined)
        // pg's own error, as the driver gives it, told by isSerializationFailure.
        const serialization = err instanceof pg.DatabaseError && err.code === '40001'
        assert.equal(guard.isSerializationFailure(err), serialization, String(err))
        if (!serialization) return { tries, err }
      }
    }
    /** The first writer commits `fence` in between. */
    const firstCommits = (fence: bigint) => async () => {
      await first.query('BEGIN ISOLATION LEVEL SERIALIZABLE')
      await guard.check(first, 'chats/42', fence)
      await first.query('COMMIT')
    }
    // Fence 7 after 9 committed: the first try fails, the retry is stale.
    const refused = await retried(7n, firstCommits(9n))
    assert.equal(refused.tries, 2)
    assert.ok(refused.err instanceof StaleError && refused.err.largest === 9n, String(refused.err))
    // Fence 11 after 10 committed: the first try fails, the retry is accepted.
    const accepted = await retried(11n, firstCommits(10n))
    assert.deepEqual(accepted, { tries: 2, err: undefined })
    assert.equal(await pgRegister(first, 'chats/42'), fenceText(11n))
    const notes = (await first.query('select fence from notes')).rows.map(r => r.fence)
    assert.deepEqual(notes, [fenceText(11n)])
  } finally {
    await Promise.all([first.end(), second.end()])
  }
})

test('an error from the addon keeps its code: an unknown one, or a stale one without its fences, is internal', () => {
  // The JS layer's mapping, below the package's exports.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const errors: {
    fromNative(err: unknown): TinystoreError
    fromNativeValue(value: { code: string; message: string; stale?: { resource: string; fence: bigint; largest: bigint } }): TinystoreError
  } = require(path.join(repo, 'bindings-node', 'lib', 'errors.js'))
  const stale = errors.fromNativeValue({ code: 'stale', message: 'm', stale: { resource: 'r', fence: 7n, largest: 9n } })
  assert.ok(stale instanceof StaleError && stale.largest === 9n && stale.message === 'm')
  assert.ok(errors.fromNativeValue({ code: 'corrupt', message: 'm' }) instanceof CorruptError)
  for (const err of [
    errors.fromNativeValue({ code: 'stale', message: 'm' }),
    errors.fromNativeValue({ code: 'bogus', message: 'm' }),
    errors.fromNative(new Error('{"tinystore":1,"code":"stale","message":"m"}')),
    errors.fromNative(new Error('{"tinystore":1,"code":"bogus","message":"m"}')),
    errors.fromNative(new Error('invalid: m')), // text is no error of the addon's
  ]) {
    assert.equal(err.code, 'internal', err.message)
    assert.match(err.message, /unexpected error from the addon/)
  }
  assert.ok(errors.fromNative(new Error('{"tinystore":1,"code":"invalid","message":"m"}')) instanceof InvalidError)
})
