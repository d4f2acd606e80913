// The seed's scene in one process: worker A holds the chat's key and pauses
// past its TTL; B holds it with a larger fence and saves; A wakes, saves too,
// and the database refuses A's write. The snippet runs as written.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { LeaseLostError, open } from 'tinystore'
import { gate, repo, tempDir } from './helpers'
import { chatsDb, summarizeChat } from './seed'

test('the snippet in seed.ts is the seed page\'s, as written', t => {
  const page = path.join(repo, '..', 'shared', 'seed', 'fences.md')
  if (!existsSync(page)) return t.skip('shared/seed/fences.md is not beside the repository')
  const seed = /\n```ts\n([\s\S]*?)\n```\n/.exec(readFileSync(page, 'utf8'))?.[1]
  const ours = /\/\/ -- the seed's snippet, as written \(seed\/fences.md\) --\n([\s\S]*?)\n\/\/ -- end of the seed's snippet --/.exec(
    readFileSync(path.join(__dirname, '..', 'test', 'seed.ts'), 'utf8'),
  )?.[1]
  assert.ok(seed && ours)
  assert.equal(ours, seed)
})

test('a late holder\'s write is refused by the fence', async () => {
  const dir = tempDir()
  const writes: { fence: string; changes: number }[] = []
  const { db, raw } = chatsDb(path.join(dir, 'chat.db'), writes)
  const store = await open(path.join(dir, 'store'))
  try {
    const summaries = store.locks('summaries', { ttl: 50, renew: false })
    const history = async (chatId: number) => [`message in chat ${chatId}`]
    const aPaused = gate()
    const aWakes = gate()
    const a = summarizeChat(summaries, 1, {
      async summarize() {
        aPaused.open()
        await aWakes.promise // a long garbage collection
        return 'summary by A'
      },
    }, history, db).then(() => 'saved', (err: unknown) => err)
    await aPaused.promise
    await summarizeChat(summaries, 1, { summarize: async () => 'summary by B' }, history, db)
    aWakes.open()
    const aOutcome = await a
    assert.ok(aOutcome instanceof LeaseLostError, 'A learns that its lease ran out')
    assert.equal(writes.length, 2)
    const [b, late] = writes
    assert.deepEqual([b.changes, late.changes], [1, 0], 'B saved; A\'s write changed nothing')
    assert.ok(late.fence < b.fence, 'A\'s fence is the smaller, as text')
    assert.ok(BigInt(late.fence) < BigInt(b.fence), 'and as numbers')
    const row = raw.prepare('select summary, summary_fence from chats where id = 1').get() as { summary: string; summary_fence: string }
    assert.deepEqual(row, { summary: 'summary by B', summary_fence: b.fence })
  } finally {
    raw.close()
    await store.close()
  }
})
