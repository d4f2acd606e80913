#!/usr/bin/env node
// The guard's conformance matrix for TypeScript: replays every scenario of
// vectors/guards.json on every backend it names, through the package's
// public guard API, against the real things:
//
//   sqlite    a SQLite file per scenario, through better-sqlite3
//   postgres  the PostgreSQL at $TINYSTORE_PG_URL (tests/guards/with-postgres.sh),
//             through pg, a schema per scenario
//   s3        moto's S3 at $TINYSTORE_S3_URL (tests/guards/with-s3.sh), through
//             @aws-sdk/client-s3 (path-style), a bucket per scenario
//   http      a node:http server on loopback whose handler reads the fence with
//             http.fenced and guards a SQLite file with it; the client attaches
//             the fence with http.fetch
//   redis     the redis-server at $TINYSTORE_REDIS_URL (tests/guards/with-redis.sh),
//             each step made through ioredis and again through node-redis, on a
//             key of each's own
//   mysql     the MariaDB at $TINYSTORE_MYSQL_URL (tests/guards/with-mariadb.sh),
//             through mysql2's promise API, a database per scenario
//   dynamodb  moto's DynamoDB at $TINYSTORE_S3_URL, through
//             @aws-sdk/client-dynamodb, a chats table per scenario (the
//             register tinystore_fences made by guard.dynamodb.ensure)
//   gcs       fake-gcs-server at $TINYSTORE_GCS_URL (tests/guards/with-gcs.sh),
//             through @google-cloud/storage, an object per scenario in bucket
//             tinystore
//   azure     Azurite at $TINYSTORE_AZURE_CONNECTION_STRING
//             (tests/guards/with-azurite.sh), through @azure/storage-blob, a
//             blob per scenario in container tinystore
//
// A race pauses a write after its first request, answered, by a client whose
// `send` (S3) or first read (GCS, Azure) lets a second, real writer write in
// between (no sleeps); a server
// gone is an S3 client whose every later request goes to a port nothing
// listens on, a pg connection ended by pg_terminate_backend, a mysql2
// connection ended by KILL, or a Redis, DynamoDB, GCS or Azure client of a
// port nothing listens on, made to fail at once. Prints one
// line per cell, `MATRIX typescript <backend> <scenario> ok|FAIL <why>|n/a
// <why>`, and exits 1 on any FAIL. Run from the repository:
//
//   MOTO_SERVER=.venv-python/bin/moto_server bash tests/guards/with-postgres.sh \
//     bash tests/guards/with-s3.sh bash tests/guards/with-redis.sh \
//     bash tests/guards/with-mariadb.sh env FAKE_GCS_SERVER=... bash tests/guards/with-gcs.sh \
//     env AZURITE_BLOB=... bash tests/guards/with-azurite.sh \
//     node bindings-node/test/guard-conformance.mjs [--vectors PATH]
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'

const require = createRequire(import.meta.url)
const here = path.dirname(new URL(import.meta.url).pathname)
const { guard, http, parseFence, fenceText, TinystoreError, StaleError, CorruptError, InvalidError } = require('tinystore')
// The driver errors' classification, as the guards describe them to the core.
const native = require('../lib/native')
const { failureOf, pgFailureOf, mysqlFailureOf, redisFailureOf } = require('../lib/guard_driver')
const Database = require('better-sqlite3')
const pg = require('pg')
const mysql = require('mysql2/promise')
const { S3Client, CreateBucketCommand, ListObjectsV2Command, PutObjectCommand } = require('@aws-sdk/client-s3')
const { Redis } = require('ioredis')
const { createClient } = require('redis')
const { DynamoDBClient, CreateTableCommand, GetItemCommand, PutItemCommand, ScanCommand } = require('@aws-sdk/client-dynamodb')
const { Storage } = require('@google-cloud/storage')
const { BlobServiceClient } = require('@azure/storage-blob')

const LANGUAGE = 'typescript'
// The vectors: vectors/guards.json, or the file `--vectors PATH` or
// $TINYSTORE_GUARD_VECTORS names (a new version of them, tried before it
// replaces the committed one).
const vectorsArg = process.argv.indexOf('--vectors')
const vectorsPath =
  vectorsArg > 0 ? process.argv[vectorsArg + 1] : process.env.TINYSTORE_GUARD_VECTORS || path.join(here, '..', '..', 'vectors', 'guards.json')
if (!vectorsPath) throw new Error('--vectors takes a path')
const spec = JSON.parse(readFileSync(vectorsPath, 'utf8'))
const notApplicable = spec.not_applicable?.[LANGUAGE] ?? {}

/** A failed expectation: the cell's FAIL line gives its message. */
class Mismatch extends Error {}

/** @param {unknown} ok @param {string} why */
function expect(ok, why) {
  if (!ok) throw new Mismatch(why)
}

/** What `call` threw, or undefined when it returned. */
async function outcome(call) {
  try {
    await call()
    return undefined
  } catch (err) {
    return err
  }
}

/** @param {unknown} err */
const named = err => (err instanceof Error ? `${err.name}${err.code ? ` ${err.code}` : ''}: ${err.message}` : String(err))

const unique = () => randomBytes(4).toString('hex')

/** The resources a bad_resource step writes: the bad names a JS string can hold. */
const BAD_RESOURCES = ['', 'x'.repeat(1025), 'a\u0000b', 'chats/\ud800']

/**
 * Checks a guard's error (undefined: accepted) against an expectation of
 * vectors/guards.json. `resource` is what a refusal names; `classify`
 * gives the core's class of a driver's own error, as the guard described it.
 */
function judge(expected, err, { resource, fence, classify }) {
  if (expected === 'accepted') return expect(err === undefined, `expected accepted, got ${named(err)}`)
  expect(err !== undefined, `expected ${JSON.stringify(expected)}, the write was accepted`)
  if (typeof expected === 'object' && expected.stale) {
    expect(err instanceof StaleError, `expected StaleError, got ${named(err)}`)
    const want = [resource, fence, parseFence(expected.stale.largest)]
    const got = [err.resource, err.fence, err.largest]
    expect(got.every((v, i) => v === want[i]), `StaleError carries ${got.join(', ')}, not ${want.join(', ')}`)
    return
  }
  const own = { corrupt: CorruptError, invalid: InvalidError, missing_register: InvalidError, not_in_transaction: InvalidError }
  if (expected in own) {
    expect(err instanceof own[expected], `expected ${own[expected].name}, got ${named(err)}`)
    if (expected === 'corrupt') expect(err.message.includes(resource), `the message does not name ${resource}: ${err.message}`)
    if (expected === 'not_in_transaction') expect(err.message.includes('outside a transaction'), `message: ${err.message}`)
    if (expected === 'missing_register') {
      expect(err.message.includes('ensure'), `the message does not say how to make the table: ${err.message}`)
      expect(err.cause instanceof Error && !(err.cause instanceof TinystoreError), `its cause is not the driver's error: ${named(err.cause)}`)
      expect(classify(err.cause) === 'missing_table', `its cause is classified ${classify(err.cause)}`)
    }
    return
  }
  const driver = { serialization: 'serialization', permission: 'permission', unavailable: 'unavailable' }
  if (expected in driver) {
    expect(err instanceof Error && !(err instanceof TinystoreError), `expected the driver's own error, got ${named(err)}`)
    expect(classify(err) === driver[expected], `the driver's error ${named(err)} is classified ${classify(err)}`)
    if (expected === 'serialization') expect(guard.isSerializationFailure(err), `isSerializationFailure is false for ${named(err)}`)
    return
  }
  throw new Mismatch(`unknown expectation ${JSON.stringify(expected)}`)
}

// ---- SQL: better-sqlite3, pg and mysql2 -----------------------------------

/** The SQL steps on one handle kind; `open` gives the scenario's database. */
function sqlBackend(db) {
  const judged = (step, err, fence) => judge(step.expect, err, { resource: db.resource, fence, classify: db.classify })
  return {
    async write(step) {
      const fence = parseFence(step.write.fence)
      judged(step, await outcome(() => db.write(db.resource, fence)), fence)
    },
    async recorded(step) {
      const got = await db.recorded(db.resource)
      expect(got === fenceText(parseFence(step.recorded.fence)), `recorded ${got}, not fence ${step.recorded.fence}`)
    },
    corrupt: () => db.sql('update tinystore_fences set fence = ? where resource = ?', ['not-a-fence', db.resource]),
    drop_register: () => db.sql('drop table tinystore_fences', []),
    async outside_transaction(step) {
      const fence = parseFence(step.outside_transaction.fence)
      judged(step, await outcome(() => guard.check(db.handle, db.resource, fence)), fence)
      expect((await db.recorded(db.resource)) === undefined, 'a check outside a transaction recorded its fence')
    },
    async serialization(step) {
      const fence = parseFence(step.serialization.fence)
      judged(step, await db.serialization(fence, parseFence(step.serialization.between)), fence)
    },
    async permission(step) {
      const fence = parseFence(step.permission.fence)
      judged(step, await db.permission(fence), fence)
    },
    async server_gone(step) {
      const fence = parseFence(step.server_gone.fence)
      judged(step, await db.serverGone(fence), fence)
    },
    async bad_resource(step) {
      const fence = parseFence(step.bad_resource.fence)
      const before = await db.count()
      for (const bad of BAD_RESOURCES) {
        const err = await outcome(() => db.write(bad, fence))
        expect(err instanceof InvalidError, `resource ${JSON.stringify(bad).slice(0, 40)}: expected InvalidError, got ${named(err)}`)
      }
      expect((await db.count()) === before, 'a bad resource was recorded')
    },
  }
}

/** A scenario's SQLite file, in WAL mode (so a reader keeps its snapshot). */
function sqliteDb(dir, scenario) {
  const file = path.join(dir, `${scenario}.db`)
  const handle = new Database(file)
  handle.pragma('journal_mode = wal')
  guard.ensure(handle)
  const write = (on, resource, fence) => on.transaction(() => guard.check(on, resource, fence))()
  return {
    handle,
    resource: `${LANGUAGE}-${scenario}-${unique()}/r`,
    classify: err => native.guardFailureClass(failureOf(err)),
    write: (resource, fence) => write(handle, resource, fence),
    sql: (text, params) => handle.prepare(text).run(...params),
    recorded: resource => handle.prepare('select fence from tinystore_fences where resource = ?').pluck().get(resource),
    count: () => handle.prepare('select count(*) from tinystore_fences').pluck().get(),
    async serialization(fence, between) {
      const other = new Database(file)
      try {
        handle.exec('BEGIN')
        handle.prepare('select count(*) from tinystore_fences').pluck().get() // the snapshot
        write(other, this.resource, between)
        return await outcome(() => guard.check(handle, this.resource, fence))
      } finally {
        if (handle.inTransaction) handle.exec('ROLLBACK')
        other.close()
      }
    },
    async permission(fence) {
      const readonly = new Database(file, { readonly: true })
      try {
        return await outcome(() => write(readonly, this.resource, fence))
      } finally {
        readonly.close()
      }
    },
    close: () => handle.close(),
  }
}

const READER = 'tinystore_guard_reader'

/** A scenario's pg client, on a schema of its own with tinystore_fences. */
async function pgDb(url, scenario) {
  const schema = `${LANGUAGE}_${scenario}_${unique()}`
  const connect = async () => {
    const client = new pg.Client({ connectionString: url })
    client.on('error', () => {}) // a terminated backend's; the query that meets it fails too
    await client.connect()
    await client.query(`set search_path to ${schema}`)
    return client
  }
  const handle = new pg.Client({ connectionString: url })
  await handle.connect()
  await handle.query(`create schema ${schema}; set search_path to ${schema}`)
  await guard.ensure(handle)
  const write = async (client, resource, fence) => {
    await client.query('BEGIN')
    try {
      await guard.check(client, resource, fence)
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {})
      throw err
    }
  }
  const read = async (text, params) => (await handle.query(text, params)).rows[0]?.v
  return {
    handle,
    resource: `${LANGUAGE}-${scenario}-${unique()}/r`,
    classify: err => native.guardFailureClass(pgFailureOf(err)),
    write: (resource, fence) => write(handle, resource, fence),
    sql: (text, params) => handle.query(text.replace(/\?/g, (_, i) => `$${text.slice(0, i).split('?').length}`), params),
    recorded: resource => read('select fence as v from tinystore_fences where resource = $1', [resource]),
    count: () => read('select count(*)::int as v from tinystore_fences', []),
    async serialization(fence, between) {
      const other = await connect()
      try {
        await handle.query('BEGIN ISOLATION LEVEL REPEATABLE READ')
        await handle.query('select count(*) from tinystore_fences') // the snapshot
        await write(other, this.resource, between)
        return await outcome(() => guard.check(handle, this.resource, fence))
      } finally {
        await handle.query('ROLLBACK')
        await other.end()
      }
    },
    async permission(fence) {
      await handle.query(
        `do $$ begin create role ${READER} nologin; exception when duplicate_object or unique_violation then null; end $$`,
      )
      await handle.query(`grant usage on schema ${schema} to ${READER}; grant select on tinystore_fences to ${READER}`)
      await handle.query('BEGIN')
      try {
        await handle.query(`set local role ${READER}`)
        return await outcome(() => guard.check(handle, this.resource, fence))
      } finally {
        await handle.query('ROLLBACK')
      }
    },
    async serverGone(fence) {
      const victim = await connect()
      const ended = new Promise(resolve => victim.once('end', resolve))
      await victim.query('BEGIN')
      const { pid } = (await victim.query('select pg_backend_pid() as pid')).rows[0]
      await handle.query('select pg_terminate_backend($1)', [pid])
      await ended // the server went away: the check is the next call
      return outcome(() => guard.check(victim, this.resource, fence))
    },
    close: () => handle.end(),
  }
}

/**
 * A scenario's mysql2 connection (promise API), on a database of its own
 * with tinystore_fences made by guard.ensure.
 */
async function mysqlDb(url, scenario) {
  const database = `matrix_ts_${unique()}${unique()}`
  const connect = async (options = {}) => {
    const conn = await mysql.createConnection({ uri: url, ...options })
    conn.on('error', () => {}) // a killed connection's; the call that meets it fails too
    return conn
  }
  const admin = await connect()
  await admin.query(`create database ${database}`)
  await admin.query(`use ${database}`)
  const handle = await connect({ database })
  await guard.ensure(handle)
  const write = async (conn, resource, fence) => {
    await conn.beginTransaction()
    try {
      await guard.check(conn, resource, fence)
      await conn.commit()
    } catch (err) {
      await conn.rollback().catch(() => {})
      throw err
    }
  }
  const read = async (text, params) => {
    const [rows] = await handle.query(text, params)
    return rows[0]?.v
  }
  return {
    handle,
    resource: `${LANGUAGE}-${scenario}-${unique()}/r`,
    classify: err => native.guardFailureClass(mysqlFailureOf(err)),
    write: (resource, fence) => write(handle, resource, fence),
    sql: (text, params) => handle.query(text, params),
    recorded: resource => read('select fence as v from tinystore_fences where resource = ?', [resource]),
    count: async () => Number(await read('select count(*) as v from tinystore_fences', [])),
    async serialization(fence, between) {
      // A at REPEATABLE READ under MariaDB's snapshot isolation: its upsert
      // of a row changed since its snapshot fails with error 1020.
      const a = await connect({ database })
      try {
        await a.query('set session innodb_snapshot_isolation = ON')
        await a.query('set transaction isolation level repeatable read')
        await a.beginTransaction()
        await a.query('select * from tinystore_fences') // the snapshot
        await write(handle, this.resource, between)
        return await outcome(() => guard.check(a, this.resource, fence))
      } finally {
        await a.rollback().catch(() => {})
        await a.end()
      }
    },
    async permission(fence) {
      const reader = `'${READER}'@'127.0.0.1'`
      await admin.query(`create user if not exists ${reader}`)
      await admin.query(`grant select on ${database}.tinystore_fences to ${reader}`)
      const conn = await connect({ database, user: READER })
      try {
        return await outcome(() => write(conn, this.resource, fence))
      } finally {
        await conn.end()
      }
    },
    async serverGone(fence) {
      const victim = await connect({ database })
      try {
        const lost = new Promise(resolve => victim.connection.once('error', resolve))
        await victim.beginTransaction()
        await admin.query(`kill ${victim.threadId}`)
        await lost // the server ended it: the check is the next call
        const err = await outcome(() => guard.check(victim, this.resource, fence))
        expect((await this.recorded(this.resource)) === undefined, 'the check recorded its fence on a connection that was gone')
        return err
      } finally {
        victim.destroy()
      }
    },
    async close() {
      await handle.end()
      await admin.query(`drop database if exists ${database}`)
      await admin.end()
    },
  }
}

// ---- S3 --------------------------------------------------------------------

/** A client of moto's S3 at `endpoint`. */
const s3Client = endpoint =>
  new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  })

/** A loopback address nothing listens on (a port just given up). */
async function deadEndpoint() {
  const server = createServer()
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise(resolve => server.close(resolve))
  return `http://127.0.0.1:${port}`
}

async function s3Backend(url, scenario) {
  const client = s3Client(url)
  const Bucket = `ts-${scenario.replace(/_/g, '-')}-${unique()}`.slice(0, 63)
  await client.send(new CreateBucketCommand({ Bucket }))
  const resource = `${Bucket}/r`
  const bodyOf = (w, fence) => w.body ?? `fence ${fence}`
  const put = (on, w) => {
    const fence = parseFence(w.fence)
    return guard.s3.put(on, { bucket: Bucket, key: 'r', body: bodyOf(w, fence), fence })
  }
  const judged = (expected, err, fence) =>
    judge(expected, err, { resource, fence, classify: e => native.guardFailureClass(failureOf(e)) })
  /** A client that makes its first request on `first`, then calls `then()` once, and the rest on `rest`. */
  const afterFirst = (first, then, rest = first) => {
    let sent = 0
    return {
      async send(command, options) {
        if (++sent > 1) return rest.send(command, options)
        const answer = await first.send(command, options)
        await then()
        return answer
      },
    }
  }
  return {
    async write(step) {
      judged(step.expect, await outcome(() => put(client, step.write)), parseFence(step.write.fence))
    },
    async delete(step) {
      const fence = parseFence(step.delete.fence)
      judged(step.expect, await outcome(() => guard.s3.delete(client, { bucket: Bucket, key: 'r', fence })), fence)
    },
    async recorded(step) {
      const want = step.recorded
      const got = await guard.s3.get(client, Bucket, 'r')
      if (want.fence === 'none') return expect(got === null, `read fence ${got?.fence}, not none`)
      expect(got !== null && got.fence === parseFence(want.fence), `read fence ${got?.fence ?? 'none'}, not ${want.fence}`)
      if (want.body !== undefined) {
        const body = Buffer.from(got.body).toString('utf8')
        expect(body === want.body, `read body ${JSON.stringify(body)}, not ${JSON.stringify(want.body)}`)
      }
    },
    corrupt: () => client.send(new PutObjectCommand({ Bucket, Key: 'r/tinystore-fence/not-a-fence', Body: 'x' })),
    async race(step) {
      const other = s3Client(url)
      /** @type {unknown[]} */
      const between = []
      try {
        const paused = afterFirst(client, async () => {
          for (const w of step.race.between) between.push(await outcome(() => put(other, w)))
        })
        const err = await outcome(() => put(paused, step.race))
        expect(between.length === step.race.between.length, 'the writers in between did not all write')
        between.forEach((e, i) => judged(step.expect_between, e, parseFence(step.race.between[i].fence)))
        judged(step.expect, err, parseFence(step.race.fence))
      } finally {
        other.destroy()
      }
    },
    async server_gone(step) {
      const dead = s3Client(await deadEndpoint())
      try {
        const gone = afterFirst(client, async () => {}, dead)
        judged(step.expect, await outcome(() => put(gone, step.server_gone)), parseFence(step.server_gone.fence))
      } finally {
        dead.destroy()
      }
    },
    async bad_resource(step) {
      const fence = parseFence(step.bad_resource.fence)
      for (const key of BAD_RESOURCES) {
        const err = await outcome(() => guard.s3.put(client, { bucket: Bucket, key, body: 'x', fence }))
        expect(err instanceof InvalidError, `key ${JSON.stringify(key).slice(0, 40)}: expected InvalidError, got ${named(err)}`)
      }
      const listed = await client.send(new ListObjectsV2Command({ Bucket }))
      expect((listed.KeyCount ?? 0) === 0, `a bad key was written: ${listed.Contents?.map(o => o.Key)}`)
    },
    close: () => client.destroy(),
  }
}

// ---- Redis -----------------------------------------------------------------

const REDIS_READER = 'tinystore_guard_reader'

/**
 * The Redis clients, each as the runner uses it: `connect(options)` gives
 * a client (`url`, or a dead `port`, or the reader's `user`), its plain
 * `command`, and its end.
 */
const redisClients = {
  ioredis: {
    async connect({ url, port, user }) {
      const client = port
        ? new Redis({ host: '127.0.0.1', port, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null })
        : new Redis(url, user ? { username: user, password: 'tinystore', enableReadyCheck: false } : {})
      client.on('error', () => {})
      if (port) await client.connect().catch(() => {})
      return { client, command: (...args) => client.call(...args), close: async () => client.disconnect() }
    },
  },
  'node-redis': {
    async connect({ url, port, user }) {
      const options = port ? { socket: { host: '127.0.0.1', port, reconnectStrategy: false } } : { url, ...(user ? { username: user, password: 'tinystore' } : {}) }
      const client = createClient(options)
      client.on('error', () => {})
      await (port ? client.connect().catch(() => {}) : client.connect())
      return { client, command: (...args) => client.sendCommand(args), close: async () => client.destroy() }
    },
  },
}

/** One client library's steps on the scenario's own key. */
async function redisSide(url, scenario, library) {
  const kind = redisClients[library]
  const { client, command, close } = await kind.connect({ url })
  const key = `${LANGUAGE}-${library}-${scenario}-${unique()}/r`
  const register = `{${key}}:tinystore-fence`
  const judged = (expected, err, fence) =>
    judge(expected, err, { resource: key, fence, classify: e => native.guardFailureClass(redisFailureOf(e)) })
  const set = (on, fence) => guard.redis.set(on, key, String(fence), fence)
  /** What `call` on a client made of `options` threw (undefined: it returned). */
  const on = async (options, call) => {
    const other = await kind.connect({ url, ...options })
    try {
      return await outcome(() => call(other.client))
    } finally {
      await other.close()
    }
  }
  return {
    async write(step) {
      const fence = parseFence(step.write.fence)
      judged(step.expect, await outcome(() => set(client, fence)), fence)
    },
    async recorded(step) {
      const got = await command('GET', key)
      const want = String(parseFence(step.recorded.fence))
      expect(got === want, `GET ${key} gives ${got}, not ${want}`)
    },
    corrupt: () => command('SET', register, 'not-a-fence'),
    async own_script(step) {
      const fence = parseFence(step.own_script.fence)
      const body = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])"
      /** @type {unknown} */
      let reply
      const err = await outcome(async () => {
        reply = await guard.redis.script(client, key, body, fence, { args: [String(fence)] })
      })
      judged(step.expect, err, fence)
      if (step.expect === 'accepted') expect(reply === String(fence), `the script replied ${JSON.stringify(reply)}, not ${fence}`)
    },
    async permission(step) {
      await command('ACL', 'SETUSER', REDIS_READER, 'on', '>tinystore', '~*', '+@read')
      const fence = parseFence(step.permission.fence)
      judged(step.expect, await on({ user: REDIS_READER }, reader => set(reader, fence)), fence)
    },
    async server_gone(step) {
      const fence = parseFence(step.server_gone.fence)
      const port = Number(new URL(await deadEndpoint()).port)
      judged(step.expect, await on({ port }, dead => set(dead, fence)), fence)
    },
    async bad_resource(step) {
      const fence = parseFence(step.bad_resource.fence)
      for (const bad of BAD_RESOURCES) {
        const err = await outcome(() => guard.redis.set(client, bad, 'x', fence))
        expect(err instanceof InvalidError, `key ${JSON.stringify(bad).slice(0, 40)}: expected InvalidError, got ${named(err)}`)
        if (bad.isWellFormed()) {
          const written = await command('EXISTS', bad, `{${bad}}:tinystore-fence`)
          expect(written === 0, `a bad key was written: ${JSON.stringify(bad).slice(0, 40)}`)
        }
      }
    },
    close,
  }
}

/** Each step through ioredis, then through node-redis, each on its own key. */
async function redisBackend(url, scenario) {
  const sides = []
  try {
    for (const library of Object.keys(redisClients)) sides.push(await redisSide(url, scenario, library))
  } catch (err) {
    for (const side of sides) await side.close()
    throw err
  }
  const each = action => async step => {
    for (const [i, side] of sides.entries()) {
      try {
        await side[action](step)
      } catch (err) {
        const library = Object.keys(redisClients)[i]
        throw new Mismatch(`${library}: ${err instanceof Mismatch ? err.message : named(err)}`)
      }
    }
  }
  const actions = ['write', 'recorded', 'corrupt', 'own_script', 'permission', 'server_gone', 'bad_resource']
  return {
    ...Object.fromEntries(actions.map(action => [action, each(action)])),
    async close() {
      for (const side of sides) await side.close()
    },
  }
}

// ---- DynamoDB --------------------------------------------------------------

/** A DynamoDBClient of moto's DynamoDB at `endpoint`, trying each call once. */
const dynamoClient = endpoint =>
  new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 })

async function dynamoBackend(url, scenario) {
  const client = dynamoClient(url)
  const TableName = `ts-${scenario}-${unique()}`
  await client.send(
    new CreateTableCommand({
      TableName,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  )
  await guard.dynamodb.ensure(client)
  const resource = `${LANGUAGE}-${scenario}-${unique()}/chats/42`
  const put = (on, res, fence) =>
    guard.dynamodb.putItem(on, res, fence, { TableName, Item: { id: { S: '42' }, fence: { S: String(fence) } } })
  const judged = (expected, err, fence) =>
    judge(expected, err, { resource, fence, classify: e => native.guardFailureClass(failureOf(e)) })
  const registerKey = { resource: { S: resource } }
  return {
    async write(step) {
      const fence = parseFence(step.write.fence)
      judged(step.expect, await outcome(() => put(client, resource, fence)), fence)
    },
    async recorded(step) {
      const got = await client.send(new GetItemCommand({ TableName: guard.dynamodb.REGISTER_TABLE, Key: registerKey, ConsistentRead: true }))
      const text = got.Item?.fence?.S
      expect(text === fenceText(parseFence(step.recorded.fence)), `the register holds ${JSON.stringify(got.Item?.fence)}, not fence ${step.recorded.fence}`)
    },
    corrupt: () => client.send(new PutItemCommand({ TableName: guard.dynamodb.REGISTER_TABLE, Item: { ...registerKey, fence: { N: '12' } } })),
    async server_gone(step) {
      const dead = dynamoClient(await deadEndpoint())
      try {
        const fence = parseFence(step.server_gone.fence)
        judged(step.expect, await outcome(() => put(dead, resource, fence)), fence)
      } finally {
        dead.destroy()
      }
    },
    async bad_resource(step) {
      const fence = parseFence(step.bad_resource.fence)
      for (const bad of BAD_RESOURCES) {
        const err = await outcome(() => put(client, bad, fence))
        expect(err instanceof InvalidError, `resource ${JSON.stringify(bad).slice(0, 40)}: expected InvalidError, got ${named(err)}`)
      }
      const scanned = await client.send(new ScanCommand({ TableName, ConsistentRead: true }))
      expect((scanned.Count ?? 0) === 0, 'a write under a bad resource landed')
    },
    close: () => client.destroy(),
  }
}

// ---- Google Cloud Storage and Azure Blob Storage ---------------------------

/**
 * The steps on a store that compares versions, through `store`: `handle(name,
 * { gone })` (a File or a BlockBlobClient; of a port nothing listens on when
 * gone), `readFn` and `uploadFn` (the handle's method names), `write(handle,
 * body, fence)` (the guard), `plain(name, body, metadata)` (no guard),
 * `fenceOf(name)` (the fence metadata as stored, or undefined) and
 * `exists(name)`.
 */
function versionedBackend(scenario, store) {
  const name = `${LANGUAGE}-${scenario}-${unique()}/r`
  const resource = `tinystore/${name}`
  const judged = (expected, err, fence) =>
    judge(expected, err, { resource, fence, classify: e => native.guardFailureClass(failureOf(e)) })
  const write = (handle, w) => {
    const fence = parseFence(w.fence)
    return store.write(handle, w.body ?? `fence ${fence}`, fence)
  }
  /** `handle` with its first read answered, then `then()` awaited, before the guard goes on. */
  const afterFirstRead = (handle, then) => {
    let reads = 0
    return {
      name: handle.name,
      bucket: handle.bucket,
      containerName: handle.containerName,
      [store.readFn]: async (...args) => {
        const answer = await handle[store.readFn](...args)
        if (++reads === 1) await then()
        return answer
      },
      [store.uploadFn]: (...args) => handle[store.uploadFn](...args),
    }
  }
  return {
    async write(step) {
      judged(step.expect, await outcome(() => write(store.handle(name), step.write)), parseFence(step.write.fence))
    },
    async recorded(step) {
      const got = await store.fenceOf(name)
      expect(got === fenceText(parseFence(step.recorded.fence)), `the object's fence metadata is ${got}, not fence ${step.recorded.fence}`)
    },
    corrupt: () => store.plain(name, 'by hand', { [store.key]: 'not-a-fence' }),
    async race(step) {
      /** @type {unknown[]} */
      const between = []
      const paused = afterFirstRead(store.handle(name), async () => {
        for (const w of step.race.between) between.push(await outcome(() => write(store.handle(name), w)))
      })
      const err = await outcome(() => write(paused, step.race))
      expect(between.length === step.race.between.length, 'the writers in between did not all write')
      between.forEach((e, i) => judged(step.expect_between, e, parseFence(step.race.between[i].fence)))
      judged(step.expect, err, parseFence(step.race.fence))
    },
    async server_gone(step) {
      const fence = parseFence(step.server_gone.fence)
      judged(step.expect, await outcome(async () => store.write(await store.handle(name, { gone: true }), 'x', fence)), fence)
    },
    async bad_resource(step) {
      const fence = parseFence(step.bad_resource.fence)
      for (const bad of BAD_RESOURCES) {
        // The handle's own shape, its calls made on a real handle of the name
        // (made only if the guard calls: an SDK may refuse the name itself).
        const real = () => store.handle(bad)
        const handle = {
          name: bad,
          bucket: { name: 'tinystore' },
          containerName: 'tinystore',
          [store.readFn]: (...args) => real()[store.readFn](...args),
          [store.uploadFn]: (...args) => real()[store.uploadFn](...args),
        }
        const err = await outcome(() => store.write(handle, 'x', fence))
        expect(err instanceof InvalidError, `name ${JSON.stringify(bad).slice(0, 40)}: expected InvalidError, got ${named(err)}`)
        const written = await outcome(async () => expect(!(await store.exists(bad)), 'written'))
        expect(!(written instanceof Mismatch), `a write under the bad name ${JSON.stringify(bad).slice(0, 40)} landed`)
      }
    },
    close: async () => {},
  }
}

function gcsBackend(url, scenario) {
  // @google-cloud/storage 7 takes STORAGE_EMULATOR_HOST (set by
  // with-gcs.sh) as its JSON API's whole base URL, ahead of apiEndpoint.
  delete process.env.STORAGE_EMULATOR_HOST
  const storageOf = endpoint => new Storage({ apiEndpoint: endpoint, projectId: 'test', retryOptions: { autoRetry: false } })
  const bucket = storageOf(url).bucket('tinystore')
  return versionedBackend(scenario, {
    key: guard.gcs.METADATA_KEY,
    readFn: 'getMetadata',
    uploadFn: 'save',
    handle: (name, { gone } = {}) => (gone ? deadEndpoint().then(e => storageOf(e).bucket('tinystore').file(name)) : bucket.file(name)),
    write: (file, body, fence) => guard.gcs.save(file, body, fence),
    plain: (name, body, metadata) => bucket.file(name).save(body, { resumable: false, metadata: { metadata } }),
    async fenceOf(name) {
      const [meta] = await bucket.file(name).getMetadata()
      return meta.metadata?.[guard.gcs.METADATA_KEY]
    },
    async exists(name) {
      if (!name) return false
      const [found] = await bucket.file(name).exists()
      return found
    },
  })
}

function azureBackend(connection, scenario) {
  const options = { retryOptions: { maxTries: 1 } }
  const containerOf = conn => BlobServiceClient.fromConnectionString(conn, options).getContainerClient('tinystore')
  const container = containerOf(connection)
  return versionedBackend(scenario, {
    key: guard.azure.METADATA_KEY,
    readFn: 'getProperties',
    uploadFn: 'upload',
    handle: (name, { gone } = {}) =>
      gone
        ? deadEndpoint().then(e => containerOf(connection.replace(/BlobEndpoint=http:\/\/[^/;]+/, `BlobEndpoint=${e}`)).getBlockBlobClient(name))
        : container.getBlockBlobClient(name),
    write: (blob, body, fence) => guard.azure.upload(blob, body, fence),
    plain: async (name, body, metadata) => {
      await container.getBlockBlobClient(name).upload(body, Buffer.byteLength(body), { metadata })
    },
    async fenceOf(name) {
      const props = await container.getBlockBlobClient(name).getProperties()
      return Object.entries(props.metadata ?? {}).find(([k]) => k.toLowerCase() === guard.azure.METADATA_KEY)?.[1]
    },
    async exists(name) {
      if (!name || !name.isWellFormed()) return false
      return container.getBlockBlobClient(name).exists()
    },
  })
}

// ---- HTTP ------------------------------------------------------------------

async function httpBackend(dir, scenario) {
  const db = sqliteDb(dir, `http-${scenario}`)
  /** @type {unknown[]} */
  const unanswered = []
  const server = createServer(
    http.fenced((req, res) => {
      const fence = req.tinystoreFence
      if (fence === undefined) {
        res.statusCode = 428
        res.end('Tinystore-Fence is required')
        return
      }
      const resource = decodeURIComponent(new URL(req.url, 'http://loopback').pathname.slice('/write/'.length))
      db.write(resource, fence) // the guard in the handler's own transaction
      res.end('saved')
    }, err => unanswered.push(err)),
  )
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/write/${encodeURIComponent(db.resource)}`
  const answer = async response => ({ status: response.status, headers: response.headers, body: await response.text() })
  return {
    async write(step) {
      const w = step.write
      if (w.fence_header !== undefined) {
        const got = await answer(await fetch(url, { method: 'POST', headers: { [http.FENCE_HEADER]: w.fence_header } }))
        expect(step.expect === 'bad_request', `unknown expectation ${JSON.stringify(step.expect)} for a raw header`)
        expect(got.status === http.BAD_REQUEST, `header ${w.fence_header}: ${got.status}, not 400`)
        expect(got.body.includes(http.FENCE_HEADER), `the 400's body does not name the header: ${got.body}`)
        return
      }
      const fence = parseFence(w.fence)
      unanswered.length = 0
      const got = await answer(await http.fetch(url, fence, { method: 'POST' }))
      const e = step.expect
      if (e === 'accepted') return expect(got.status === 200, `${got.status} ${got.body}, not 200`)
      if (typeof e === 'object' && e.stale) {
        expect(got.status === http.CONFLICT, `${got.status} ${got.body}, not 409`)
        const largest = got.headers.get(http.LARGEST_HEADER)
        expect(largest === e.stale.largest, `${http.LARGEST_HEADER}: ${largest}, not ${e.stale.largest}`)
        return
      }
      expect(got.status === 500 && unanswered.length === 1, `${got.status} ${got.body}, not a 500 with the handler's error`)
      judge(e, unanswered[0], { resource: db.resource, fence, classify: db.classify })
    },
    recorded: sqlBackend(db).recorded,
    corrupt: sqlBackend(db).corrupt,
    async close() {
      await new Promise(resolve => server.close(resolve))
      db.close()
    },
  }
}

// ---- the matrix ------------------------------------------------------------

async function backendFor(name, scenario, dir) {
  if (name === 'sqlite') {
    const db = sqliteDb(dir, scenario)
    return { ...sqlBackend(db), close: db.close }
  }
  if (name === 'postgres') {
    const url = process.env.TINYSTORE_PG_URL
    if (!url) throw new Mismatch('TINYSTORE_PG_URL is unset: run under tests/guards/with-postgres.sh')
    const db = await pgDb(url, scenario)
    return { ...sqlBackend(db), close: db.close }
  }
  if (name === 'mysql') {
    const url = process.env.TINYSTORE_MYSQL_URL
    if (!url) throw new Mismatch('TINYSTORE_MYSQL_URL is unset: run under tests/guards/with-mariadb.sh')
    const db = await mysqlDb(url, scenario)
    return { ...sqlBackend(db), close: db.close }
  }
  if (name === 's3') {
    const url = process.env.TINYSTORE_S3_URL
    if (!url) throw new Mismatch('TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh')
    return s3Backend(url, scenario)
  }
  if (name === 'redis') {
    const url = process.env.TINYSTORE_REDIS_URL
    if (!url) throw new Mismatch('TINYSTORE_REDIS_URL is unset: run under tests/guards/with-redis.sh')
    return redisBackend(url, scenario)
  }
  if (name === 'http') return httpBackend(dir, scenario)
  if (name === 'dynamodb') {
    const url = process.env.TINYSTORE_S3_URL
    if (!url) throw new Mismatch('TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh')
    return dynamoBackend(url, scenario)
  }
  if (name === 'gcs') {
    const url = process.env.TINYSTORE_GCS_URL
    if (!url) throw new Mismatch('TINYSTORE_GCS_URL is unset: run under tests/guards/with-gcs.sh')
    return gcsBackend(url, scenario)
  }
  if (name === 'azure') {
    const connection = process.env.TINYSTORE_AZURE_CONNECTION_STRING
    if (!connection) throw new Mismatch('TINYSTORE_AZURE_CONNECTION_STRING is unset: run under tests/guards/with-azurite.sh')
    return azureBackend(connection, scenario)
  }
  throw new Mismatch(`unknown backend ${name}`)
}

/** Runs one cell; gives its line's end: "ok", "FAIL why". */
async function cell(backendName, scenario, dir) {
  let backend
  try {
    backend = await backendFor(backendName, scenario.name, dir)
    for (const [i, step] of scenario.steps.entries()) {
      const action = Object.keys(step).find(k => k !== 'expect' && k !== 'expect_between')
      const run = backend[action]
      if (typeof run !== 'function') throw new Mismatch(`step ${i + 1}: ${action} cannot run on ${backendName}`)
      try {
        await run(step)
      } catch (err) {
        throw new Mismatch(`step ${i + 1} (${action}): ${err instanceof Mismatch ? err.message : named(err)}`)
      }
    }
    return 'ok'
  } catch (err) {
    return `FAIL ${(err instanceof Mismatch ? err.message : named(err)).replace(/\s+/g, ' ')}`
  } finally {
    await backend?.close()
  }
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'tinystore-node-conformance-'))
  let failed = 0
  try {
    for (const backend of Object.keys(spec.backends)) {
      for (const scenario of spec.scenarios) {
        if (!scenario.backends.includes(backend)) continue
        const na = notApplicable[`${backend}/${scenario.name}`]
        const result = na !== undefined ? `n/a ${na}` : await cell(backend, scenario, dir)
        if (result.startsWith('FAIL')) failed++
        console.log(`MATRIX ${LANGUAGE} ${backend} ${scenario.name} ${result}`)
      }
    }
  } finally {
    if (!failed) rmSync(dir, { recursive: true, force: true })
    else console.error(`the scenarios' files are kept in ${dir}`)
  }
  process.exitCode = failed ? 1 : 0
}

await main()
