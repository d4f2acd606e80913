#!/usr/bin/env node
// The Node writer of the guard's contention test (tests/guards/README.md):
//
//   node worker.mjs --store ADDRESS --db DB --name NAME --seconds S --ttl-ms T
//
// Takes turns holding key "1" of the lock group "guarded" through the
// served store at ADDRESS and, under each lease, writes one guard_log row
// and checks the lease's fence with the guard for "contention/1", in one
// transaction: better-sqlite3 (BEGIN IMMEDIATE) for a file path, pg (READ
// COMMITTED) for a postgresql:// URL. For s3://BUCKET/KEY it writes the
// object instead, a guarded put (guard.s3) of {"fence", "writer"} through
// an S3Client on $TINYSTORE_S3_URL (path-style): the guard keeps one object
// per fence under KEY (KEY/tinystore-fence/<40 digits>), and
// guard.s3.get(client, BUCKET, KEY) reads the largest. For a redis:// URL
// (tests/guards/with-redis.sh's) it runs, through ioredis, the guard's own
// script call (guard.redis.script) on key "contention/1" with the extra key
// "{contention/1}:log" and the arguments [the fence as 40 digits, NAME]: the
// script appends "<fence> <NAME>" to the log and sets the key to the fence,
// behind the check. For a mysql:// URL (tests/guards/with-mariadb.sh's,
// the database contention.py made) it writes the row and checks through a
// mysql2 promise connection, in one transaction at the server's default
// isolation (REPEATABLE READ): the register row's lock makes a second
// writer wait for the first's commit. The package, better-sqlite3, pg,
// mysql2, @aws-sdk/client-s3 and ioredis are loaded from bindings-node, as
// its tests load them.
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'

const require = createRequire(new URL('../../bindings-node/package.json', import.meta.url))
/** @type {typeof import('../../bindings-node')} */
const tinystore = require('tinystore')
const { connect, guard, fenceText, LeaseLostError, StaleError, TinystoreError } = tinystore

const RESOURCE = 'contention/1'
/** The Redis mode's script: the log's append and the key's write, behind the guard's check. */
const REDIS_BODY = "redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2]) redis.call('SET', KEYS[1], ARGV[1]) return 1"

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    db: { type: 'string' },
    name: { type: 'string' },
    seconds: { type: 'string' },
    'ttl-ms': { type: 'string' },
  },
})
for (const key of ['store', 'db', 'name', 'seconds', 'ttl-ms']) {
  if (values[key] === undefined) {
    process.stderr.write(`usage: worker.mjs --store ADDRESS --db DB --name NAME --seconds S --ttl-ms T (missing --${key})\n`)
    process.exit(2)
  }
}
const name = String(values.name)
const seconds = Number(values.seconds)
const ttl = Number(values['ttl-ms'])

/** One line on stdout; a pipe's writes are synchronous on Linux, so it is out at once. */
function say(line) {
  process.stdout.write(`${line}\n`)
}

/**
 * The database: `write(fence)` inserts the log row and checks the guard in
 * one transaction, committing when accepted and rolling back (and
 * throwing) otherwise.
 * @param {string} db
 * @returns {Promise<{ write(fence: bigint): Promise<void>, close(): Promise<void> }>}
 */
async function database(db) {
  const object = /^s3:\/\/([^/]+)\/(.+)$/.exec(db)
  if (object) {
    const endpoint = process.env.TINYSTORE_S3_URL
    if (!endpoint) throw new Error(`--db ${db} needs TINYSTORE_S3_URL (run under tests/guards/with-s3.sh)`)
    const { S3Client } = require('@aws-sdk/client-s3')
    const client = new S3Client({ endpoint, forcePathStyle: true, region: process.env.AWS_REGION ?? 'us-east-1' })
    const [, bucket, key] = object
    return {
      async write(fence) {
        const body = JSON.stringify({ fence: String(fence), writer: name })
        await guard.s3.put(client, { bucket, key, body, fence })
      },
      async close() {
        client.destroy()
      },
    }
  }
  if (db.startsWith('redis://')) {
    const { Redis } = require('ioredis')
    const client = new Redis(db)
    return {
      async write(fence) {
        const options = { keys: [`{${RESOURCE}}:log`], args: [fenceText(fence), name] }
        await guard.redis.script(client, RESOURCE, REDIS_BODY, fence, options)
      },
      async close() {
        client.disconnect()
      },
    }
  }
  if (db.startsWith('mysql://')) {
    const mysql = require('mysql2/promise')
    const conn = await mysql.createConnection({ uri: db })
    return {
      async write(fence) {
        await conn.beginTransaction()
        try {
          await conn.execute('insert into guard_log (fence, writer) values (?, ?)', [fenceText(fence), name])
          await guard.check(conn, RESOURCE, fence)
          await conn.commit()
        } catch (err) {
          await conn.rollback()
          throw err
        }
      },
      close: () => conn.end(),
    }
  }
  if (/^postgres(ql)?:\/\//.test(db)) {
    const pg = require('pg')
    const client = new pg.Client({ connectionString: db })
    await client.connect()
    return {
      async write(fence) {
        await client.query('BEGIN ISOLATION LEVEL READ COMMITTED')
        try {
          await client.query('insert into guard_log (fence, writer) values ($1, $2)', [fenceText(fence), name])
          await guard.check(client, RESOURCE, fence)
          await client.query('COMMIT')
        } catch (err) {
          await client.query('ROLLBACK')
          throw err
        }
      },
      close: () => client.end(),
    }
  }
  const Database = require('better-sqlite3')
  const sqlite = new Database(db, { timeout: 10_000 })
  const insert = sqlite.prepare('insert into guard_log (fence, writer) values (?, ?)')
  const write = sqlite.transaction(fence => {
    insert.run(fenceText(fence), name)
    guard.check(sqlite, RESOURCE, fence)
  })
  return {
    async write(fence) {
      write.immediate(fence)
    },
    async close() {
      sqlite.close()
    },
  }
}

/** @param {number} ms */
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

/**
 * `ERROR <code> <message>`: tinystore's code, or the driver's own (the
 * guard lets the driver's errors through: SQLITE_BUSY, 40001, mysql2's
 * ER_LOCK_DEADLOCK), else internal.
 * @param {unknown} err
 */
function errorLine(err) {
  const driver = /** @type {{ code?: unknown }} */ (err)?.code
  const code = err instanceof TinystoreError ? err.code : typeof driver === 'string' ? driver : 'internal'
  const message = err instanceof Error ? err.message : String(err)
  return `ERROR ${code} ${message.replace(/\s+/g, ' ')}`
}

async function main() {
  const db = await database(String(values.db))
  const store = await connect(String(values.store))
  const locks = store.locks('guarded', { ttl, renew: false })
  const end = performance.now() + seconds * 1000
  while (performance.now() < end) {
    let lease
    try {
      lease = await locks.acquire('1')
    } catch (err) {
      say(errorLine(err))
      continue
    }
    const fence = lease.fence
    say(`HELD ${fence}`)
    await sleep(30) // the window in which the driver may stop this process
    try {
      await db.write(fence)
      say(`ACCEPTED ${fence}`)
    } catch (err) {
      say(err instanceof StaleError ? `REFUSED ${err.fence} ${err.largest}` : errorLine(err))
    }
    try {
      await lease.release()
    } catch (err) {
      if (!(err instanceof LeaseLostError)) say(errorLine(err))
    }
  }
  await store.close()
  await db.close()
  say('DONE')
  process.exit(0)
}

main().catch(err => {
  process.stderr.write(`worker ${name} failed: ${err?.stack ?? err}\n`)
  process.exit(1)
})
