#!/usr/bin/env node
// chat-summaries in TypeScript on Node (JavaScript checked with JSDoc types):
// summary workers that hold `summaries` for a chat and save with the fenced
// conditional update, or (scene and hold-and-save with --save guard) with
// the update and tinystore's guard in one transaction. See ../README.md for
// the commands, which every language's program shares.

import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { connect, fenceText, open, parseFence, StaleError, TinystoreError } from 'tinystore'
import { history, isPostgres, openChats, openDb, save, seed } from './chat-db.mjs'
import { run as torture } from './torture.mjs'

const COMMANDS = 'migrate, work, scene, hold-and-save, torture, fences'

class UsageError extends Error {}

/** @param {bigint} fence the 40-digit text, as docs/fences.md writes it */
const text = fence => fence.toString().padStart(40, '0')

/** @param {string[]} argv */
function parseArgs(argv) {
  const args = { db: '', store: '', command: '', /** @type {Map<string, string>} */ flags: new Map() }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg.startsWith('--')) {
      const value = argv[++i]
      if (value === undefined) throw new UsageError(`${arg} needs a value`)
      if (arg === '--db') args.db = value
      else if (arg === '--store') args.store = value
      else args.flags.set(arg.slice(2), value)
    } else {
      args.command = arg
    }
  }
  if (!args.command) throw new UsageError(`a command is required: ${COMMANDS}`)
  return {
    ...args,
    /** @param {string} flag @param {number} fallback */
    number(flag, fallback) {
      const value = args.flags.get(flag)
      if (value === undefined) return fallback
      if (!/^-?\d+$/.test(value)) throw new UsageError(`--${flag} takes a whole number, not ${JSON.stringify(value)}`)
      return Number(value)
    },
  }
}

/** @typedef {ReturnType<typeof parseArgs>} Args */
/** @typedef {import('./chat-db.mjs').Chats} Chats */

/**
 * Whether --save is guard (the update and the guard's check in one
 * transaction) rather than column (the default: the fenced update of
 * docs/fences.md).
 * @param {Args} args
 */
function guarded(args) {
  const save = args.flags.get('save') ?? 'column'
  if (save !== 'column' && save !== 'guard') throw new UsageError(`--save takes column or guard, not ${JSON.stringify(save)}`)
  return save === 'guard'
}
/** @typedef {import('tinystore').Store} Store */

/**
 * A store directory is opened (or reached through its socket when served);
 * an address is connected to.
 * @param {string} target
 */
function openStore(target) {
  return ['unix:', 'tcp://', 'tls://', 'etcd://'].some(p => target.startsWith(p)) ? connect(target) : open(target)
}

/** @param {string[]} messages @param {string} by */
const summarize = (messages, by) => `${messages.length} messages, summarized by ${by}`

/** @param {Args} args @param {Store} store */
async function work(args, store) {
  const chats = args.number('chats', 5)
  const workers = args.number('workers', 3)
  const rounds = args.number('rounds', 2)
  seed(openDb(args.db), chats)
  const summaries = store.locks('summaries')
  /** @param {number} w */
  const worker = async w => {
    const db = openDb(args.db)
    for (let round = 0; round < rounds; round++) {
      for (let chat = 1; chat <= chats; chat++) {
        await summaries.hold(chat, async lease => {
          const summary = summarize(history(db, chat), `worker ${w}`)
          const changed = save(db, chat, summary, text(lease.fence))
          console.log(`worker ${w} round ${round} chat ${chat}: fence ${lease.fence} saved ${changed}`)
        })
      }
    }
  }
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)))
}

/** @param {Args} args @param {Store} store */
async function scene(args, store) {
  const guard = guarded(args)
  const db = await openChats(args.db)
  const dbB = await openChats(args.db)
  try {
    await db.addChat(42, 'chat 42')
    const ttl = args.number('ttl-ms', 300)
    const summaries = store.locks('summaries')
    const a = await summaries.acquire(42, { ttl, renew: false })
    console.log(`1. Worker A holds chat 42 with fence ${a.fence} and pauses past its ttl of ${ttl}ms.`)
    const workerB = summaries.hold(42, async lease => ({
      fence: lease.fence,
      changed: guard
        ? await dbB.saveGuarded(42, 'summary by B', lease.fence)
        : await dbB.save(42, 'summary by B', text(lease.fence)),
    }))
    const [b] = await Promise.all([workerB, sleep(2 * ttl)])
    console.log(`2. A's lease ran out. Worker B holds chat 42 with fence ${b.fence} and saves: ${b.changed} row changed.`)
    if (guard) return (await sceneGuarded(db, a.fence, b.fence)) && b.changed === 1
    const aChanged = await db.save(42, 'summary by A', text(a.fence))
    const outcome = aChanged === 0 ? 'refused, 0 rows changed' : 'ACCEPTED (the fence failed)'
    console.log(`3. A wakes and saves with fence ${a.fence}: ${outcome}.`)
    const { summary, fence } = await db.kept(42)
    console.log(`chat.db keeps: ${JSON.stringify(summary)} with fence ${fence}`)
    return aChanged === 0 && b.changed === 1
  } finally {
    await Promise.all([db.close(), dbB.close()])
  }
}

/**
 * Step 3 of the scene with --save guard: A's late save, the update and the
 * guard's check in one transaction, is refused with stale and rolled back.
 * @param {Chats} db
 * @param {bigint} fenceA
 * @param {bigint} fenceB
 * @returns {Promise<boolean>} whether A was refused and the register keeps B's fence
 */
async function sceneGuarded(db, fenceA, fenceB) {
  let refused = false
  try {
    await db.saveGuarded(42, 'summary by A', fenceA)
    console.log(`3. A wakes and saves with fence ${fenceA}: ACCEPTED (the guard failed).`)
  } catch (err) {
    if (!(err instanceof StaleError)) throw err
    refused = true
    console.log(
      `3. A wakes and saves with fence ${fenceA}: the guard refused it with stale: fence ${err.fence} is below fence ${err.largest}, recorded for ${err.resource}; A's update rolled back with it.`,
    )
  }
  const largest = await db.recorded(42)
  const { summary } = await db.kept(42)
  console.log(`tinystore_fences keeps the largest fence that wrote chats/42: ${largest}`)
  console.log(`chat.db keeps: ${JSON.stringify(summary)}`)
  return refused && largest === text(fenceB)
}

/** One line from stdin (empty at its end). */
async function readLine() {
  const lines = createInterface({ input: process.stdin })
  try {
    const next = await lines[Symbol.asyncIterator]().next()
    return next.done ? '' : next.value
  } finally {
    lines.close()
  }
}

/** @param {Args} args @param {Store} store */
async function holdAndSave(args, store) {
  const chat = args.number('chat', 42)
  const guard = guarded(args)
  const db = await openChats(args.db)
  await db.addChat(chat, 'chat')
  const ttl = args.number('ttl-ms', 15_000)
  let saved = false
  try {
    await store.locks(args.flags.get('name') ?? 'summaries').hold(
      chat,
      async lease => {
        console.log(`HELD ${lease.fence}`)
        await readLine()
        // Saved whether or not the lease is still held: the fence is what
        // refuses a late write.
        const changed = guard
          ? await db.saveGuarded(chat, 'summary by node', lease.fence).catch(err => {
              if (err instanceof StaleError) return 0 // refused as stale
              throw err
            })
          : await db.save(chat, 'summary by node', text(lease.fence))
        console.log(`SAVED ${changed} ${lease.fence}`)
        saved = true
      },
      { ttl },
    )
    console.log('RELEASED ok')
  } catch (err) {
    if (!saved || !(err instanceof TinystoreError)) throw err
    console.log(`RELEASED ${err.code}`)
  } finally {
    await db.close()
  }
}

/**
 * The fence vectors through this language's API; see ../README.md.
 * @param {Args} args
 */
function fences(args) {
  const path = args.flags.get('vectors')
  if (path === undefined) throw new UsageError('--vectors FILE is required')
  /** @type {{cases: {value: string}[], ordered: [string, string][], invalid: string[]}} */
  const vectors = JSON.parse(readFileSync(path, 'utf8'))
  const low64 = (1n << 64n) - 1n
  for (const { value } of vectors.cases) {
    const fence = parseFence(value)
    console.log(`CASE ${fence} ${fenceText(fence)} ${fence >> 64n} ${fence & low64}`)
  }
  for (const [aText, bText] of vectors.ordered) {
    const a = parseFence(aText)
    const b = parseFence(bText)
    console.log(`ORDERED ${a} ${b} ${a < b} ${fenceText(a) < fenceText(b)}`)
  }
  for (const bad of vectors.invalid) {
    let code
    try {
      code = `ACCEPTED:${parseFence(bad)}`
    } catch (err) {
      if (!(err instanceof TinystoreError)) throw err
      code = err.code
    }
    console.log(`INVALID ${JSON.stringify(bad)} ${code}`)
  }
}

/** @param {string[]} argv @returns {Promise<boolean>} */
async function run(argv) {
  const args = parseArgs(argv)
  if (args.command === 'fences') {
    fences(args)
    return true
  }
  if (!args.db || !args.store) throw new UsageError('--db PATH|postgresql://URL and --store DIR|ADDRESS are required')
  if (isPostgres(args.db) && (args.command === 'work' || args.command === 'torture')) {
    throw new UsageError(`${args.command} takes a SQLite file as --db; scene and hold-and-save also take a postgresql:// URL`)
  }
  await (await openChats(args.db)).close()
  if (args.command === 'migrate') {
    console.log(`migrated ${args.db}`)
    return true
  }
  const store = await openStore(args.store)
  try {
    switch (args.command) {
      case 'work':
        await work(args, store)
        return true
      case 'scene':
        return await scene(args, store)
      case 'hold-and-save':
        await holdAndSave(args, store)
        return true
      case 'torture': {
        const t = await torture(
          store,
          args.db,
          args.flags.get('worker') ?? 'node',
          args.number('chats', 4),
          args.number('seconds', 10),
          args.number('ttl-ms', 300),
          args.number('pause-ms', 20),
          args.flags.get('ways') === 'all',
        )
        console.log(`DONE saves=${t.saves} lost=${t.lost} errors=${t.errors} ways=${t.ways}`)
        return true
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(args.command)}: ${COMMANDS}`)
    }
  } finally {
    await store.close()
  }
}

run(process.argv.slice(2)).then(
  ok => {
    process.exitCode = ok ? 0 : 1
  },
  err => {
    console.error(`chat-summaries: ${err instanceof Error ? err.message : err}`)
    process.exitCode = 2
  },
)
