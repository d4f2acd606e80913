#!/usr/bin/env node
// Benchmark: what the guard costs per write on MySQL or MariaDB from Node,
// on one mysql2 promise connection to the server at $TINYSTORE_MYSQL_URL
// (tests/guards/with-mariadb.sh): a write transaction alone (one UPDATE),
// the same with one more statement (an upsert into a side table), and the
// same with guard.check(conn, "items/1", fence), each fence larger than
// the last (the usual case: the guard's one upsert). The UPDATE is a text
// query; the side upsert is prepared (`execute`), as the guard's own
// statements are. The three take turns sample by sample (a sample is
// WRITES writes of one kind, timed together), after one sample of each as
// warm-up, so that a noisy machine weighs on each alike; prints the median
// µs per write of each and the ratio to the write alone, as
// core/benches/guard_mysql.rs, bindings-python/bench/guard_mysql.py and
// tests/guards/go/bench-mysql do (7 samples of 1,000 writes).
// Run by `make bench-guards-mysql-node`; SAMPLES and WRITES set the counts.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { guard } = require('tinystore')
const mysql = require('mysql2/promise')

const url = process.env.TINYSTORE_MYSQL_URL
if (!url) throw new Error('TINYSTORE_MYSQL_URL is unset: run under tests/guards/with-mariadb.sh (make bench-guards-mysql-node)')
const SAMPLES = Number(process.env.SAMPLES ?? 7)
const WRITES = Number(process.env.WRITES ?? 1000)
const SIDE = "insert into side (k, v) values ('r', ?) on duplicate key update v = if(v <= ?, ?, v)"
const KINDS = ['the write alone', 'the write and one more upsert', 'the write and the guard']

// A client's version, from its package.json (not every package exports that file).
const version = (/** @type {string} */ name) =>
  JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version

/** @param {number[]} xs */
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function main() {
  const conn = await mysql.createConnection({ uri: url })
  for (const statement of [
    'drop table if exists items, side, tinystore_fences',
    'create table items (id integer primary key, v integer not null) engine=InnoDB',
    'insert into items values (1, 0)',
    'create table side (k varchar(64) primary key, v varchar(64) not null) engine=InnoDB',
  ]) {
    await conn.query(statement)
  }
  await guard.ensure(conn)
  const [rows] = await conn.query('select version() as server')
  const { server } = /** @type {{ server: string }[]} */ (rows)[0]
  let fence = 0n
  /** @param {number} kind */
  const write = async kind => {
    fence++
    await conn.beginTransaction()
    await conn.query('update items set v = v + 1 where id = 1')
    if (kind === 1) {
      const text = fence.toString()
      await conn.execute(SIDE, [text, text, text])
    } else if (kind === 2) {
      await guard.check(conn, 'items/1', fence)
    }
    await conn.commit()
  }
  /** @type {number[][]} */
  const took = KINDS.map(() => [])
  for (let round = 0; round <= SAMPLES; round++) {
    for (let kind = 0; kind < KINDS.length; kind++) {
      const start = process.hrtime.bigint()
      for (let i = 0; i < WRITES; i++) await write(kind)
      // The first round warms up, unmeasured.
      if (round > 0) took[kind].push(Number(process.hrtime.bigint() - start) / 1e3 / WRITES)
    }
  }
  await conn.end()
  const m = took.map(median)
  const client = `mysql2 ${version('mysql2')}`
  console.log(`${client} on ${server}, one connection, ${WRITES} writes per sample, median of ${SAMPLES}, the kinds in turn`)
  console.log('| each write | µs per write | over the write alone |')
  console.log('| --- | ---: | ---: |')
  KINDS.forEach((what, k) => console.log(`| ${what} | ${m[k].toFixed(1)} | ${(m[k] / m[0]).toFixed(2)}x |`))
}

main().catch(err => {
  console.error(err)
  process.exit(1)
})
