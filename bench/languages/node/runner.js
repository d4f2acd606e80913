#!/usr/bin/env node
// The Node rows of `make bench-languages` (bench/languages/run.py).
//
// Usage: node runner.js SOCKET REDIS_URL SECONDS
//
// tinystore through `tinystore serve` (`await locks.hold(key, fn)`) beside
// node-redlock 5 on ioredis 5 (`redlock.acquire([key], ttl)` then
// `lock.release()`), each at 1 and 64 concurrent promises on 1,000 random
// keys for SECONDS. One client per process, shared by its callers, as a
// program would: one `connect`ed store; one ioredis connection. Prints one
// JSON line per row.
'use strict'
const Redis = require('ioredis')
const Redlock = require('redlock').default
const { connect } = require('tinystore')

const HOLDERS = [1, 64]
const KEYS = 1000
const TTL_MS = 15000

/** A small seeded generator (xorshift32), one per caller. */
function rng(seed) {
  let x = (seed + 1) * 0x9e3779b1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % KEYS
  }
}

/** Runs `holders` concurrent loops of `pair(key)` for `secs`; every pair's latency in µs. */
async function drive(pair, holders, secs) {
  const lat = []
  const start = process.hrtime.bigint()
  const deadline = start + BigInt(Math.round(secs * 1e9))
  async function holder(i) {
    const next = rng(i)
    for (;;) {
      const t0 = process.hrtime.bigint()
      if (t0 >= deadline) return
      await pair(`k${next()}`)
      lat.push(Number(process.hrtime.bigint() - t0) / 1000)
    }
  }
  await Promise.all(Array.from({ length: holders }, (_, i) => holder(i)))
  return { lat, secs: Number(process.hrtime.bigint() - start) / 1e9 }
}

function row(system, lock, holders, { lat, secs }) {
  lat.sort((a, b) => a - b)
  const at = p => (lat.length ? lat[Math.round((lat.length - 1) * p)] : 0)
  const line = {
    language: 'Node',
    variant: 'promises',
    system,
    lock,
    holders,
    pairs: lat.length,
    pairs_per_sec: lat.length / secs,
    p50_us: at(0.5),
    p99_us: at(0.99),
  }
  console.log(JSON.stringify(line))
}

async function main() {
  const [socket, url, secsText] = process.argv.slice(2)
  if (!socket || !url || !secsText) {
    console.error('usage: node runner.js SOCKET REDIS_URL SECONDS')
    process.exit(2)
  }
  const secs = Number(secsText)
  const store = await connect(socket)
  const locks = store.locks('bench', { ttl: TTL_MS })
  const redis = new Redis(url)
  // A waiting acquire retries every 1 ms, as the other languages' Redis
  // locks here (redlock's default is 200 ms); no automatic extension.
  const redlock = new Redlock([redis], { retryCount: -1, retryDelay: 1, retryJitter: 0 })

  const tsPair = key => locks.hold(key, () => null)
  const redisPair = async key => {
    const lock = await redlock.acquire([key], TTL_MS)
    await lock.release()
  }
  const only = process.env.BENCH_ONLY // for profiling one row: "tinystore:64"
  for (const holders of HOLDERS) {
    for (const [system, lock, pair] of [
      ['tinystore', 'await locks.hold(key, fn)', tsPair],
      ['redis', 'node-redlock 5 on ioredis 5', redisPair],
    ]) {
      if (only && only !== `${system}:${holders}`) continue
      row(system, lock, holders, await drive(pair, holders, secs))
    }
  }
  redis.disconnect()
  await store.close()
}

main().catch(err => {
  console.error(err)
  process.exit(1)
})
