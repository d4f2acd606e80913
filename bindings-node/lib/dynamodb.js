'use strict'
// The guard on DynamoDB, on the user's own client: @aws-sdk/client-dynamodb's
// DynamoDBClient (items as AttributeValues, { S: '42' }) or
// @aws-sdk/lib-dynamodb's DynamoDBDocumentClient (items as plain JS values).
// Each guarded call is one TransactWriteItems: the caller's items, then the
// register item's conditional put (the core's NativeDynamoCheck gives its
// table, key, fence and condition), which DynamoDB commits all or none;
// when the cancellation does not carry the register item, the machine asks
// for it to be read (GetItem, consistently). This file makes the calls and
// reports what happened; the machine decides. Its end follows the one
// policy of lib/guard_driver.js: the SDK's own errors are rethrown as the
// SDK threw them.
//
// Both SDK packages are optional peer dependencies, required on the first
// guarded call for their command classes, which are sent through the
// client's own `send` (so the caller's endpoint, credentials, retries and
// middleware apply). A document client is told by its class
// (DynamoDBDocumentClient, or DynamoDBDocument which extends it): its
// transaction goes through lib-dynamodb's TransactWriteCommand, with the
// register item in plain values like the caller's; the register's read,
// and ensure, send client-dynamodb's own commands, which a document client
// passes through unchanged.
//
// The SDK makes a transaction again when an attempt's answer is lost (a
// dropped connection, a timeout, a 5xx). The guard's transaction command
// carries a middleware of its own (the deserialize step, below the retry
// middleware, so it sees each attempt) that notes each attempt's status;
// the machine is told them (attempted; none when no answer came) before
// the outcome: after no answer, a 5xx or a 408, a larger fence found by the
// retry is `unavailable`, not `stale` (core's rule).
const native = require('./native')
const { describe } = require('./convert')
const { InvalidError, TinystoreInternalError, mappedSync } = require('./errors')
const { text, underOf } = require('./guard_input')
const { failureOf, concluded } = require('./guard_driver')

const { registerTable: REGISTER_TABLE, maxItems: MAX_ITEMS } = native.guardDynamoConstants()

/**
 * @typedef {import('../native').NativeDynamoStep} Step
 * @typedef {{ send(command: unknown, options?: unknown): Promise<any> }} DynamoClientLike
 * @typedef {new (input: object) => unknown} Command
 * @typedef {{ TransactWriteItemsCommand: Command, GetItemCommand: Command, DescribeTableCommand: Command, CreateTableCommand: Command, waitUntilTableExists: (params: object, input: object) => Promise<unknown> }} DynamoSdk
 * @typedef {{ TransactWriteCommand: Command }} DocumentSdk
 */

/** @type {DynamoSdk | undefined} */
let dynamoSdk
/** @type {DocumentSdk | undefined} */
let documentSdk

/** @param {string} name */
function needs(name) {
  return `guard.dynamodb needs the package ${name} (an optional peer dependency of tinystore): npm install ${name}`
}

/** client-dynamodb, required on first use. @returns {DynamoSdk} */
function sdk() {
  if (!dynamoSdk) {
    try {
      dynamoSdk = /** @type {DynamoSdk} */ (require('@aws-sdk/client-dynamodb'))
    } catch (err) {
      throw new InvalidError(needs('@aws-sdk/client-dynamodb'), { cause: err })
    }
  }
  return dynamoSdk
}

/** lib-dynamodb, required on first use with a document client. @returns {DocumentSdk} */
function documentCommands() {
  if (!documentSdk) {
    try {
      documentSdk = /** @type {DocumentSdk} */ (require('@aws-sdk/lib-dynamodb'))
    } catch (err) {
      throw new InvalidError(needs('@aws-sdk/lib-dynamodb'), { cause: err })
    }
  }
  return documentSdk
}

/**
 * Whether `client` is lib-dynamodb's document client (its class, or one
 * that extends it: DynamoDBDocument). Told by the class's name, as no
 * field sets it apart: the document client shares its DynamoDBClient's
 * config and middleware.
 * @param {object} client
 */
function isDocumentClient(client) {
  for (let proto = Object.getPrototypeOf(client); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (proto.constructor?.name === 'DynamoDBDocumentClient') return true
  }
  return false
}

/**
 * The checked client, or an InvalidError naming what it is.
 * @param {unknown} client
 * @param {string} where
 * @returns {DynamoClientLike}
 */
function clientOf(client, where) {
  if (client === null || typeof client !== 'object' || typeof (/** @type {any} */ (client).send) !== 'function') {
    throw new InvalidError(
      `${where} takes a DynamoDBClient of @aws-sdk/client-dynamodb or a DynamoDBDocumentClient of @aws-sdk/lib-dynamodb (with a send method), not ${describe(client)}`,
    )
  }
  return /** @type {DynamoClientLike} */ (client)
}

/**
 * The register table of `options` (`{ table }`), or the default.
 * @param {unknown} options
 * @param {string} where
 */
function tableOf(options, where) {
  if (options === undefined) return REGISTER_TABLE
  if (options === null || typeof options !== 'object') throw new InvalidError(`${where} takes its options as { table }, not ${describe(options)}`)
  const table = /** @type {{ table?: unknown }} */ (options).table
  return table === undefined ? REGISTER_TABLE : text(table, 'table', where)
}

/** What each kind of a transaction's item takes (TransactWriteItems). */
const TAKES = {
  Put: ['TableName', 'Item', 'ConditionExpression', 'ExpressionAttributeNames', 'ExpressionAttributeValues', 'ReturnValuesOnConditionCheckFailure'],
  Update: ['TableName', 'Key', 'UpdateExpression', 'ConditionExpression', 'ExpressionAttributeNames', 'ExpressionAttributeValues', 'ReturnValuesOnConditionCheckFailure'],
  Delete: ['TableName', 'Key', 'ConditionExpression', 'ExpressionAttributeNames', 'ExpressionAttributeValues', 'ReturnValuesOnConditionCheckFailure'],
}

/**
 * `params` (PutItem's, UpdateItem's or DeleteItem's) as one item of a
 * transaction, or an InvalidError for a parameter such an item does not
 * take (ReturnValues, say).
 * @param {'Put' | 'Update' | 'Delete'} kind
 * @param {unknown} params
 * @param {string} where
 */
function itemOf(kind, params, where) {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    throw new InvalidError(`${where} takes ${kind}Item's parameters as an object, not ${describe(params)}`)
  }
  const extra = Object.keys(params).filter(k => !TAKES[kind].includes(k)).sort()
  if (extra.length) {
    throw new InvalidError(`${where}: a guarded ${kind.toLowerCase()} is one item of a transaction, which does not take ${extra.join(', ')}`)
  }
  return { [kind]: params }
}

/**
 * A cancelled transaction's reasons, or null for another error.
 * @param {unknown} err
 * @returns {Array<Record<string, any>> | null}
 */
function reasonsOf(err) {
  if (err === null || typeof err !== 'object') return null
  const e = /** @type {{ name?: unknown, CancellationReasons?: unknown }} */ (err)
  if (e.name !== 'TransactionCanceledException') return null
  const reasons = e.CancellationReasons
  return Array.isArray(reasons) ? reasons.map(r => (r !== null && typeof r === 'object' ? r : {})) : []
}

/**
 * The register item's `fence` as text: a string as it is (an
 * AttributeValue { S } or, from a document client, a plain string), another
 * type described (the machine calls it corrupt); null when there is no item
 * or no fence.
 * @param {unknown} item
 * @returns {string | null}
 */
function recordedOf(item) {
  if (item === null || typeof item !== 'object' || !('fence' in item)) return null
  const value = /** @type {{ fence: unknown }} */ (item).fence
  if (typeof value === 'string') return value
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const v = /** @type {Record<string, unknown>} */ (value)
    if (typeof v.S === 'string') return v.S
    return `(a value of type ${Object.keys(v)[0] ?? '?'})`
  }
  return `(a value of type ${value === null ? 'null' : typeof value})`
}

/**
 * The register item's put, in the client's shape.
 * @param {Step} step
 * @param {boolean} document
 */
function registerPut(step, document) {
  const [key, fence] = [/** @type {string} */ (step.resource), /** @type {string} */ (step.fence)]
  const digits = /** @type {number} */ (step.digits)
  return {
    Put: {
      TableName: step.table,
      Item: document ? { resource: key, fence } : { resource: { S: key }, fence: { S: fence } },
      ConditionExpression: step.condition,
      ExpressionAttributeValues: document ? { ':fence': fence, ':digits': digits } : { ':fence': { S: fence }, ':digits': { N: String(digits) } },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  }
}

/**
 * Adds to `command`'s own middleware stack a step that runs once per
 * attempt and calls `attempted` with its status (undefined when the
 * attempt got no answer: the handler threw, a dropped connection, a
 * timeout).
 * @param {any} command
 * @param {(status: number | undefined) => void} attempted
 */
function watchAttempts(command, attempted) {
  const stack = command?.middlewareStack
  if (!stack || typeof stack.add !== 'function') return
  stack.add(
    (/** @type {any} */ next) => async (/** @type {any} */ args) => {
      let answer
      try {
        answer = await next(args)
      } catch (err) {
        attempted(undefined)
        throw err
      }
      const status = answer?.response?.statusCode
      attempted(typeof status === 'number' ? status : undefined)
      return answer
    },
    // override: a document client's command resolves its stack twice.
    { step: 'deserialize', priority: 'low', name: 'tinystoreGuardLostAnswers', override: true },
  )
}

/**
 * One guarded TransactWriteItems of `items` (and the call's other
 * parameters, `rest`); resolves to the SDK's output when accepted, else
 * rejects as the policy says.
 * @param {DynamoClientLike} client
 * @param {string} resource
 * @param {bigint} fence
 * @param {string} table
 * @param {unknown[]} items
 * @param {Record<string, unknown>} rest
 * @returns {Promise<unknown>}
 */
async function run(client, resource, fence, table, items, rest) {
  const document = isDocumentClient(client)
  const machine = mappedSync(() => new native.NativeDynamoCheck(table, resource, fence, items.length))
  let step = mappedSync(() => machine.start())
  /** @type {unknown} */
  let output
  /** @type {unknown} */
  let failed
  let didFail = false
  while (step.kind !== 'done') {
    const current = step
    didFail = false
    /** @type {() => Step} */
    let observed
    try {
      if (current.kind === 'transact') {
        const input = { ...rest, TransactItems: [...items, registerPut(current, document)] }
        const Transact = document ? documentCommands().TransactWriteCommand : sdk().TransactWriteItemsCommand
        const command = new Transact(input)
        /** @type {(number | undefined)[]} */
        const statuses = []
        watchAttempts(command, status => statuses.push(status))
        try {
          output = await client.send(command)
        } finally {
          for (const status of statuses) machine.attempted(status)
        }
        observed = () => machine.written()
      } else if (current.kind === 'read') {
        const got = await client.send(
          new (sdk().GetItemCommand)({ TableName: current.table, Key: { resource: { S: /** @type {string} */ (current.resource) } }, ConsistentRead: true }),
        )
        observed = () => machine.read(recordedOf(got?.Item))
      } else {
        throw new TinystoreInternalError(`the DynamoDB guard was given a step it does not make: ${current.kind}`)
      }
    } catch (err) {
      if (err instanceof TinystoreInternalError) throw err
      ;[failed, didFail] = [err, true]
      const reasons = current.kind === 'transact' ? reasonsOf(err) : null
      const failure = failureOf(err)
      observed =
        reasons === null
          ? () => machine.failed(failure)
          : () =>
              machine.cancelled(
                reasons.map(r => (typeof r.Code === 'string' ? r.Code : 'None')),
                reasons.length ? recordedOf(reasons[reasons.length - 1].Item) : null,
                failure,
              )
    }
    step = mappedSync(observed)
  }
  concluded(step, failed, didFail)
  return output
}

/**
 * Makes the register table if it is missing (key `resource`, a string;
 * on-demand billing) and waits until it is active. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} [options]
 * @returns {Promise<void>}
 */
async function ensure(client, options) {
  const where = 'guard.dynamodb.ensure'
  const c = clientOf(client, where)
  const table = tableOf(options, where)
  const s = sdk()
  try {
    await c.send(new s.DescribeTableCommand({ TableName: table }))
    return
  } catch (err) {
    if (/** @type {{ name?: unknown }} */ (err)?.name !== 'ResourceNotFoundException') throw err
  }
  try {
    await c.send(
      new s.CreateTableCommand({
        TableName: table,
        KeySchema: [{ AttributeName: 'resource', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'resource', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    )
  } catch (err) {
    if (/** @type {{ name?: unknown }} */ (err)?.name !== 'ResourceInUseException') throw err // made meanwhile by another caller
  }
  await s.waitUntilTableExists({ client: c, maxWaitTime: 120 }, { TableName: table })
}

/**
 * TransactWriteItems of your `TransactItems` (and the call's other
 * parameters), guarded by `fence` for `resource`; the SDK's output.
 * @param {unknown} client
 * @param {unknown} resource
 * @param {unknown} fence
 * @param {unknown} input
 * @param {unknown} [options]
 */
async function transactWriteItems(client, resource, fence, input, options) {
  const where = 'guard.dynamodb.transactWriteItems'
  const c = clientOf(client, where)
  const r = text(resource, 'resource', where)
  const f = underOf(fence, where)
  if (input === null || typeof input !== 'object' || !Array.isArray(/** @type {any} */ (input).TransactItems)) {
    throw new InvalidError(`${where} takes TransactWriteItems' input, { TransactItems: [...] }, not ${describe(input)}`)
  }
  const { TransactItems, ...rest } = /** @type {{ TransactItems: unknown[] }} */ (input)
  const table = tableOf(options, where)
  return f.checked(r, 'dynamodb', () => run(c, r, f.fence, table, [...TransactItems], rest))
}

/**
 * One guarded item: `kind`'s parameters as a transaction's item.
 * @param {'Put' | 'Update' | 'Delete'} kind
 * @param {string} where
 * @returns {(client: unknown, resource: unknown, fence: unknown, params: unknown, options?: unknown) => Promise<void>}
 */
function guarded(kind, where) {
  return async (client, resource, fence, params, options) => {
    const c = clientOf(client, where)
    const r = text(resource, 'resource', where)
    const f = underOf(fence, where)
    const item = itemOf(kind, params, where)
    const table = tableOf(options, where)
    await f.checked(r, 'dynamodb', () => run(c, r, f.fence, table, [item], {}))
  }
}

const dynamodb = Object.freeze({
  ensure,
  putItem: guarded('Put', 'guard.dynamodb.putItem'),
  updateItem: guarded('Update', 'guard.dynamodb.updateItem'),
  deleteItem: guarded('Delete', 'guard.dynamodb.deleteItem'),
  transactWriteItems,
  REGISTER_TABLE,
  MAX_ITEMS,
})

module.exports = { dynamodb }
