// guard.dynamodb when the answer to its transaction is lost and the SDK
// makes it again, on moto's server ($TINYSTORE_S3_URL) through a proxy that
// forwards the first TransactWriteItems, waits for moto's answer, lets
// another writer in if the test says so, then closes the connection without
// a byte of that answer. The SDK sees the connection closed, and retries.
//
// Moto does not answer a retry with the same ClientRequestToken from the
// first attempt's outcome: the retry is judged again. A write that landed
// and was then overtaken is cancelled on its retry, and a refusal retried
// is refused again; the guard says `unavailable` for both and tells the
// lease's store nothing; a refusal is told only when no answer was lost.
// The document client (lib-dynamodb) is watched the same.
// Without the URL this test skips, unless TINYSTORE_REQUIRE_S3=1.
import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'
import { CreateTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { type Lease, StaleError, TinystoreError, guard, open } from 'tinystore'
import { tempDir } from './helpers'
import { type LosingProxy, losingProxy as proxyTo } from './losing-proxy'
import { counts, inDoubt, superseded } from './superseded'

const url = process.env.TINYSTORE_S3_URL
if (!url && process.env.TINYSTORE_REQUIRE_S3 === '1') {
  throw new Error('TINYSTORE_S3_URL is unset, and TINYSTORE_REQUIRE_S3=1 forbids skipping the DynamoDB guard tests')
}
const dynamoTest = url ? test : test.skip
const TARGET = 'DynamoDB_20120810.TransactWriteItems'

function client(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })
}

/** The proxy that loses moto's answer to the first TransactWriteItems. */
async function losingProxy(between?: () => Promise<void>): Promise<LosingProxy & { url: string }> {
  const upstream = new URL(url!)
  const proxy = await proxyTo(Number(upstream.port), chunk => chunk.includes(TARGET), between, upstream.hostname)
  return { ...proxy, url: `http://127.0.0.1:${proxy.port}` }
}

async function summaryOf(db: DynamoDBClient, TableName: string, id: string): Promise<string | null> {
  const got = await db.send(new GetItemCommand({ TableName, Key: { id: { S: id } }, ConsistentRead: true }))
  return got.Item?.summary?.S ?? null
}

dynamoTest('a lost answer retried is accepted or in doubt, never stale', async () => {
  const db = client(url!)
  const table = `node-lost-${process.pid}`
  const register = `node-lost-fences-${process.pid}`
  await db.send(
    new CreateTableCommand({
      TableName: table,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  )
  await guard.dynamodb.ensure(db, { table: register })
  const put = (via: DynamoDBClient, resource: string, id: string, summary: string, under: bigint | Lease) =>
    guard.dynamodb.putItem(via, resource, under, { TableName: table, Item: { id: { S: id }, summary: { S: summary } } }, { table: register })

  const store = await open(path.join(tempDir('tinystore-dynamodb-lost-'), 'store'))
  try {
    const { older, newer } = await superseded(store)

    // Accepted, its answer lost: the retry carries the same fence, which is
    // accepted again.
    let proxy = await losingProxy()
    await put(client(proxy.url), 'chats/alone', 'alone', 'by older', older)
    proxy.close()
    assert.equal(proxy.played(), 1)
    assert.equal(await summaryOf(db, table, 'alone'), 'by older')

    // Accepted, its answer lost, overtaken before the retry: the older
    // write landed, so it may not be called stale.
    proxy = await losingProxy(() => put(db, 'chats/overtaken', 'overtaken-newer', 'by newer', newer.fence))
    await assert.rejects(put(client(proxy.url), 'chats/overtaken', 'overtaken', 'by older', older), inDoubt)
    proxy.close()
    assert.equal(await summaryOf(db, table, 'overtaken'), 'by older', 'the older write landed before the newer')
    assert.equal(await summaryOf(db, table, 'overtaken-newer'), 'by newer')
    assert.deepEqual(await counts(store), [])

    // The same through lib-dynamodb's document client, whose command
    // carries the guard's middleware into the client's command.
    proxy = await losingProxy(() => put(db, 'chats/doc', 'doc-newer', 'by newer', newer.fence))
    const doc = DynamoDBDocumentClient.from(client(proxy.url))
    await assert.rejects(
      guard.dynamodb.putItem(doc, 'chats/doc', older, { TableName: table, Item: { id: 'doc', summary: 'by older' } }, { table: register }),
      (err: unknown) => {
        assert.ok(err instanceof TinystoreError && err.code === 'unavailable', String(err))
        return true
      },
    )
    proxy.close()
    assert.equal(await summaryOf(db, table, 'doc'), 'by older')
    assert.deepEqual(await counts(store), [])

    // Refused, its answer lost, refused again on the retry: in doubt the
    // same, for the guard cannot tell it from the case above.
    await put(db, 'chats/refused', 'refused-newer', 'by newer', newer)
    proxy = await losingProxy()
    await assert.rejects(put(client(proxy.url), 'chats/refused', 'refused', 'by older', older), (err: unknown) => {
      assert.ok(err instanceof TinystoreError && err.code === 'unavailable', String(err))
      return true
    })
    proxy.close()
    assert.equal(proxy.played(), 1)
    assert.equal(await summaryOf(db, table, 'refused'), null)
    assert.deepEqual(await counts(store), [])

    // The same refusal with its answer kept is stale, and told: the one
    // refusal the store counts, so that neither case above was told.
    await assert.rejects(put(db, 'chats/refused', 'refused', 'by older', older), (err: unknown) => {
      assert.ok(err instanceof StaleError, String(err))
      assert.equal(err.largest, newer.fence)
      return true
    })
    assert.deepEqual(await counts(store), [['chats', 'lock', 1]])
  } finally {
    await store.close()
  }
})
