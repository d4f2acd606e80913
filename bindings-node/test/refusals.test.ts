// Late writes refused by guards, told to the store: guard.check on a real
// better-sqlite3 file, given the lease itself, refuses a stale write and
// tells the lease's store, whose status (and a served store's metrics,
// scraped) count it per group; given only the fence it tells nobody; a
// server stopped (SIGSTOP) or gone never blocks nor fails the refusal.
import assert from 'node:assert/strict'
import { get } from 'node:http'
import path from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { type Lease, StaleError, type Store, connect, guard, open } from 'tinystore'
import { tempDir } from './helpers'
import { serve } from './server'

/** A lease overtaken by a newer one that wrote first: it now writes late. */
async function overtaken(store: Store, db: Database.Database, name = 'orders', key = '42'): Promise<Lease> {
  const locks = store.locks(name)
  const old = await locks.acquire(key)
  await old.release()
  const fresh = await locks.acquire(key)
  db.transaction(() => guard.check(db, `${name}/${key}`, fresh))()
  return old
}

function lateWrite(db: Database.Database, under: bigint | Lease, resource = 'orders/42'): void {
  assert.throws(() => db.transaction(() => guard.check(db, resource, under))(), StaleError)
}

async function counts(store: Store): Promise<[string, string, number][]> {
  return (await store.status()).lateWritesRefused.map(r => [r.name, r.kind, r.refused])
}

/** A served store counts a message that comes after the guard's answer. */
async function untilCounts(store: Store, want: [string, string, number][]): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (JSON.stringify(await counts(store)) === JSON.stringify(want)) return
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  assert.deepEqual(await counts(store), want)
}

async function refusalsAreCountedPerGroup(store: Store, db: Database.Database): Promise<void> {
  guard.ensure(db)
  assert.deepEqual(await counts(store), [])
  const old = await overtaken(store, db)
  lateWrite(db, old)
  await untilCounts(store, [['orders', 'lock', 1]])
  lateWrite(db, old.fence) // the fence alone: told to nobody
  const oldInvoice = await overtaken(store, db, 'invoices', '7')
  lateWrite(db, oldInvoice, 'invoices/7')
  await untilCounts(store, [
    ['invoices', 'lock', 1],
    ['orders', 'lock', 1],
  ])
}

test('an embedded store counts the late writes its leases report', async () => {
  const dir = tempDir('tinystore-refusals-')
  const store = await open(path.join(dir, 'store'))
  try {
    await refusalsAreCountedPerGroup(store, new Database(path.join(dir, 'app.db')))
  } finally {
    await store.close()
  }
})

function scrape(address: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`http://${address}/metrics`, reply => {
      let body = ''
      reply.on('data', chunk => (body += String(chunk)))
      reply.on('end', () => resolve(body))
    }).on('error', reject)
  })
}

function refusedTotal(text: string, name: string): number {
  const series = `tinystore_late_writes_refused_total{kind="lock",name="${name}"} `
  const line = text.split('\n').find(l => l.startsWith(series))
  return line === undefined ? 0 : Number(line.slice(series.length))
}

test('a served store counts late writes; a stopped or gone one never blocks them', async () => {
  const dir = tempDir('tinystore-refusals-')
  const server = await serve(path.join(dir, 'served'), undefined, ['--metrics', '127.0.0.1:0'])
  const store = await connect(`unix:${server.socket}`)
  try {
    const db = new Database(path.join(dir, 'app.db'))
    await refusalsAreCountedPerGroup(store, db)
    const metrics = /metrics on http:\/\/([^/\s]+)/.exec(server.said())?.[1]
    assert.ok(metrics, server.said())
    assert.equal(refusedTotal(await scrape(metrics), 'orders'), 1)
    assert.equal(refusedTotal(await scrape(metrics), 'invoices'), 1)

    const old = await overtaken(store, db, 'stopped', '1')
    server.process.kill('SIGSTOP')
    try {
      lateWrite(db, old, 'stopped/1') // synchronous: it returned, refused
    } finally {
      server.process.kill('SIGCONT')
    }
    await untilCounts(store, [
      ['invoices', 'lock', 1],
      ['orders', 'lock', 1],
      ['stopped', 'lock', 1],
    ])
    assert.equal(refusedTotal(await scrape(metrics), 'stopped'), 1)

    await server.stop()
    lateWrite(db, old, 'stopped/1') // the server is gone: still refused
  } finally {
    await store.close().catch(() => {})
    await server.stop()
  }
})
