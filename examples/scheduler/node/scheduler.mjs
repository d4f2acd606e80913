#!/usr/bin/env node
// scheduler in TypeScript (JavaScript checked by tsc): workers campaign in
// the election "scheduler"; only the leader runs the job, and it runs it
// with its term, so a leader that paused past its TTL cannot run it after
// its successor did. See ../README.md for the commands, which every
// language's program shares.

import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { TinystoreError, connect, open } from 'tinystore'
import { kept, openDb, runJob } from './jobs-db.mjs'

const COMMANDS = 'scene, run, lead-and-run'

class UsageError extends Error {}

/**
 * The command and the `--flag value` pairs.
 * @param {string[]} argv
 */
function parseArgs(argv) {
  let command = ''
  /** @type {Map<string, string>} */
  const flags = new Map()
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith('--')) {
      command = argv[i]
      continue
    }
    if (i + 1 >= argv.length) throw new UsageError(`${argv[i]} needs a value`)
    flags.set(argv[i].slice(2), argv[++i])
  }
  if (!command) throw new UsageError(`a command is required: ${COMMANDS}`)
  for (const needed of ['db', 'store']) {
    if (!flags.has(needed)) throw new UsageError(`--${needed} is required`)
  }
  /** @param {string} flag @param {number} def */
  const number = (flag, def) => {
    const value = flags.get(flag)
    if (value === undefined) return def
    if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} takes a whole number, not ${JSON.stringify(value)}`)
    return Number(value)
  }
  return { command, db: /** @type {string} */ (flags.get('db')), store: /** @type {string} */ (flags.get('store')), flags, number }
}

/**
 * A store directory is opened (or reached through its socket when served);
 * an address is connected to.
 * @param {string} target
 */
function openStore(target) {
  return /^(unix:|tcp:\/\/|etcd:\/\/)/.test(target) ? connect(target) : open(target)
}

/**
 * Leader A pauses past its TTL; B leads with a larger term and runs the
 * job; A wakes, runs it with its old term, and is refused.
 * @param {import('tinystore').Store} store
 * @param {string} dbPath
 * @param {number} ttl
 */
async function scene(store, dbPath, ttl) {
  const db = openDb(dbPath)
  const election = store.election('scheduler')
  const a = await election.campaign('worker-a', { ttl, renew: false })
  console.log(`1. Worker A leads with term ${a.fence} and pauses past its ttl of ${ttl}ms.`)
  const pause = sleep(2 * ttl)
  const [bTerm, bChanged] = await election.lead('worker-b', async b => [b.fence, runJob(db, b.value, b.fence)])
  await pause
  console.log(`2. A's leadership ran out. Worker B leads with term ${bTerm} and runs the job: ${bChanged} row changed.`)
  const aChanged = runJob(db, a.value, a.fence)
  console.log(`3. A wakes and runs the job with term ${a.fence}: ${aChanged === 0 ? 'refused, 0 rows changed' : 'ACCEPTED (the term failed)'}.`)
  let told = 'nothing'
  try {
    await a.resign()
  } catch (err) {
    if (!(err instanceof TinystoreError)) throw err
    told = err.code
  }
  console.log(`4. A learns it no longer leads: ${told}.`)
  console.log(`jobs.db keeps: ${kept(db)}`)
  return aChanged === 0 && bChanged === 1 && told === 'lease_lost'
}

/**
 * `workers` campaign in turn; each leader runs the job `ticks` times in its
 * term, then resigns, until `terms` leaders have led: the last one gives
 * up the campaigns still waiting (they never lead) before it resigns. An
 * observer prints each change of leader.
 * @param {import('tinystore').Store} store
 * @param {string} dbPath
 * @param {number} workers
 * @param {number} terms
 * @param {number} ticks
 */
async function run(store, dbPath, workers, terms, ticks) {
  const db = openDb(dbPath)
  const election = store.election('scheduler')
  const observer = election.observe()
  const watching = (async () => {
    for await (const leader of observer) console.log(leader ? `LEADER ${leader.value} ${leader.fence}` : 'LEADER -')
  })()
  const campaigns = new AbortController()
  /** @type {number[]} */
  const ran = []
  /** @type {Promise<void>[]} */
  const workersDone = []
  /** @param {number} w */
  const worker = async w => {
    while (!campaigns.signal.aborted) {
      await election.lead(`worker-${w}`, async l => {
        for (let i = 0; i < ticks; i++) {
          const changed = runJob(db, l.value, l.fence)
          ran.push(changed)
          console.log(`RAN ${l.value} ${l.fence} ${changed}`)
          if (ran.length >= terms * ticks) {
            // Before resigning: the campaigns waiting are given up, and
            // never lead.
            campaigns.abort()
            await Promise.allSettled(workersDone.filter((_, i) => i !== w - 1))
            return
          }
          await sleep(10)
        }
      }, { signal: campaigns.signal })
    }
  }
  for (let w = 1; w <= workers; w++) {
    workersDone.push(worker(w).catch(err => {
      if (!campaigns.signal.aborted) throw err
    }))
  }
  await Promise.all(workersDone)
  await sleep(50)
  observer.close()
  await watching
  console.log(`jobs.db keeps: ${kept(db)}`)
  return ran.length === terms * ticks && ran.every(c => c === 1)
}

/**
 * For tests across processes: leads, prints `LEADING <term>`, waits for a
 * line on stdin, runs the job (whether or not it still leads: the term is
 * what refuses a late run), prints `RAN <rows changed> <term>`, then
 * resigns and prints `RESIGNED ok` or `RESIGNED <error code>`.
 * @param {import('tinystore').Store} store
 * @param {string} dbPath
 * @param {string} value
 * @param {number} ttl
 */
async function leadAndRun(store, dbPath, value, ttl) {
  const db = openDb(dbPath)
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
  let ran = false
  try {
    await store.election('scheduler', { ttl }).lead(value, async l => {
      console.log(`LEADING ${l.fence}`)
      await lines.next()
      console.log(`RAN ${runJob(db, value, l.fence)} ${l.fence}`)
      ran = true
    })
    console.log('RESIGNED ok')
  } catch (err) {
    if (!ran || !(err instanceof TinystoreError)) throw err
    console.log(`RESIGNED ${err.code}`)
  }
}

/** @param {string[]} argv */
async function main(argv) {
  const args = parseArgs(argv)
  openDb(args.db).close()
  const store = await openStore(args.store)
  try {
    switch (args.command) {
      case 'scene':
        return await scene(store, args.db, args.number('ttl-ms', 300))
      case 'run':
        return await run(store, args.db, args.number('workers', 3), args.number('terms', 5), args.number('ticks', 2))
      case 'lead-and-run':
        await leadAndRun(store, args.db, args.flags.get('value') ?? 'node', args.number('ttl-ms', 15_000))
        return true
      default:
        throw new UsageError(`unknown command ${JSON.stringify(args.command)}: ${COMMANDS}`)
    }
  } finally {
    await store.close()
  }
}

main(process.argv.slice(2)).then(
  ok => process.exit(ok ? 0 : 1),
  err => {
    console.error(`scheduler: ${err instanceof Error ? err.message : err}`)
    process.exit(2)
  },
)
