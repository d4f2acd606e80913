#!/usr/bin/env node
// Benchmark: the guard's cost per write from Node. Each write is one
// transaction: `update items set v = v + 1 where id = 1`, alone ("alone"),
// with one more upsert into a table of the register's shape ("upsert"), or
// with guard.check(handle, "items/1", fence) ("guard"); then commit. The
// three take turns write by write, so that the load of a shared machine
// falls on each alike; prints the median µs of each kind's writes, each
// timed alone, after a warm-up of a quarter as many, and what the guard and
// the upsert add.
//   SQLite: better-sqlite3, a file in WAL mode, synchronous = normal, 20,000 writes of each.
//   PostgreSQL: pg at $TINYSTORE_PG_URL (tests/guards/with-postgres.sh), 5,000 writes of each.
// Run by `make bench-guards-node` (the release addon).
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'

const require = createRequire(import.meta.url)
const { guard } = require('tinystore')
const Database = require('better-sqlite3')
const pg = require('pg')

const FENCE = 7n
const SIDE = "insert into side (k, v) values ('r', ?) on conflict (k) do update set v = excluded.v"
const FENCE_TEXT = FENCE.toString().padStart(40, '0')

/** @param {number[]} xs */
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * The median µs per write of each kind, the kinds taking turns write by write.
 * @param {Record<string, () => unknown>} kinds a write of each kind (sync or async)
 * @param {number} writes of each kind
 */
async function measure(kinds, writes) {
  const entries = Object.entries(kinds)
  /** @type {number[][]} */
  const times = entries.map(() => [])
  for (let i = 0; i < writes / 4; i++) for (const [, write] of entries) await write() // warm up
  for (let i = 0; i < writes; i++) {
    for (let k = 0; k < entries.length; k++) {
      const start = process.hrtime.bigint()
      await entries[k][1]()
      times[k].push(Number(process.hrtime.bigint() - start) / 1e3)
    }
  }
  return Object.fromEntries(entries.map(([kind], k) => [kind, median(times[k])]))
}

async function sqlite() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tinystore-bench-guard-'))
  const db = new Database(path.join(dir, 'bench.db'))
  try {
    db.pragma('journal_mode = wal')
    db.pragma('synchronous = normal')
    db.exec(`create table items (id integer primary key, v integer not null);
      insert into items values (1, 0);
      create table side (k text primary key, v text not null);`)
    guard.ensure(db)
    const update = db.prepare('update items set v = v + 1 where id = 1')
    const side = db.prepare(SIDE)
    return await measure(
      {
        alone: db.transaction(() => update.run()),
        upsert: db.transaction(() => {
          update.run()
          side.run(FENCE_TEXT)
        }),
        guard: db.transaction(() => {
          update.run()
          guard.check(db, 'items/1', FENCE)
        }),
      },
      20_000,
    )
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgres(url) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`drop schema if exists node_bench_guard cascade; create schema node_bench_guard;
      set search_path to node_bench_guard;
      create table items (id integer primary key, v integer not null);
      insert into items values (1, 0);
      create table side (k text primary key, v text not null);`)
    await guard.ensure(client)
    /** @param {() => Promise<unknown>} body */
    const transaction = body => async () => {
      await client.query('BEGIN')
      await body()
      await client.query('COMMIT')
    }
    const update = () => client.query('update items set v = v + 1 where id = 1')
    return await measure(
      {
        alone: transaction(update),
        upsert: transaction(async () => {
          await update()
          await client.query(SIDE.replace('?', '$1'), [FENCE_TEXT])
        }),
        guard: transaction(async () => {
          await update()
          await guard.check(client, 'items/1', FENCE)
        }),
      },
      5000,
    )
  } finally {
    await client.end()
  }
}

/** @param {string} name @param {Record<string, number>} us */
function report(name, us) {
  const f = (/** @type {number} */ x) => x.toFixed(1)
  console.log(`${name}: alone ${f(us.alone)} µs, with one more upsert ${f(us.upsert)} µs, with the guard ${f(us.guard)} µs per write`)
  console.log(
    `${name}: the guard adds ${f(us.guard - us.alone)} µs (${(us.guard / us.alone).toFixed(2)}x the write alone); ` +
      `one more upsert adds ${f(us.upsert - us.alone)} µs (the guard is ${((us.guard - us.alone) / (us.upsert - us.alone)).toFixed(1)}x one more statement)`,
  )
}

report('SQLite (better-sqlite3, file, WAL)', await sqlite())
const url = process.env.TINYSTORE_PG_URL
if (url) report('PostgreSQL (pg)', await postgres(url))
else console.log('PostgreSQL: skipped (TINYSTORE_PG_URL is not set: run under tests/guards/with-postgres.sh)')
