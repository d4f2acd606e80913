#!/usr/bin/env node
// The fenced-service example's TypeScript/Node worker (../README.md): holds
// key N of the lock group "summaries" (renew on), then posts its summary to
// the service with its lease's fence in the Tinystore-Fence header, through
// the package's fetch helper (http.fetch).
//
//   node worker.mjs --store ADDRESS --service URL --chat N --ttl-ms T
//
// Prints `HELD <fence>`; waits for a line on stdin; POSTs "summary by node"
// to URL/chats/N/summary and prints `POSTED <status> <fence>`; releases and
// prints `RELEASED ok` (or `RELEASED <code>`, lease_lost when the lease ran
// out meanwhile); exits 0. The package is loaded from bindings-node, as its
// tests load it.
import { createRequire } from 'node:module'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'

const require = createRequire(new URL('../../../bindings-node/package.json', import.meta.url))
/** @type {typeof import('../../../bindings-node')} */
const { connect, http, TinystoreError } = require('tinystore')

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    service: { type: 'string' },
    chat: { type: 'string' },
    'ttl-ms': { type: 'string' },
  },
})
for (const key of ['store', 'service', 'chat', 'ttl-ms']) {
  if (values[key] === undefined) {
    process.stderr.write(`usage: worker.mjs --store ADDRESS --service URL --chat N --ttl-ms T (missing --${key})\n`)
    process.exit(2)
  }
}
const chat = String(values.chat)

/** One line on stdout; a pipe's writes are synchronous on Linux, so it is out at once. */
function say(line) {
  process.stdout.write(`${line}\n`)
}

async function main() {
  const store = await connect(String(values.store))
  const locks = store.locks('summaries', { ttl: Number(values['ttl-ms']), renew: true })
  const lease = await locks.acquire(chat)
  say(`HELD ${lease.fence}`)
  const lines = createInterface({ input: process.stdin })
  await once(lines, 'line')
  lines.close()
  const answer = await http.fetch(`${values.service}/chats/${chat}/summary`, lease.fence, {
    method: 'POST',
    body: 'summary by node',
  })
  await answer.arrayBuffer()
  say(`POSTED ${answer.status} ${lease.fence}`)
  try {
    await lease.release()
    say('RELEASED ok')
  } catch (err) {
    if (!(err instanceof TinystoreError)) throw err
    say(`RELEASED ${err.code}`)
  }
  await store.close()
  process.exit(0)
}

main().catch(err => {
  process.stderr.write(`worker.mjs failed: ${err?.stack ?? err}\n`)
  process.exit(1)
})
