#!/usr/bin/env node
// Benchmark: `hold` pairs (acquire, an empty body, release) through a
// running `tinystore serve`, from HOLDERS concurrent promises on 1,000
// random keys for SECS, with the context switches of all the process's
// threads and the JS thread's CPU time over that window, per pair (Linux:
// read from /proc). Run it under `perf stat -e raw_syscalls:sys_enter` for
// system calls. Prints one JSON line.
//
// Usage: node bench/pairs.js PACKAGE_DIR SOCKET HOLDERS SECS
'use strict'
const fs = require('node:fs')
const [pkg, sock, holdersText, secsText] = process.argv.slice(2)
const { connect } = require(pkg)
function switches() {
  let n = 0
  for (const t of fs.readdirSync('/proc/self/task')) {
    const s = fs.readFileSync(`/proc/self/task/${t}/status`, 'utf8')
    for (const m of s.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) n += Number(m[1])
  }
  return n
}
function jsCpuTicks() {
  const f = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return Number(f[11]) + Number(f[12])
}
async function main() {
  const store = await connect(sock)
  const locks = store.locks('bench', { ttl: 15000 })
  const holders = Number(holdersText), secs = Number(secsText)
  for (let i = 0; i < 200; i++) await locks.hold(`k${i}`, () => null)
  const cs0 = switches(), t0 = jsCpuTicks(), start = process.hrtime.bigint()
  const deadline = start + BigInt(Math.round(secs * 1e9))
  let pairs = 0
  async function holder(i) {
    let x = (i + 1) * 0x9e3779b1
    while (process.hrtime.bigint() < deadline) {
      x ^= x << 13; x ^= x >>> 17; x ^= x << 5
      await locks.hold(`k${(x >>> 0) % 1000}`, () => null)
      pairs++
    }
  }
  await Promise.all(Array.from({ length: holders }, (_, i) => holder(i)))
  const el = Number(process.hrtime.bigint() - start) / 1e9
  const cs = switches() - cs0, ticks = jsCpuTicks() - t0
  console.log(JSON.stringify({ holders, pairs, pairs_per_sec: Math.round(pairs / el), cs_per_pair: +(cs / pairs).toFixed(2), js_thread_us_per_pair: +((ticks * 1e4) / pairs).toFixed(1), load: require('node:os').loadavg()[0] }))
  await store.close()
}
main().catch(e => { console.error(e); process.exit(1) })
