#!/usr/bin/env node
// Benchmark: `hold` round trips per second from Node, one after another
// (acquire, an empty body, release), embedded and through a server this
// script starts. Prints the median of 9 runs of 1 s each, and the ratio.
// Build first: `make bench-node` (release addon and release tinystore).
'use strict'
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { mkdtempSync, rmSync } = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { open, connect } = require('..')

const RUNS = 9
const SECONDS = 1

/** Round trips per second of `hold` on one key, for about SECONDS. */
async function rate(locks) {
  let n = 0
  const start = process.hrtime.bigint()
  const end = start + BigInt(SECONDS * 1e9)
  let now = start
  while (now < end) {
    for (let i = 0; i < 100; i++) await locks.hold('bench', () => null)
    n += 100
    now = process.hrtime.bigint()
  }
  return n / (Number(now - start) / 1e9)
}

async function median(locks) {
  await rate(locks) // warm up
  const rates = []
  for (let i = 0; i < RUNS; i++) rates.push(await rate(locks))
  rates.sort((a, b) => a - b)
  return rates[Math.floor(RUNS / 2)]
}

async function serve(dir) {
  const bin = process.env.TINYSTORE_BIN ?? path.join(__dirname, '..', '..', 'target', 'release', 'tinystore')
  const child = spawn(bin, ['serve', dir], { stdio: ['ignore', 'ignore', 'pipe'] })
  let said = ''
  for await (const chunk of child.stderr) {
    said += chunk
    if (/serving[^\n]*\n/.test(said)) break
  }
  return child
}

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tinystore-bench-'))
  try {
    const embedded = await open(path.join(tmp, 'embedded'))
    const inProcess = await median(embedded.locks('bench'))
    await embedded.close()

    const server = await serve(path.join(tmp, 'served'))
    const client = await connect(path.join(tmp, 'served', 'tinystore.sock'))
    const remote = await median(client.locks('bench'))
    await client.close()
    server.kill('SIGTERM')
    await once(server, 'exit')

    const fmt = x => Math.round(x).toLocaleString('en-US')
    console.log(`node ${process.version}, ${os.cpus().length} cores, median of ${RUNS} runs of ${SECONDS} s`)
    console.log(`hold round trips/s, embedded:            ${fmt(inProcess)}`)
    console.log(`hold round trips/s, through unix socket: ${fmt(remote)}`)
    console.log(`embedded / server: ${(inProcess / remote).toFixed(1)}x`)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

module.exports = { median }

if (require.main === module) {
  main().catch(err => {
    console.error(err)
    process.exit(1)
  })
}
