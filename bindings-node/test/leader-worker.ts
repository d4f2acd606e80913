// A leader in its own process: leads "jobs" with a short TTL through the
// server at argv[2], prints its term, waits for "go" on stdin (the test
// stops it with SIGSTOP meanwhile), and prints one JSON line with how its
// lead ended.
import { createInterface } from 'node:readline'
import { TinystoreError, connect } from 'tinystore'

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
  const store = await connect(process.argv[2])
  let outcome = 'ended'
  try {
    await store.election('jobs', { ttl: 500 }).lead('p1', async l => {
      process.stdout.write(`${l.fence}\n`)
      await lines.next()
      await new Promise(resolve => setTimeout(resolve, 5_000).unref())
    })
  } catch (err) {
    outcome = err instanceof TinystoreError ? err.code : String(err)
  }
  await store.close()
  process.stdout.write(`${JSON.stringify({ outcome })}\n`)
  process.exit(0)
}

main().catch(err => {
  process.stderr.write(`the leader failed: ${err}\n`)
  process.exit(1)
})
