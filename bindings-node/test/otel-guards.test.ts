// The guards on S3 and DynamoDB (moto, $TINYSTORE_S3_URL), Google Cloud
// Storage (fake-gcs-server, $TINYSTORE_GCS_URL) and Azure Blob (Azurite,
// $TINYSTORE_AZURE_CONNECTION_STRING) given the lease itself: a late write
// refused is told to the lease's store, whose status counts it per group
// (embedded and served), and each check is a tinystore.guard.check span,
// accepted or stale, with the fence, the resource and the backend, read
// back from the SDK's in-memory exporter, the refusal counted on its
// backend; the Redis guard (redis-server, $TINYSTORE_REDIS_URL) too. A
// store whose variable is unset skips, unless its
// TINYSTORE_REQUIRE_* is 1, when the file fails. And http.fetch given the
// lease, whose request a real SQLite guard in a node:http service refuses
// with 409: told and traced the same, on the backend http.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { metrics, trace } from '@opentelemetry/api'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { Storage } from '@google-cloud/storage'
import { BlobServiceClient } from '@azure/storage-blob'
import { Redis } from 'ioredis'
import { type FencedRequest, type Lease, StaleError, type Store, guard, http } from 'tinystore'
import { TestStore } from 'tinystore/testing'

const s3Url = process.env.TINYSTORE_S3_URL
const gcsUrl = process.env.TINYSTORE_GCS_URL
const azureConnection = process.env.TINYSTORE_AZURE_CONNECTION_STRING
const redisUrl = process.env.TINYSTORE_REDIS_URL
for (const [value, required, script] of [
  [redisUrl, 'TINYSTORE_REQUIRE_REDIS', 'with-redis.sh'],
  [s3Url, 'TINYSTORE_REQUIRE_S3', 'with-s3.sh'],
  [gcsUrl, 'TINYSTORE_REQUIRE_GCS', 'with-gcs.sh'],
  [azureConnection, 'TINYSTORE_REQUIRE_AZURE', 'with-azurite.sh'],
] as const) {
  if (!value && process.env[required] === '1') throw new Error(`${required}=1 but its server's variable is unset: run under tests/guards/${script}`)
}
// The GCS client would take the emulator's variable over apiEndpoint.
delete process.env.STORAGE_EMULATOR_HOST

/** A reader that exports nothing: the test collects from it. */
class Reader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const exporter = new InMemorySpanExporter()
const reader = new Reader()
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))

const fenceText = (fence: bigint): string => fence.toString().padStart(40, '0')
const unique = (): string => `${process.pid}-${Math.random().toString(36).slice(2, 10)}`

async function refusedOn(backend: string): Promise<number> {
  const { resourceMetrics } = await reader.collect()
  let total = 0
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== 'tinystore.guard.refused') continue
      for (const point of metric.dataPoints) {
        if (point.attributes['tinystore.backend'] === backend) total += Number(point.value)
      }
    }
  }
  return total
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

/**
 * Writes under a later lease (accepted), then under the lease it overtook
 * (stale), each given the lease itself, and checks what the store, the
 * spans and the counter on `backend` saw.
 */
async function toldAndTraced(served: boolean, backend: string, resource: string, write: (lease: Lease) => Promise<unknown>) {
  const kit = await (served ? TestStore.served() : TestStore.open())
  try {
    const group = `otel-${backend}`
    const locks = kit.store.locks(group)
    const old = await locks.acquire('k')
    await old.release()
    const later = await locks.acquire('k')
    await write(later)
    const before = await refusedOn(backend)
    await assert.rejects(write(old), (err: unknown) => err instanceof StaleError && err.resource === resource)
    await untilCounts(kit.store, [[group, 'lock', 1]])
    const checks = exporter
      .getFinishedSpans()
      .filter(s => s.name === 'tinystore.guard.check' && s.attributes['tinystore.resource'] === resource)
      .map(s => s.attributes)
    assert.deepEqual(
      checks.map(c => [c['tinystore.fence'], c['tinystore.outcome'], c['tinystore.backend']]),
      [
        [fenceText(later.fence), 'accepted', backend],
        [fenceText(old.fence), 'stale', backend],
      ],
    )
    assert.equal(checks[1]['tinystore.largest'], fenceText(later.fence))
    assert.equal(await refusedOn(backend), before + 1)
    await later.release()
  } finally {
    await kit.close()
  }
}

for (const served of [false, true]) {
  const where = served ? 'served' : 'embedded'

  ;(s3Url ? test : test.skip)(`${where}: the S3 guard given the lease tells and traces`, async () => {
    const s3 = new S3Client({
      endpoint: s3Url,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    })
    const bucket = `otel-${unique()}`
    await s3.send(new CreateBucketCommand({ Bucket: bucket }))
    await toldAndTraced(served, 's3', `${bucket}/chats/42`, lease => guard.s3.put(s3, { bucket, key: 'chats/42', body: '{}', fence: lease }))
  })

  ;(s3Url ? test : test.skip)(`${where}: the DynamoDB guard given the lease tells and traces`, async () => {
    const db = new DynamoDBClient({
      endpoint: s3Url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    })
    const TableName = `otel-${unique()}`
    await db.send(
      new CreateTableCommand({
        TableName,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    )
    await guard.dynamodb.ensure(db)
    const resource = `chats/${unique()}`
    await toldAndTraced(served, 'dynamodb', resource, lease =>
      guard.dynamodb.putItem(db, resource, lease, { TableName, Item: { id: { S: '42' }, v: { S: 'the summary' } } }),
    )
  })

  ;(gcsUrl ? test : test.skip)(`${where}: the GCS guard given the lease tells and traces`, async () => {
    const storage = new Storage({ apiEndpoint: gcsUrl, projectId: 'test', retryOptions: { autoRetry: false } })
    const name = `otel/${unique()}`
    const file = storage.bucket('tinystore').file(name)
    await toldAndTraced(served, 'gcs', `tinystore/${name}`, lease => guard.gcs.save(file, 'the summary', lease))
  })

  ;(redisUrl ? test : test.skip)(`${where}: the Redis guard given the lease tells and traces`, async () => {
    const client = new Redis(redisUrl ?? '')
    try {
      const key = `otel:${unique()}`
      await toldAndTraced(served, 'redis', key, lease => guard.redis.set(client, key, 'the summary', lease))
    } finally {
      client.disconnect()
    }
  })

  ;(azureConnection ? test : test.skip)(`${where}: the Azure guard given the lease tells and traces`, async () => {
    const options = { retryOptions: { maxTries: 1 } }
    const container = BlobServiceClient.fromConnectionString(azureConnection ?? '', options).getContainerClient('tinystore')
    const name = `otel/${unique()}`
    const blob = container.getBlockBlobClient(name)
    await toldAndTraced(served, 'azure', `tinystore/${name}`, lease => guard.azure.upload(blob, 'the summary', lease))
  })
}

for (const served of [false, true]) {
  test(`${served ? 'served' : 'embedded'}: http.fetch given the lease tells and traces a 409`, async () => {
    const db = new Database(':memory:')
    guard.ensure(db)
    const save = db.transaction((fence: bigint) => guard.check(db, 'chats/42', fence))
    const server = createServer(
      http.fenced((req: FencedRequest & IncomingMessage, res: ServerResponse) => {
        save(req.tinystoreFence ?? 0n)
        res.end('saved')
      }),
    )
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      await toldAndTraced(served, 'http', `${host}/chats/42`, async lease => {
        const res = await http.fetch(`http://${host}/chats/42`, lease, { method: 'POST' })
        await res.text()
        // The response comes back as it came; the test turns a 409 into
        // the refusal toldAndTraced expects.
        if (res.status === http.CONFLICT) {
          throw new StaleError('refused', { resource: `${host}/chats/42`, fence: lease.fence, largest: 0n })
        }
        assert.equal(res.status, 200)
      })
    } finally {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
      db.close()
    }
  })
}

test('http.fetch reads an answer as the core does: a 409 without a fence in Tinystore-Fence-Largest is io, not stale', async () => {
  const largest: Record<string, string | undefined> = { '/bare': undefined, '/nine': 'nine', '/stale': '12' }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? ''
    if (path === '/busy') res.statusCode = 503
    else {
      res.statusCode = 409
      if (largest[path] !== undefined) res.setHeader(http.LARGEST_HEADER, largest[path] as string)
    }
    res.end()
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const seen = async (path: string) => {
      const res = await http.fetch(`http://${host}${path}`, 5n, { method: 'POST' })
      await res.text()
      const spans = exporter.getFinishedSpans().filter(s => s.name === 'tinystore.guard.check' && s.attributes['tinystore.resource'] === `${host}${path}`)
      assert.equal(spans.length, 1, path)
      return { status: res.status, span: spans[0] }
    }
    const stale = await seen('/stale')
    assert.deepEqual([stale.status, stale.span.attributes['tinystore.outcome'], stale.span.attributes['tinystore.largest']], [409, 'stale', fenceText(12n)])
    for (const [path, status, says] of [
      ['/bare', 409, `the service answered 409 to the write to "${host}/bare" without the header Tinystore-Fence-Largest: not a guard's refusal`],
      ['/nine', 409, `the service answered 409 to the write to "${host}/nine" with a header Tinystore-Fence-Largest that is not a fence: fence text "nine" is not a decimal`],
      ['/busy', 503, `the service answered 503 to the write to "${host}/busy"`],
    ] as const) {
      const { status: got, span } = await seen(path)
      assert.equal(got, status, path)
      assert.deepEqual([span.attributes['tinystore.outcome'], span.attributes['tinystore.error.code']], ['error', 'io'], path)
      assert.ok(span.status.message?.includes(says), `${path}: ${span.status.message}`)
    }
  } finally {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
  }
})
