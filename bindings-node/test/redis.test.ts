// The Redis guard (guard.redis) on a real redis-server at
// $TINYSTORE_REDIS_URL (tests/guards/with-redis.sh), through both clients
// it takes: ioredis and node-redis (`redis`). For each: the rule on SET,
// DEL and HSET (equal accepted, a smaller fence refused with the three and
// nothing written, fences above 2^64), the caller's own script, a script
// flushed from the server's cache (NOSCRIPT, then EVAL), bad input refused
// before any call, a client whose server is not there, a write Redis
// refuses (WRONGTYPE), and a fence key edited by hand. Without the URL
// these tests skip, unless TINYSTORE_REQUIRE_REDIS=1 (make test-node). The
// conformance matrix (guard-conformance.test.mjs) runs the rest (NOPERM).
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import { Redis } from 'ioredis'
import { createClient } from 'redis'
import {
  CorruptError,
  InvalidError,
  StaleError,
  TinystoreError,
  fenceText,
  guard,
  open as openStore,
  type GuardRedisClient,
} from 'tinystore'
import { tempDir } from './helpers'

const url = process.env.TINYSTORE_REDIS_URL
if (!url && process.env.TINYSTORE_REQUIRE_REDIS === '1') {
  throw new Error('TINYSTORE_REDIS_URL is unset, and TINYSTORE_REQUIRE_REDIS=1 forbids skipping the Redis guard tests')
}
const redisTest = url ? test : test.skip

// How the guard describes a client's error to the core, and the core's class of it.
const load = createRequire(__filename)
const { guardFailureClass } = load('../lib/native') as { guardFailureClass(failure: unknown): string }
const { redisFailureOf } = load('../lib/guard_driver') as { redisFailureOf(err: unknown): unknown }
const classOf = (err: unknown): string => guardFailureClass(redisFailureOf(err))

/** A client of one kind, the plain commands the tests read with, and its end. */
interface Kind {
  name: string
  open(): Promise<{ client: GuardRedisClient; get(key: string): Promise<string | null>; hgetall(key: string): Promise<Record<string, string>>; raw(...args: string[]): Promise<unknown>; close(): Promise<void> }>
  /** A client of this kind whose server is not there, made to fail at once. */
  dead(port: number): Promise<{ client: GuardRedisClient; close(): Promise<void> }>
}

const ioredis: Kind = {
  name: 'ioredis',
  async open() {
    const client = new Redis(url ?? '')
    return {
      client,
      get: key => client.get(key),
      hgetall: key => client.hgetall(key),
      raw: (command, ...args) => client.call(command, ...args),
      close: async () => void client.disconnect(),
    }
  },
  async dead(port) {
    const client = new Redis({
      host: '127.0.0.1',
      port,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    client.on('error', () => {})
    await client.connect().catch(() => {})
    return { client, close: async () => void client.disconnect() }
  },
}

const nodeRedis: Kind = {
  name: 'node-redis',
  async open() {
    const client = await createClient({ url }).connect()
    return {
      client,
      get: key => client.get(key),
      hgetall: key => client.hGetAll(key),
      raw: (...args) => client.sendCommand(args),
      close: () => client.close(),
    }
  },
  async dead(port) {
    const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false } })
    client.on('error', () => {})
    await client.connect().catch(() => {})
    return { client, close: async () => client.destroy() }
  },
}

/** A key of this run's own. */
const keyOf = (name: string) => `tinystore-test-node:${randomBytes(6).toString('hex')}:${name}`
/** The fence key of a key without a hash tag. */
const register = (key: string) => `{${key}}:tinystore-fence`

/** What `call` rejected with (it must reject). */
async function rejection(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call()
  } catch (err) {
    return err
  }
  assert.fail('expected a rejection')
}

/** A client of `kind` that records the methods the guard called on it. */
function spied(client: GuardRedisClient): { client: GuardRedisClient; calls: string[] } {
  const calls: string[] = []
  const target = client as unknown as Record<string, (...args: unknown[]) => unknown>
  const spy = new Proxy(target, {
    get(on, name) {
      const value = Reflect.get(on, name)
      if (typeof value !== 'function' || !['eval', 'evalsha', 'evalSha'].includes(String(name))) return value
      return (...args: unknown[]) => {
        calls.push(String(name).toLowerCase())
        return value.apply(on, args)
      }
    },
  })
  return { client: spy as unknown as GuardRedisClient, calls }
}

/** A loopback port nothing listens on (one just given up). */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise(resolve => server.close(resolve))
  return port
}

const OWN = "redis.call('RPUSH', KEYS[2], ARGV[1]) redis.call('SET', KEYS[1], ARGV[1]) return redis.call('LLEN', KEYS[2])"

for (const kind of [ioredis, nodeRedis]) {
  redisTest(`${kind.name}: set accepts equal and larger fences, refuses a smaller one with the three`, async () => {
    const r = await kind.open()
    try {
      const k = keyOf('set')
      await guard.redis.set(r.client, k, 'v5', 5n)
      await guard.redis.set(r.client, k, 'v5 again', 5n)
      await guard.redis.set(r.client, k, 'v7', 7n)
      const err = await rejection(() => guard.redis.set(r.client, k, 'late', 6n))
      assert.ok(err instanceof StaleError, String(err))
      assert.deepEqual([err.resource, err.fence, err.largest], [k, 6n, 7n])
      assert.equal(await r.get(k), 'v7')
      assert.equal(await r.get(register(k)), fenceText(7n))
    } finally {
      await r.close()
    }
  })

  redisTest(`${kind.name}: fences above 2^64 compare as numbers`, async () => {
    const r = await kind.open()
    try {
      const k = keyOf('big')
      const big = 2n ** 64n
      await guard.redis.set(r.client, k, 'big+1', big + 1n)
      const err = await rejection(() => guard.redis.set(r.client, k, 'big', big))
      assert.ok(err instanceof StaleError, String(err))
      assert.deepEqual([err.fence, err.largest], [big, big + 1n])
      await guard.redis.set(r.client, k, 'max', 2n ** 128n - 1n)
      assert.equal(await r.get(register(k)), fenceText(2n ** 128n - 1n))
      assert.ok((await rejection(() => guard.redis.set(r.client, k, 'over', 2n ** 128n))) instanceof InvalidError)
    } finally {
      await r.close()
    }
  })

  redisTest(`${kind.name}: delete keeps the fence, so a late set stays refused`, async () => {
    const r = await kind.open()
    try {
      const k = keyOf('del')
      await guard.redis.set(r.client, k, 'v', 3n)
      await guard.redis.delete(r.client, k, 4n)
      assert.equal(await r.get(k), null)
      const err = await rejection(() => guard.redis.set(r.client, k, 'late', 3n))
      assert.ok(err instanceof StaleError, String(err))
      assert.equal(await r.get(k), null)
      assert.equal(await r.get(register(k)), fenceText(4n))
    } finally {
      await r.close()
    }
  })

  redisTest(`${kind.name}: hset writes its fields, a late one writes none`, async () => {
    const r = await kind.open()
    try {
      const k = `user:{${randomBytes(6).toString('hex')}}:profile`
      await guard.redis.hset(r.client, k, { name: 'ada', plan: 'pro' }, 2n)
      assert.deepEqual({ ...(await r.hgetall(k)) }, { name: 'ada', plan: 'pro' })
      assert.equal(await r.get(`${k}:tinystore-fence`), fenceText(2n))
      const err = await rejection(() => guard.redis.hset(r.client, k, { plan: 'free', late: 'yes' }, 1n))
      assert.ok(err instanceof StaleError, String(err))
      assert.deepEqual({ ...(await r.hgetall(k)) }, { name: 'ada', plan: 'pro' })
    } finally {
      await r.close()
    }
  })

  redisTest(`${kind.name}: the caller's own script runs behind the check and gives its reply`, async () => {
    const r = await kind.open()
    try {
      const k = keyOf('own')
      const log = `{${k}}:log`
      assert.equal(await guard.redis.script(r.client, k, OWN, 5n, { keys: [log], args: ['five'] }), 1)
      assert.equal(await guard.redis.script(r.client, k, OWN, 5n, { keys: [log], args: ['five again'] }), 2)
      assert.equal(await guard.redis.script(r.client, k, "return redis.call('GET', KEYS[1])", 6n), 'five again')
      assert.equal(await guard.redis.script(r.client, k, 'return nil', 6n), null)
      const err = await rejection(() => guard.redis.script(r.client, k, OWN, 4n, { keys: [log], args: ['late'] }))
      assert.ok(err instanceof StaleError, String(err))
      assert.deepEqual([err.resource, err.fence, err.largest], [k, 4n, 6n])
      assert.deepEqual(await r.raw('LRANGE', log, '0', '-1'), ['five', 'five again'])
      assert.equal(await r.get(k), 'five again')
      assert.equal(await r.get(register(k)), fenceText(6n))
    } finally {
      await r.close()
    }
  })

  redisTest(`${kind.name}: a script flushed from the server's cache is sent again (NOSCRIPT, then EVAL)`, async () => {
    const r = await kind.open()
    try {
      const k = keyOf('flush')
      const spy = spied(r.client)
      await guard.redis.set(spy.client, k, 'a', 1n)
      await r.raw('SCRIPT', 'FLUSH')
      spy.calls.length = 0
      await guard.redis.set(spy.client, k, 'b', 2n)
      assert.deepEqual(spy.calls, ['evalsha', 'eval'])
      spy.calls.length = 0
      await guard.redis.set(spy.client, k, 'c', 3n)
      assert.deepEqual(spy.calls, ['evalsha'])
      await r.raw('SCRIPT', 'FLUSH')
      assert.equal(await guard.redis.script(spy.client, k, "return redis.call('GET', KEYS[1])", 3n), 'c')
      const err = await rejection(() => guard.redis.set(spy.client, k, 'late', 2n))
      assert.ok(err instanceof StaleError, String(err))
      assert.equal(await r.get(k), 'c')
    } finally {
      await r.close()
    }
  })

  redisTest(`${kind.name}: bad input is InvalidError before any call`, async () => {
    const r = await kind.open()
    try {
      const spy = spied(r.client)
      const k = keyOf('bad')
      const bad: [string, () => Promise<unknown>][] = [
        ['an empty key', () => guard.redis.set(spy.client, '', 'v', 1n)],
        ['a key over 1,024 bytes', () => guard.redis.set(spy.client, 'x'.repeat(1025), 'v', 1n)],
        ['a NUL', () => guard.redis.set(spy.client, 'a\u0000b', 'v', 1n)],
        ["a '}' outside a hash tag", () => guard.redis.set(spy.client, 'a}b', 'v', 1n)],
        ['a lone surrogate in the key', () => guard.redis.delete(spy.client, 'chats/\ud800', 1n)],
        ['a lone surrogate in the value', () => guard.redis.set(spy.client, k, 'v\udc00', 1n)],
        ['an empty mapping', () => guard.redis.hset(spy.client, k, {}, 1n)],
        ['a value not a string', () => guard.redis.hset(spy.client, k, { f: 7 as unknown as string }, 1n)],
        ['a fence not a bigint', () => guard.redis.set(spy.client, k, 'v', 1 as unknown as bigint)],
        ['a negative fence', () => guard.redis.set(spy.client, k, 'v', -1n)],
        ['a script key in another slot', () => guard.redis.script(spy.client, 'user:{42}:a', 'return 1', 1n, { keys: ['user:{43}:b'] })],
        ['an empty script', () => guard.redis.script(spy.client, k, ' ', 1n)],
        ['a script argument not a string', () => guard.redis.script(spy.client, k, 'return 1', 1n, { args: [1 as unknown as string] })],
        ['a client of another kind', () => guard.redis.set({ get() {} } as unknown as GuardRedisClient, k, 'v', 1n)],
      ]
      for (const [what, call] of bad) {
        const err = await rejection(call)
        assert.ok(err instanceof InvalidError, `${what}: ${err}`)
      }
      assert.deepEqual(spy.calls, [])
      assert.equal(await r.get(register(k)), null)
    } finally {
      await r.close()
    }
  })

  redisTest(`${kind.name}: a server that is not there gives the client's own error, unavailable`, async () => {
    const dead = await kind.dead(await deadPort())
    try {
      const err = await rejection(() => guard.redis.set(dead.client, keyOf('gone'), 'v', 1n))
      assert.ok(err instanceof Error && !(err instanceof TinystoreError), `not the client's own error: ${err}`)
      assert.equal(classOf(err), 'unavailable', String(err))
    } finally {
      await dead.close()
    }
  })

  redisTest(`${kind.name}: a write Redis refuses (WRONGTYPE) is the client's error and records nothing`, async () => {
    const r = await kind.open()
    try {
      const k = keyOf('wrongtype')
      await r.raw('SET', k, 'a string')
      const err = await rejection(() => guard.redis.hset(r.client, k, { f: 'v' }, 1n))
      assert.ok(err instanceof Error && !(err instanceof TinystoreError), `not the client's own error: ${err}`)
      assert.match(err.message, /^WRONGTYPE/)
      assert.equal(classOf(err), 'other')
      assert.equal(await r.get(register(k)), null)
      assert.equal(await r.get(k), 'a string')
    } finally {
      await r.close()
    }
  })

  redisTest(`${kind.name}: a fence key edited by hand is CorruptError naming it, and nothing is written`, async () => {
    const r = await kind.open()
    try {
      const k = keyOf('corrupt')
      await guard.redis.set(r.client, k, 'v', 1n)
      await r.raw('SET', register(k), 'junk')
      const err = await rejection(() => guard.redis.set(r.client, k, 'w', 2n))
      assert.ok(err instanceof CorruptError, String(err))
      assert.ok(err.message.includes(register(k)), err.message)
      assert.equal(await r.get(k), 'v')
      assert.equal(await r.get(register(k)), 'junk')
    } finally {
      await r.close()
    }
  })
}

redisTest('given the lease, a refusal is told to its store', async () => {
  const store = await openStore(tempDir('tinystore-redis-told-'))
  const { client, close } = await ioredis.open()
  try {
    const chats = store.locks('chats')
    const old = await chats.acquire('42')
    await old.release()
    const fresh = await chats.acquire('42')
    const k = `tinystore-test-node:${randomBytes(8).toString('hex')}:told`
    await guard.redis.set(client, k, 'new', fresh)
    await assert.rejects(guard.redis.hset(client, k, { f: 'late' }, old), StaleError)
    await assert.rejects(guard.redis.delete(client, k, old.fence), StaleError) // the fence alone: told to nobody
    const told = (await store.status()).lateWritesRefused.map(g => [g.name, g.kind, g.refused])
    assert.deepEqual(told, [['chats', 'lock', 1]])
  } finally {
    await close()
    await store.close()
  }
})
