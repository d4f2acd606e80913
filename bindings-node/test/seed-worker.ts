// Worker A of the seed's scene, as its own process: connects to the served
// store, runs the seed's snippet, and pauses inside it until told "go" on
// stdin (the test stops this process with SIGSTOP meanwhile). Prints
// "holding", then one JSON line with what happened.
import { createInterface } from 'node:readline'
import { open } from 'tinystore'
import { chatsDb, summarizeChat } from './seed'

async function main(): Promise<void> {
  const [storeDir, dbFile, ttl] = process.argv.slice(2)
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
  const writes: { fence: string; changes: number }[] = []
  const { db, raw } = chatsDb(dbFile, writes)
  const store = await open(storeDir)
  const summaries = store.locks('summaries', { ttl: Number(ttl) })
  const history = async (chatId: number) => [`message in chat ${chatId}`]
  let outcome = 'saved'
  try {
    await summarizeChat(summaries, 1, {
      async summarize() {
        process.stdout.write('holding\n')
        await lines.next() // "go": the long pause is over
        return 'summary by A'
      },
    }, history, db)
  } catch (err) {
    outcome = err instanceof Error ? err.name : String(err)
  }
  raw.close()
  await store.close()
  process.stdout.write(`${JSON.stringify({ outcome, writes })}\n`)
  process.exit(0)
}

main().catch(err => {
  process.stderr.write(`worker A failed: ${err}\n`)
  process.exit(1)
})
