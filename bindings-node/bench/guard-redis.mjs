#!/usr/bin/env node
// Benchmark: what guard.redis costs per write from Node, through both
// clients it takes, ioredis and node-redis (`redis`), each one client on
// the redis-server at $TINYSTORE_REDIS_URL (tests/guards/with-redis.sh): a
// plain SET against guard.redis.set (one EVALSHA of the guard's script:
// the check, the write, the record) and against guard.redis.script with
// the same SET as a body of yours behind the check, of the same small
// value ("summary N"), each write a new fence. The three take turns
// sample by sample (a sample is WRITES writes of one kind, timed
// together), after one sample of each as warm-up (the scripts are
// loaded), so that a noisy machine weighs on each alike; prints the median
// µs per write of each and the ratios, as core/benches/guard_redis.rs,
// bindings-python/bench/guard_redis.py and tests/guards/go/bench-redis do
// (9 samples of 2,000 writes).
// Run by `make bench-guards-redis-node`; SAMPLES and WRITES set the counts.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { guard } = require('tinystore')
const { Redis } = require('ioredis')
const { createClient } = require('redis')

const url = process.env.TINYSTORE_REDIS_URL
if (!url) throw new Error('TINYSTORE_REDIS_URL is unset: run under tests/guards/with-redis.sh (make bench-guards-redis-node)')
const SAMPLES = Number(process.env.SAMPLES ?? 9)
const WRITES = Number(process.env.WRITES ?? 2000)
const BODY = "return redis.call('SET', KEYS[1], ARGV[1])"
// Each write's fence and value, larger than the last across both clients
// (the fences stay recorded on the server).
let n = 0n

// A client's version, from its package.json (not every package exports that file).
const version = (/** @type {string} */ name) =>
  JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version

/** @param {number[]} xs */
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * The median µs per write of each kind, the kinds in turn sample by sample.
 * @param {{ set(key: string, value: string): Promise<unknown> }} plain the client's own SET
 * @param {import('tinystore').GuardRedisClient} client the same client, for the guard
 * @returns {Promise<number[]>} plain, guarded, script
 */
async function measure(plain, client) {
  /** @type {((value: string, fence: bigint) => Promise<unknown>)[]} */
  const kinds = [
    value => plain.set('bench:plain', value),
    (value, fence) => guard.redis.set(client, 'bench:guarded', value, fence),
    (value, fence) => guard.redis.script(client, 'bench:script', BODY, fence, { args: [value] }),
  ]
  /** @type {number[][]} */
  const took = kinds.map(() => [])
  for (let round = 0; round <= SAMPLES; round++) {
    for (let k = 0; k < kinds.length; k++) {
      const start = process.hrtime.bigint()
      for (let i = 0; i < WRITES; i++) {
        n++
        await kinds[k](`summary ${n}`, n)
      }
      // The first round warms up, unmeasured.
      if (round > 0) took[k].push(Number(process.hrtime.bigint() - start) / 1e3 / WRITES)
    }
  }
  return took.map(median)
}

async function main() {
    const io = new Redis(url ?? '')
  await io.del('bench:plain', 'bench:guarded', 'bench:script')
  const info = /** @type {string} */ (await io.info('server'))
  const server = /redis_version:(\S+)/.exec(info)?.[1] ?? '(unknown)'
  const rows = [['ioredis ' + version('ioredis'), await measure(io, io)]]
  io.disconnect()
  const nr = await createClient({ url }).connect()
  await nr.del(['bench:plain', 'bench:guarded', 'bench:script'])
  rows.push(['node-redis ' + version('redis'), await measure(nr, nr)])
  await nr.quit()
  console.log(`redis-server ${server}, one client each, median of ${SAMPLES} samples of ${WRITES} writes, the kinds in turn`)
  console.log('| client | plain `SET`, µs | `guard.redis.set` | `guard.redis.script` (a `SET` in your body) |')
  console.log('| --- | ---: | ---: | ---: |')
  for (const [client, m] of rows) {
    const [p, g, s] = /** @type {number[]} */ (m)
    console.log(`| ${client} | ${p.toFixed(1)} | ${g.toFixed(1)} (${(g / p).toFixed(2)}x) | ${s.toFixed(1)} (${(s / p).toFixed(2)}x) |`)
  }
}

main().catch(err => {
  console.error(err)
  process.exit(1)
})
