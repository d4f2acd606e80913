// The SQL guard on mysql2 against the real MariaDB at $TINYSTORE_MYSQL_URL
// (tests/guards/with-mariadb.sh): every guard case of vectors/behaviour.json
// on promise and callback connections, with mysql2's default flags (found
// rows) and without found rows, and with the connection options that shape
// the rows mysql2 gives (nestTables, typeCast...); a check outside a transaction (also on a
// connection not yet connected); a pool and its connections; two writers,
// the second waiting for the first's commit, then refused or accepted;
// a REPEATABLE READ snapshot older than the committed fence; the missing
// table's cause; and mysql2's own errors as they are (a reader-only user's
// 1142, a connection killed by KILL before the check and in the middle of
// it, which the core classifies unavailable, error 1020 under snapshot
// isolation).
// Without the URL these tests skip, unless TINYSTORE_REQUIRE_MYSQL=1 (make
// test-node).
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import mysql from 'mysql2'
import mysqlPromise from 'mysql2/promise'
import { InvalidError, StaleError, TinystoreError, fenceText, guard } from 'tinystore'
import { cases, failure, judge } from './guard-cases'

const url = process.env.TINYSTORE_MYSQL_URL
if (!url && process.env.TINYSTORE_REQUIRE_MYSQL === '1') {
  throw new Error('TINYSTORE_MYSQL_URL is not set: run under tests/guards/with-mariadb.sh')
}
const mysqlTest = url ? test : test.skip

type Connection = mysqlPromise.Connection

/**
 * A connection to `database` (made afresh when `fresh`), with `options`:
 * mysql2's callback connection (`raw`) and the promise one wrapping it.
 */
async function connectBoth(
  database: string,
  options: mysql.ConnectionOptions = {},
  fresh = false,
): Promise<{ conn: Connection; raw: mysql.Connection }> {
  if (fresh) {
    const admin = await mysqlPromise.createConnection({ uri: url })
    try {
      await admin.query(`drop database if exists ${database}`)
      await admin.query(`create database ${database}`)
    } finally {
      await admin.end()
    }
  }
  const raw = mysql.createConnection({ uri: url, database, ...options })
  raw.on('error', () => {}) // a killed connection's; the call that meets it fails too
  const conn = raw.promise()
  await conn.query('select 1') // connected
  return { conn, raw }
}

/** The promise connection of connectBoth. */
async function connect(database: string, options: mysql.ConnectionOptions = {}, fresh = false): Promise<Connection> {
  return (await connectBoth(database, options, fresh)).conn
}

/**
 * The first column of the first row `sql` gives on `conn`, as mysql2 gives
 * it by default whatever the connection's options for rows (see rowOptions).
 */
async function first(conn: Connection, sql: string, values: unknown[] = []): Promise<unknown> {
  const options = { sql, values, rowsAsArray: true, nestTables: false, typeCast: (_: unknown, next: () => unknown) => next() }
  const [rows] = await conn.query<mysqlPromise.RowDataPacket[][]>(options)
  return rows[0]?.[0]
}

/** The fence recorded for `resource`, or undefined. */
async function register(conn: Connection, resource: string): Promise<string | undefined> {
  return (await first(conn, 'select fence from tinystore_fences where resource = ?', [resource])) as string | undefined
}

/** The notes rows' count. */
async function notes(conn: Connection): Promise<number> {
  return Number(await first(conn, 'select count(*) from notes'))
}

/** Every guard vector on a fresh `database`, the guard given the promise or the callback connection. */
async function vectors(database: string, options: mysql.ConnectionOptions, api: 'promise' | 'callback'): Promise<void> {
  const { conn, raw } = await connectBoth(database, options, true)
  // The callback connection the promise one wraps: the guard takes either.
  const handle = api === 'promise' ? conn : raw
  try {
    for (const c of cases()) {
      await conn.query('drop table if exists tinystore_fences, notes')
      await conn.query('create table notes(resource varbinary(4096), fence varchar(64)) engine=InnoDB')
      if (c.table) {
        await guard.ensure(handle)
        await guard.ensure(handle) // safe to run again
      }
      if (c.recorded !== undefined) await conn.query("insert into tinystore_fences values ('chats/42', ?)", [c.recorded])
      await conn.beginTransaction()
      await conn.query('insert into notes values (?, ?)', [c.resource, fenceText(c.fence)])
      const err = await failure(() => guard.check(handle, c.resource, c.fence))
      await (err === undefined ? conn.commit() : conn.rollback())
      judge(c, err, await notes(conn), c.table ? await register(conn, c.resource) : undefined)
    }
  } finally {
    await conn.end()
  }
}

for (const flags of [[], ['-FOUND_ROWS']]) {
  for (const api of ['promise', 'callback'] as const) {
    const name = `${flags.length ? 'without found rows' : "mysql2's default flags"}, ${api} connection`
    mysqlTest(`every guard vector holds on MariaDB (mysql2, ${name})`, () =>
      vectors(`node_guard_vectors_${flags.length}_${api}`, { flags }, api),
    )
  }
}

// The connection's options for the rows it gives (nested by table, cast
// by the caller's function, not cast) do not reach the guard's own reads.
const rowOptions: [string, mysql.ConnectionOptions][] = [
  ['nestTables: true', { nestTables: true }],
  ["nestTables: '_'", { nestTables: '_' }],
  ['rowsAsArray: true', { rowsAsArray: true }],
  ['typeCast: false', { typeCast: false }],
  ['a typeCast function', { typeCast: () => 'cast by the caller' }],
  ['namedPlaceholders: true', { namedPlaceholders: true }],
  ['bigNumberStrings: true', { supportBigNumbers: true, bigNumberStrings: true }],
]
for (const [i, [name, options]] of rowOptions.entries()) {
  mysqlTest(`every guard vector holds on a mysql2 connection with ${name}`, () => vectors(`node_guard_options_${i}`, options, 'promise'))
}

mysqlTest('mysql2: outside a transaction, autocommit off, a pool and its connections', async () => {
  const { conn, raw } = await connectBoth('node_guard_pool', {}, true)
  const pool = mysqlPromise.createPool({ uri: url, database: 'node_guard_pool', connectionLimit: 2 })
  const callbackPool = mysql.createPool({ uri: url, database: 'node_guard_pool', connectionLimit: 1 })
  try {
    await guard.ensure(conn)
    // Autocommit on, no transaction begun: the record would commit alone.
    const outside = (err: unknown) => err instanceof InvalidError && /outside a transaction/.test(err.message)
    await assert.rejects(guard.check(conn, 'chats/42', 7n), outside)
    await assert.rejects(guard.check(raw, 'chats/42', 7n), outside)
    // A callback connection whose handshake has not ended has no status yet.
    const fresh = mysql.createConnection({ uri: url, database: 'node_guard_pool' })
    try {
      await assert.rejects(guard.check(fresh, 'chats/42', 7n), outside)
    } finally {
      await new Promise(resolve => fresh.end(resolve))
    }
    assert.equal(await register(conn, 'chats/42'), undefined, 'a check outside a transaction recorded its fence')
    // Autocommit off: the check's own statement opens the transaction.
    await conn.query('set autocommit = 0')
    await guard.check(conn, 'chats/42', 7n)
    await conn.rollback()
    assert.equal(await register(conn, 'chats/42'), undefined, 'the rollback kept the record')
    await guard.check(conn, 'chats/42', 7n)
    await conn.commit()
    await conn.query('set autocommit = 1')
    assert.equal(await register(conn, 'chats/42'), fenceText(7n))
    // A pool runs each statement on any connection: refused; its connections are taken.
    const pooled = (err: unknown) => err instanceof InvalidError && /pool.getConnection\(\)/.test(err.message)
    await assert.rejects(async () => guard.check(pool as never, 'chats/42', 9n), pooled)
    await assert.rejects(async () => guard.check(callbackPool as never, 'chats/42', 9n), pooled)
    const client = await pool.getConnection()
    try {
      await client.beginTransaction()
      await guard.check(client, 'chats/42', 9n)
      await client.commit()
      await client.beginTransaction()
      await assert.rejects(guard.check(client, 'chats/42', 8n), (err: unknown) => err instanceof StaleError && err.largest === 9n)
      await client.rollback()
    } finally {
      client.release()
    }
    const callbackClient = await new Promise<mysql.PoolConnection>((resolve, reject) =>
      callbackPool.getConnection((err, c) => (err ? reject(err) : resolve(c))),
    )
    try {
      await callbackClient.promise().beginTransaction()
      await guard.check(callbackClient, 'chats/42', 10n)
      await callbackClient.promise().commit()
    } finally {
      callbackClient.release()
    }
    assert.equal(await register(conn, 'chats/42'), fenceText(10n))
    // A bad argument rejects (no throw) and sends nothing.
    const bad = guard.check(conn, '', 9n)
    assert.ok(bad instanceof Promise)
    await assert.rejects(bad, (err: unknown) => err instanceof InvalidError && /resource/.test(err.message))
  } finally {
    await Promise.all([pool.end(), new Promise(resolve => callbackPool.end(resolve)), conn.end()])
  }
})

/**
 * Resolves once the connection `id` is in the middle of the guard's upsert
 * (which, while another transaction holds the register row, waits on its
 * lock), as the server's process list tells `observer`; rejects when
 * `decided` (the check that should wait) settles first, or after 30 s.
 * MariaDB's information_schema.innodb_trx would not do: it is a cache
 * refreshed only when not read for 100 ms, so polled this often it never
 * shows the wait.
 */
async function inTheUpsert(observer: Connection, id: number, decided: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    assert.equal(decided(), false, 'the second writer went on while the first held the row')
    const [rows] = await observer.query<mysqlPromise.RowDataPacket[]>(
      "select count(*) as n from information_schema.processlist where id = ? and info like 'INSERT INTO tinystore_fences%'",
      [id],
    )
    if (Number(rows[0].n) > 0) return
    await new Promise(resolve => setTimeout(resolve, 5))
  }
  assert.fail('the second writer never waited on the register row')
}

for (const [before, later, stale] of [
  [9n, 8n, true],
  [8n, 9n, false],
  [9n, 9n, false],
] as const) {
  const outcome = stale ? 'refuses it' : 'accepts it'
  mysqlTest(`mysql2: a second writer (${later} after ${before}) waits for the first's commit, then the rule ${outcome}`, async () => {
    const database = `node_guard_two_writers_${before}_${later}`
    const first = await connect(database, {}, true)
    const second = await connect(database)
    const observer = await connect(database)
    try {
      await guard.ensure(first)
      await first.query('create table notes(resource varbinary(64), fence varchar(64)) engine=InnoDB')
      await first.query("insert into tinystore_fences values ('chats/42', ?)", [fenceText(5n)])
      await first.beginTransaction()
      await guard.check(first, 'chats/42', before)
      await second.beginTransaction()
      await second.query("insert into notes values ('chats/42', ?)", [fenceText(later)])
      let settled = false
      const late = failure(() => guard.check(second, 'chats/42', later)).finally(() => {
        settled = true
      })
      await inTheUpsert(observer, second.threadId, () => settled)
      await first.commit()
      const err = await late
      if (stale) {
        assert.ok(err instanceof StaleError, String(err))
        assert.deepEqual([err.resource, err.fence, err.largest], ['chats/42', later, before])
        await second.rollback()
        assert.equal(await notes(first), 0, 'the refused write left its row')
      } else {
        assert.equal(err, undefined, String(err))
        await second.commit()
        assert.equal(await notes(first), 1, "the accepted write's row is missing")
      }
      assert.equal(await register(first, 'chats/42'), fenceText(stale ? before : later))
    } finally {
      await Promise.all([first.end(), second.end(), observer.end()])
    }
  })
}

mysqlTest('mysql2 at REPEATABLE READ: a snapshot older than the committed fence is refused with the largest committed', async () => {
  const a = await connect('node_guard_snapshot', {}, true)
  const b = await connect('node_guard_snapshot')
  try {
    await guard.ensure(a)
    await a.query("insert into tinystore_fences values ('chats/42', ?)", [fenceText(5n)])
    // The guard's outcome must not hang on MariaDB's snapshot isolation
    // (on by default from 11.8): this test is of a plain REPEATABLE READ.
    await a.query('set session innodb_snapshot_isolation = OFF').catch(() => {})
    /** A's transaction: a snapshot taken, B commits `between`, then A checks `fence`. */
    const stale = async (fence: bigint, between: bigint): Promise<unknown> => {
      await a.query('set transaction isolation level repeatable read')
      await a.beginTransaction()
      const [seen] = await a.query<mysqlPromise.RowDataPacket[]>('select fence from tinystore_fences') // the snapshot
      await b.beginTransaction()
      await guard.check(b, 'chats/42', between)
      await b.commit()
      const [still] = await a.query<mysqlPromise.RowDataPacket[]>('select fence from tinystore_fences')
      assert.deepEqual(still, seen, 'A has no snapshot')
      const err = await failure(() => guard.check(a, 'chats/42', fence))
      await a.rollback()
      return err
    }
    const err = await stale(7n, 9n)
    assert.ok(err instanceof StaleError, String(err))
    assert.deepEqual([err.fence, err.largest], [7n, 9n])
    assert.equal(await stale(9n, 9n), undefined, 'an equal fence is accepted')
    assert.equal(await register(a, 'chats/42'), fenceText(9n))
  } finally {
    await Promise.all([a.end(), b.end()])
  }
})

mysqlTest("mysql2 under MariaDB's snapshot isolation: error 1020 is mysql2's own error, a serialization failure", async t => {
  const a = await connect('node_guard_1020', {}, true)
  const b = await connect('node_guard_1020')
  try {
    try {
      await a.query('set session innodb_snapshot_isolation = ON')
    } catch {
      t.skip('this server has no innodb_snapshot_isolation (MariaDB 10.6.18 and later)')
      return
    }
    await guard.ensure(a)
    await a.query("insert into tinystore_fences values ('chats/42', ?)", [fenceText(5n)])
    await a.beginTransaction()
    await a.query('select fence from tinystore_fences') // the snapshot
    await b.beginTransaction()
    await guard.check(b, 'chats/42', 9n)
    await b.commit()
    const err = await failure(() => guard.check(a, 'chats/42', 11n))
    await a.rollback()
    assert.ok(err instanceof Error && !(err instanceof TinystoreError), String(err))
    assert.equal((err as { errno?: number }).errno, 1020)
    assert.equal(guard.isSerializationFailure(err), true)
  } finally {
    await Promise.all([a.end(), b.end()])
  }
})

mysqlTest("mysql2: a missing table is InvalidError saying to run ensure, mysql2's error its cause", async () => {
  const conn = await connect('node_guard_missing', {}, true)
  try {
    await conn.beginTransaction()
    const err = await failure(() => guard.check(conn, 'chats/42', 7n))
    await conn.rollback()
    assert.ok(err instanceof InvalidError, String(err))
    assert.match(err.message, /tinystore_fences/)
    assert.match(err.message, /ensure/)
    const cause = err.cause as { errno?: number; sqlState?: string } | undefined
    assert.ok(cause instanceof Error && !(cause instanceof TinystoreError), String(cause))
    assert.deepEqual([cause.errno, cause.sqlState], [1146, '42S02'])
  } finally {
    await conn.end()
  }
})

mysqlTest("mysql2: a reader-only user gets mysql2's own error 1142, and nothing is recorded", async () => {
  const admin = await connect('node_guard_reader', {}, true)
  const user = "'node_guard_reader'@'127.0.0.1'"
  try {
    await guard.ensure(admin)
    await admin.query(`drop user if exists ${user}`)
    await admin.query(`create user ${user}`)
    await admin.query(`grant select on node_guard_reader.tinystore_fences to ${user}`)
    const reader = await connect('node_guard_reader', { user: 'node_guard_reader' })
    try {
      await reader.beginTransaction()
      const err = await failure(() => guard.check(reader, 'chats/42', 7n))
      await reader.rollback()
      assert.ok(err instanceof Error && !(err instanceof TinystoreError), String(err))
      assert.equal((err as { errno?: number }).errno, 1142)
      assert.equal(guard.isSerializationFailure(err), false)
    } finally {
      await reader.end()
    }
    assert.equal(await register(admin, 'chats/42'), undefined)
  } finally {
    await admin.query(`drop user if exists ${user}`)
    await admin.end()
  }
})

/** The core's class of a mysql2 error, as the guard describes it to the core (lib/guard_driver.js). */
function classOf(err: unknown): string {
  const load = createRequire(__filename)
  const { mysqlFailureOf } = load('../lib/guard_driver') as { mysqlFailureOf(err: unknown): object }
  const native = load('../lib/native') as { guardFailureClass(failure: object): string }
  return native.guardFailureClass(mysqlFailureOf(err))
}

mysqlTest("mysql2: a connection killed by KILL before the check gives mysql2's own error, unavailable", async () => {
  const admin = await connect('node_guard_killed', {}, true)
  const { conn: victim, raw } = await connectBoth('node_guard_killed')
  try {
    await guard.ensure(admin)
    await victim.beginTransaction()
    const lost = new Promise(resolve => raw.once('error', resolve))
    await admin.query(`kill ${victim.threadId}`)
    await lost // the server ended it: the check is the next call
    const err = await failure(() => guard.check(victim, 'chats/42', 7n))
    assert.ok(err instanceof Error && !(err instanceof TinystoreError), String(err))
    assert.equal((err as { fatal?: boolean }).fatal, true)
    assert.equal(classOf(err), 'unavailable')
    assert.equal(guard.isSerializationFailure(err), false)
    assert.equal(await register(admin, 'chats/42'), undefined)
  } finally {
    victim.destroy()
    await admin.end()
  }
})

mysqlTest("mysql2: a connection killed in the middle of the check gives mysql2's own error, unavailable", async () => {
  const admin = await connect('node_guard_killed_mid_call', {}, true)
  const first = await connect('node_guard_killed_mid_call')
  const { conn: victim, raw } = await connectBoth('node_guard_killed_mid_call')
  try {
    await guard.ensure(admin)
    await admin.query("insert into tinystore_fences values ('chats/42', ?)", [fenceText(5n)])
    // The first writer holds the register row: the victim's upsert waits on it.
    await first.beginTransaction()
    await guard.check(first, 'chats/42', 9n)
    await victim.beginTransaction()
    let settled = false
    const late = failure(() => guard.check(raw, 'chats/42', 10n)).finally(() => {
      settled = true
    })
    await inTheUpsert(admin, victim.threadId, () => settled)
    await admin.query(`kill ${victim.threadId}`)
    const err = await late
    assert.ok(err instanceof Error && !(err instanceof TinystoreError), String(err))
    assert.equal((err as { fatal?: boolean }).fatal, true)
    assert.equal(classOf(err), 'unavailable')
    assert.equal(guard.isSerializationFailure(err), false)
    await first.rollback()
    assert.equal(await register(admin, 'chats/42'), fenceText(5n), 'the killed check recorded its fence')
  } finally {
    victim.destroy()
    await Promise.all([first.end(), admin.end()])
  }
})

mysqlTest('mysql2: the migration is the one ensure runs, InnoDB', async () => {
  const conn = await connect('node_guard_migration', {}, true)
  try {
    await conn.query(guard.migration('mysql'))
    const [rows] = await conn.query<mysqlPromise.RowDataPacket[]>(
      "select engine from information_schema.tables where table_schema = 'node_guard_migration' and table_name = 'tinystore_fences'",
    )
    assert.equal(rows[0]?.engine ?? rows[0]?.ENGINE, 'InnoDB')
    await guard.ensure(conn)
  } finally {
    await conn.end()
  }
})
