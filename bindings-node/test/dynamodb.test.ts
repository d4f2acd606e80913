// The DynamoDB guard (guard.dynamodb) against moto's real DynamoDB, at
// $TINYSTORE_S3_URL (tests/guards/with-s3.sh: one moto server answers S3
// and DynamoDB), through @aws-sdk/client-dynamodb's DynamoDBClient and
// lib-dynamodb's document client: the rule, transactions all or none, a
// condition of yours, a register edited by hand, bad input and too many
// items before any call, a missing table, and the server gone. Without the
// URL these tests skip, unless TINYSTORE_REQUIRE_S3=1 (make test-node).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { test } from 'node:test'
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { CorruptError, InvalidError, StaleError, TinystoreError, guard } from 'tinystore'
import { repo } from './helpers'

const url = process.env.TINYSTORE_S3_URL
if (!url && process.env.TINYSTORE_REQUIRE_S3 === '1') {
  throw new Error('TINYSTORE_S3_URL is unset, and TINYSTORE_REQUIRE_S3=1 forbids skipping the DynamoDB guard tests')
}
const dynamoTest = url ? test : test.skip
// eslint-disable-next-line @typescript-eslint/no-require-imports
const driver: { failureClass(err: unknown): string } = require(path.join(repo, 'bindings-node', 'lib', 'guard_driver.js'))

function client(endpoint = url ?? 'http://127.0.0.1:1'): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  })
}

let tables = 0
/** A new data table of its own (key `id`, a string), and the register. */
async function tableOf(db: DynamoDBClient): Promise<string> {
  const name = `node-${process.pid}-${++tables}`
  await db.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  )
  await guard.dynamodb.ensure(db)
  return name
}

/** An item's `v`, or null when there is no item. */
async function valueOf(db: DynamoDBClient, TableName: string, id: string): Promise<string | null> {
  const got = await db.send(new GetItemCommand({ TableName, Key: { id: { S: id } }, ConsistentRead: true }))
  return got.Item?.v?.S ?? null
}

/** The register's fence for `resource`, as stored. */
async function registered(db: DynamoDBClient, resource: string): Promise<AttributeValue | undefined> {
  const got = await db.send(new GetItemCommand({ TableName: 'tinystore_fences', Key: { resource: { S: resource } }, ConsistentRead: true }))
  return got.Item?.fence
}

const item = (TableName: string, id: string, v: string) => ({ TableName, Item: { id: { S: id }, v: { S: v } } })
const resources = (() => {
  let n = 0
  return () => `chats/${process.pid}-${++n}`
})()

function assertStale(err: unknown, resource: string, fence: bigint, largest: bigint): true {
  assert.ok(err instanceof StaleError, String(err))
  assert.deepEqual([err.resource, err.fence, err.largest], [resource, fence, largest])
  return true
}

dynamoTest('the rule: equal and larger accepted, smaller refused with nothing written', async () => {
  const db = client()
  const t = await tableOf(db)
  const r = resources()
  await guard.dynamodb.putItem(db, r, 7n, item(t, '1', 'seven'))
  await guard.dynamodb.putItem(db, r, 7n, item(t, '1', 'seven again'))
  await assert.rejects(guard.dynamodb.putItem(db, r, 5n, item(t, '1', 'five')), err => assertStale(err, r, 5n, 7n))
  assert.equal(await valueOf(db, t, '1'), 'seven again')
  const big = (1n << 100n) + 3n
  await guard.dynamodb.updateItem(db, r, big, {
    TableName: t,
    Key: { id: { S: '1' } },
    UpdateExpression: 'SET v = :v',
    ExpressionAttributeValues: { ':v': { S: 'big' } },
  })
  assert.deepEqual(await registered(db, r), { S: big.toString().padStart(40, '0') })
  await assert.rejects(guard.dynamodb.deleteItem(db, r, 7n, { TableName: t, Key: { id: { S: '1' } } }), err => assertStale(err, r, 7n, big))
  assert.equal(await valueOf(db, t, '1'), 'big')
  await guard.dynamodb.deleteItem(db, r, big, { TableName: t, Key: { id: { S: '1' } } })
  assert.equal(await valueOf(db, t, '1'), null)
  // The register keeps the fence: a late write stays refused.
  await assert.rejects(guard.dynamodb.putItem(db, r, 8n, item(t, '1', 'late')), err => assertStale(err, r, 8n, big))
  assert.equal(await valueOf(db, t, '1'), null)
})

dynamoTest('a transaction of several items is written all or none', async () => {
  const db = client()
  const t = await tableOf(db)
  const r = resources()
  const out = await guard.dynamodb.transactWriteItems(db, r, 3n, { TransactItems: [{ Put: item(t, 'a', 'a3') }, { Put: item(t, 'b', 'b3') }] })
  assert.ok(out && typeof out === 'object')
  assert.deepEqual([await valueOf(db, t, 'a'), await valueOf(db, t, 'b')], ['a3', 'b3'])
  await assert.rejects(
    guard.dynamodb.transactWriteItems(db, r, 2n, { TransactItems: [{ Put: item(t, 'a', 'a2') }, { Put: item(t, 'c', 'c2') }] }),
    err => assertStale(err, r, 2n, 3n),
  )
  assert.deepEqual([await valueOf(db, t, 'a'), await valueOf(db, t, 'c')], ['a3', null])
  // A condition of yours fails: the SDK's own error, and no fence recorded.
  const r2 = resources()
  await assert.rejects(
    guard.dynamodb.putItem(db, r2, 9n, { ...item(t, 'a', 'a9'), ConditionExpression: 'attribute_not_exists(id)' }),
    (err: unknown) => {
      assert.ok(!(err instanceof TinystoreError), String(err))
      assert.equal((err as { name?: string }).name, 'TransactionCanceledException')
      const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []
      assert.deepEqual(reasons.map(x => x.Code), ['ConditionalCheckFailed', 'None'])
      assert.equal(guard.isSerializationFailure(err), false)
      return true
    },
  )
  assert.equal(await registered(db, r2), undefined)
  assert.equal(await valueOf(db, t, 'a'), 'a3')
})

dynamoTest('the document client: plain values, the same rule', async () => {
  const db = client()
  const t = await tableOf(db)
  const doc = DynamoDBDocumentClient.from(db)
  const r = resources()
  await guard.dynamodb.putItem(doc, r, 7n, { TableName: t, Item: { id: 'd', v: 'seven', n: 7 } })
  assert.deepEqual(await registered(db, r), { S: '7'.padStart(40, '0') })
  await assert.rejects(guard.dynamodb.putItem(doc, r, 6n, { TableName: t, Item: { id: 'd', v: 'six' } }), err => assertStale(err, r, 6n, 7n))
  // The same register from the plain client: one fence per resource.
  await assert.rejects(guard.dynamodb.putItem(db, r, 6n, item(t, 'd', 'six')), err => assertStale(err, r, 6n, 7n))
  await guard.dynamodb.transactWriteItems(doc, r, 8n, {
    TransactItems: [{ Update: { TableName: t, Key: { id: 'd' }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 'eight' } } }],
  })
  assert.equal(await valueOf(db, t, 'd'), 'eight')
})

dynamoTest('a register edited by hand is corrupt, naming the resource and the table', async () => {
  const db = client()
  const t = await tableOf(db)
  for (const fence of [{ N: '12' }, { S: '12' }, { S: '9'.repeat(41) }] as AttributeValue[]) {
    const r = resources()
    await db.send(new PutItemCommand({ TableName: 'tinystore_fences', Item: { resource: { S: r }, fence } }))
    await assert.rejects(guard.dynamodb.putItem(db, r, 7n, item(t, 'x', 'x')), (err: unknown) => {
      assert.ok(err instanceof CorruptError, `${JSON.stringify(fence)}: ${err}`)
      assert.match(err.message, new RegExp(r))
      assert.match(err.message, /tinystore_fences/)
      return true
    })
  }
  assert.equal(await valueOf(db, t, 'x'), null)
})

dynamoTest('a missing table is the SDK\'s own ResourceNotFoundException', async () => {
  const db = client()
  await assert.rejects(guard.dynamodb.putItem(db, resources(), 1n, item(`missing-${process.pid}`, 'x', 'x')), (err: unknown) => {
    assert.ok(!(err instanceof TinystoreError), String(err))
    assert.equal((err as { name?: string }).name, 'ResourceNotFoundException')
    return true
  })
})

test('bad input and more than 99 items are InvalidError before any call', async () => {
  let calls = 0
  const counting = { send: async () => ((calls += 1), {}) }
  const t = 'chats'
  const bad: Array<() => Promise<unknown>> = [
    () => guard.dynamodb.putItem(counting, '', 1n, item(t, 'x', 'x')),
    () => guard.dynamodb.putItem(counting, 'a\0b', 1n, item(t, 'x', 'x')),
    () => guard.dynamodb.putItem(counting, 'chats/\uD800', 1n, item(t, 'x', 'x')),
    () => guard.dynamodb.putItem(counting, 'x'.repeat(1025), 1n, item(t, 'x', 'x')),
    () => guard.dynamodb.putItem(counting, 'chats/1', 1n, item(t, 'x', 'x'), { table: '' }),
    () => guard.dynamodb.putItem(counting, 'chats/1', 1n, { ...item(t, 'x', 'x'), ReturnValues: 'ALL_OLD' } as never),
    () => guard.dynamodb.putItem(counting, 'chats/1', 1 as never, item(t, 'x', 'x')),
    () => guard.dynamodb.putItem(counting, 'chats/1', 1n << 128n, item(t, 'x', 'x')),
    () => guard.dynamodb.putItem({} as never, 'chats/1', 1n, item(t, 'x', 'x')),
    () => guard.dynamodb.transactWriteItems(counting, 'chats/1', 1n, { TransactItems: 'x' as never }),
    () =>
      guard.dynamodb.transactWriteItems(counting, 'chats/1', 1n, {
        TransactItems: Array.from({ length: 100 }, (_, i) => ({ Put: item(t, String(i), 'x') })),
      }),
  ]
  for (const call of bad) await assert.rejects(call(), InvalidError)
  assert.equal(calls, 0)
  assert.equal(guard.dynamodb.MAX_ITEMS, 99)
  assert.equal(guard.dynamodb.REGISTER_TABLE, 'tinystore_fences')
})

dynamoTest('99 items of yours are one transaction', async () => {
  const db = client()
  const t = await tableOf(db)
  const TransactItems = Array.from({ length: 99 }, (_, i) => ({ Put: item(t, `n${i}`, 'x') }))
  await guard.dynamodb.transactWriteItems(db, resources(), 1n, { TransactItems })
  assert.equal(await valueOf(db, t, 'n98'), 'x')
})

test('the server gone is the SDK\'s own error, classed unavailable', async () => {
  const db = client('http://127.0.0.1:1')
  await assert.rejects(guard.dynamodb.putItem(db, 'chats/1', 1n, item('chats', 'x', 'x')), (err: unknown) => {
    assert.ok(!(err instanceof TinystoreError), String(err))
    assert.equal((err as { code?: string }).code, 'ECONNREFUSED')
    assert.equal(guard.isSerializationFailure(err), false)
    assert.equal(driver.failureClass(err), 'unavailable')
    return true
  })
})

test('a TransactionConflict is a serialization failure', () => {
  const conflict = Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
  })
  assert.equal(guard.isSerializationFailure(conflict), true)
})

test('the package does not load @aws-sdk/client-dynamodb until a guarded write', () => {
  const script =
    "const t = require('tinystore'); const loaded = () => Object.keys(require.cache).some(k => k.includes('client-dynamodb'));" +
    "const before = loaded(); t.guard.dynamodb.putItem({ send: async () => ({}) }, 'r', 1n, { TableName: 't', Item: {} })" +
    '.catch(() => {}).finally(() => console.log(before, loaded()))'
  const run = spawnSync(process.execPath, ['-e', script], { cwd: path.join(repo, 'bindings-node'), encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  assert.equal(run.stdout.trim(), 'false true')
})
