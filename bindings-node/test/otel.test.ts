// OpenTelemetry's spans and counter (lib/otel.js), read back from the
// SDK's in-memory span exporter and a metric reader collected by hand, on
// test stores (embedded and served) and a real better-sqlite3 file; and
// tinystore in a child process that cannot resolve @opentelemetry/api, or
// has it with no provider registered.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { SpanStatusCode, metrics, trace } from '@opentelemetry/api'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import Database from 'better-sqlite3'
import { type Lease, StaleError, WaitTimeoutError, guard } from 'tinystore'
import { TestStore } from 'tinystore/testing'
import { tempDir } from './helpers'

const run = promisify(execFile)

/** A reader that exports nothing: the test collects from it. */
class Reader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const exporter = new InMemorySpanExporter()
const reader = new Reader()
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))

function spans(name: string, key?: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter(s => s.name === name && (key === undefined || s.attributes['tinystore.key'] === key))
}

function fenceText(fence: bigint): string {
  return fence.toString().padStart(40, '0')
}

async function refused(): Promise<number> {
  const { resourceMetrics } = await reader.collect()
  let total = 0
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== 'tinystore.guard.refused') continue
      assert.equal(metric.descriptor.unit, '{write}')
      for (const point of metric.dataPoints) {
        assert.deepEqual(point.attributes, { 'tinystore.backend': 'sqlite' })
        total += Number(point.value)
      }
    }
  }
  return total
}

for (const served of [false, true]) {
  const made = () => (served ? TestStore.served() : TestStore.open())
  const where = served ? 'served' : 'embedded'

  test(`${where}: a wait behind a holder, and its hold released`, async () => {
    exporter.reset()
    const kit = await made()
    try {
      const locks = kit.store.locks('otel')
      const first = await locks.acquire('42')
      let got: Lease | undefined
      const holding = locks.hold('42', lease => {
        got = lease
      })
      while ((await kit.store.status()).waitingTotal === 0) await new Promise(resolve => setImmediate(resolve))
      await first.release()
      await holding
      assert.ok(got && got.fence > first.fence)
      const waits = spans('tinystore.wait', '42')
      assert.equal(waits.length, 2) // the first acquire's, then the hold's
      const waited = waits[1].attributes
      assert.equal(waited['tinystore.group'], 'otel')
      assert.equal(waited['tinystore.kind'], 'lock')
      assert.equal(waited['tinystore.fence'], fenceText(got.fence))
      assert.equal(typeof waited['tinystore.waited_ms'], 'number')
      const [held, ...more] = spans('tinystore.hold', '42')
      assert.equal(more.length, 0)
      assert.equal(held.attributes['tinystore.ended'], 'released')
      assert.equal(held.attributes['tinystore.fence'], fenceText(got.fence))
      assert.equal(held.status.code, SpanStatusCode.UNSET)
    } finally {
      await kit.close()
    }
  })

  test(`${where}: a wait that times out`, async () => {
    exporter.reset()
    const kit = await made()
    try {
      const locks = kit.store.locks('otel')
      const first = await locks.acquire('9')
      await assert.rejects(locks.acquire('9', { wait: 0 }), WaitTimeoutError)
      await first.release()
      const failed = spans('tinystore.wait', '9').at(-1)
      assert.equal(failed?.attributes['tinystore.error.code'], 'timeout')
      assert.equal(failed?.status.code, SpanStatusCode.ERROR)
    } finally {
      await kit.close()
    }
  })

  test(`${where}: a lost lease ends its hold span lost`, async () => {
    exporter.reset()
    const kit = await made()
    try {
      await assert.rejects(
        kit.store.locks('otel').hold('7', async lease => {
          await kit.expire(lease)
        }),
        (err: unknown) => (err as { code?: string }).code === 'lease_lost',
      )
      const [held, ...more] = spans('tinystore.hold', '7')
      assert.equal(more.length, 0)
      assert.equal(held.attributes['tinystore.ended'], 'lost')
      assert.equal(held.attributes['tinystore.error.code'], 'lease_lost')
      assert.equal(held.status.code, SpanStatusCode.ERROR)
    } finally {
      await kit.close()
    }
  })

  test(`${where}: a guard check accepted, then one refused stale`, async () => {
    exporter.reset()
    const kit = await made()
    const db = new Database(path.join(tempDir(), 'app.db'))
    try {
      guard.ensure(db)
      const locks = kit.store.locks('otel')
      const old = await locks.acquire('g')
      await old.release()
      const lease = await locks.acquire('g')
      const before = await refused()
      db.transaction(() => guard.check(db, 'orders/g', lease))()
      assert.throws(() => db.transaction(() => guard.check(db, 'orders/g', old))(), StaleError)
      const [accepted, stale, ...more] = spans('tinystore.guard.check')
      assert.equal(more.length, 0)
      assert.deepEqual(accepted.attributes, {
        'tinystore.resource': 'orders/g',
        'tinystore.fence': fenceText(lease.fence),
        'tinystore.backend': 'sqlite',
        'tinystore.outcome': 'accepted',
      })
      assert.equal(stale.attributes['tinystore.outcome'], 'stale')
      assert.equal(stale.attributes['tinystore.fence'], fenceText(old.fence))
      assert.equal(stale.attributes['tinystore.largest'], fenceText(lease.fence))
      assert.equal(await refused(), before + 1)
      await lease.release()
    } finally {
      db.close()
      await kit.close()
    }
  })
}

// The child holds a key and runs a guard check accepted and one refused,
// then says whether @opentelemetry/api was loaded.
const child = `
const Database = require('better-sqlite3')
const { open, guard, StaleError } = require('tinystore')
;(async () => {
  const dir = process.argv[1]
  const store = await open(dir + '/store')
  const db = new Database(dir + '/app.db')
  guard.ensure(db)
  const fence = await store.locks('a').hold('1', lease => {
    db.transaction(() => guard.check(db, 'r', lease))()
    return lease.fence
  })
  try {
    db.transaction(() => guard.check(db, 'r', fence - 1n))()
    throw new Error('not refused')
  } catch (err) {
    if (!(err instanceof StaleError)) throw err
  }
  await store.close()
  const loaded = Object.keys(require.cache).some(file => file.includes('@opentelemetry'))
  console.log(loaded ? 'otel' : 'no otel')
})().catch(err => { console.error(err); process.exit(1) })
`

test('without @opentelemetry/api, tinystore works and loads none', async () => {
  const dir = tempDir()
  // Resolution fails for @opentelemetry/*, as when it is not installed.
  const blocker = path.join(dir, 'no-otel.js')
  writeFileSync(
    blocker,
    `const Module = require('node:module')
const resolve = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith('@opentelemetry/')) {
    const err = new Error("Cannot find module '" + request + "'")
    err.code = 'MODULE_NOT_FOUND'
    throw err
  }
  return resolve.call(this, request, ...rest)
}
`,
  )
  const { stdout } = await run(process.execPath, ['-r', blocker, '-e', child, dir], { cwd: __dirname })
  assert.equal(stdout.trim(), 'no otel')
})

test('with @opentelemetry/api and no provider, no tracer is asked for', async () => {
  const dir = tempDir()
  const noTracer = `const api = require('@opentelemetry/api')
api.trace.getTracer = () => { throw new Error('a tracer was made') }
api.metrics.getMeter = () => { throw new Error('a meter was made') }
`
  const { stdout } = await run(process.execPath, ['-e', noTracer + child, dir], { cwd: __dirname })
  assert.equal(stdout.trim(), 'otel')
})
