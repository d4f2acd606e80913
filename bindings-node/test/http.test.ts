// Fences over HTTP (http, fenceHeaders) with node:http servers and clients
// on loopback: every fence_header case of vectors/behaviour.json read by
// the middleware, a handler's StaleError from the SQL guard (better-sqlite3)
// answered 409 with Tinystore-Fence-Largest, the middleware and the error
// handler chained Connect-style, and the client's fetch helper.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { InvalidError, fenceHeaders, guard, http, parseFence, type FencedRequest } from 'tinystore'
import { repo } from './helpers'

/** Serves `listener` on a loopback port for the length of `body`. */
async function serving<T>(listener: RequestListener, body: (base: string) => Promise<T>): Promise<T> {
  const server = createServer(listener)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  } finally {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
  }
}

interface Answer {
  status: number
  headers: IncomingMessage['headers']
  body: string
}

/** A POST with the given headers, sent as they are by node:http. */
function post(base: string, headers: Record<string, string | string[]>, body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/`, { method: 'POST', headers }, res => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', chunk => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A handler that answers the fence the middleware read. */
function echo(req: FencedRequest, res: ServerResponse): void {
  res.end(req.tinystoreFence === undefined ? 'none' : `fence ${req.tinystoreFence}`)
}

test('every fence_header vector, read by the middleware over HTTP', async () => {
  const all = JSON.parse(readFileSync(path.join(repo, 'vectors', 'behaviour.json'), 'utf8'))
  const cases: { id: string; value: string | null; expect: string; fence?: string; message_has?: string }[] =
    all.fence_header.cases
  assert.ok(cases.length >= 10, 'the fence_header vectors have lost cases')
  await serving(http.fenced(echo), async base => {
    for (const c of cases) {
      const got = await post(base, c.value === null ? {} : { 'Tinystore-Fence': c.value })
      if (c.expect === 'none') {
        assert.deepEqual([got.status, got.body], [200, 'none'], c.id)
      } else if (c.expect === 'fence') {
        assert.deepEqual([got.status, got.body], [200, `fence ${parseFence(c.fence as string)}`], c.id)
      } else {
        assert.equal(c.expect, 'invalid', c.id)
        assert.equal(got.status, http.BAD_REQUEST, `${c.id}: ${got.body}`)
        assert.ok(got.body.includes(c.message_has as string), `${c.id}: ${got.body}`)
        assert.match(got.body, /^header Tinystore-Fence: /, c.id)
      }
    }
    // The header sent twice arrives joined by a comma: malformed.
    const twice = await post(base, { 'Tinystore-Fence': ['42', '43'] })
    assert.equal(twice.status, 400, twice.body)
  })
})

test('a StaleError from the handler\'s guard is 409 with the largest fence', async () => {
  const db = new Database(':memory:')
  guard.ensure(db)
  db.exec('create table summaries (chat text primary key, summary text)')
  const save = db.transaction((chat: string, summary: string, fence: bigint) => {
    db.prepare('insert or replace into summaries values (?, ?)').run(chat, summary)
    guard.check(db, `chats/${chat}`, fence)
  })
  const handler = async (req: FencedRequest & IncomingMessage, res: ServerResponse): Promise<void> => {
    let body = ''
    for await (const chunk of req) body += chunk
    if (req.tinystoreFence === undefined) {
      res.statusCode = 428
      res.end('a fence is required')
      return
    }
    save('7', body, req.tinystoreFence)
    res.end('saved')
  }
  await serving(http.fenced(handler), async base => {
    assert.deepEqual((await post(base, fenceHeaders(9n), 'by nine')).body, 'saved')
    const late = await post(base, fenceHeaders(7n), 'by seven')
    assert.equal(late.status, http.CONFLICT)
    assert.equal(late.headers['tinystore-fence-largest'], '9')
    assert.match(late.body, /"chats\/7".*7.*9/)
    assert.equal((await post(base, fenceHeaders(9n), 'again')).body, 'saved')
    assert.equal((await post(base, {})).status, 428)
  })
  assert.deepEqual(db.prepare('select summary from summaries').all(), [{ summary: 'again' }])
  db.close()
})

test('the middleware and the error handler chain Connect-style; other errors go on', async () => {
  const read = http.middleware()
  const answer = http.errorHandler()
  const passed: unknown[] = []
  const boom = new Error('the handler\'s own failure')
  // A chain as Connect or Express runs one: middleware, handler, error handler, final handler.
  const listener: RequestListener = (req, res) => {
    const final = (err?: unknown) => {
      passed.push(err)
      res.statusCode = 500
      res.end('final')
    }
    read(req, res, err => {
      if (err !== undefined) return answer(err, req, res, final)
      const fence = (req as FencedRequest).tinystoreFence
      try {
        if (req.url === '/boom') throw boom
        if (fence === 3n) throw new InvalidError('a handler\'s own invalid argument')
        res.end(`ok ${fence}`)
      } catch (thrown) {
        answer(thrown, req, res, final)
      }
    })
  }
  await serving(listener, async base => {
    assert.equal((await post(base, fenceHeaders(5n))).body, 'ok 5')
    const bad = await post(base, { 'Tinystore-Fence': '0x5' })
    assert.deepEqual([bad.status, bad.headers['content-type']], [400, 'text/plain; charset=utf-8'])
    assert.equal((await post(base, fenceHeaders(3n))).status, 400)
    const failed = await new Promise<Answer>((resolve, reject) => {
      const req = request(`${base}/boom`, { method: 'POST', headers: fenceHeaders(1n) }, res => {
        let text = ''
        res.on('data', c => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      })
      req.on('error', reject)
      req.end()
    })
    assert.deepEqual([failed.status, failed.body], [500, 'final'])
  })
  assert.deepEqual(passed, [boom])
  assert.equal(http.statusOf(boom), undefined)
})

test('http.fenced answers an error of its own with a bare 500, handed to onError', async () => {
  const seen: unknown[] = []
  await serving(
    http.fenced(() => Promise.reject(new Error('secret detail')), err => seen.push(err)),
    async base => {
      const got = await post(base, {})
      assert.deepEqual([got.status, got.body], [500, ''])
    },
  )
  assert.equal(seen.length, 1)
  assert.match(String(seen[0]), /secret detail/)
})

test('the client\'s helpers attach the fence', async () => {
  assert.deepEqual(fenceHeaders(42n), { 'Tinystore-Fence': '42' })
  assert.equal(http.fenceHeaders, fenceHeaders)
  assert.deepEqual(fenceHeaders((1n << 128n) - 1n), { 'Tinystore-Fence': '340282366920938463463374607431768211455' })
  assert.throws(() => fenceHeaders(1n << 128n), InvalidError)
  assert.throws(() => fenceHeaders(-1n), InvalidError)
  assert.throws(() => fenceHeaders(42 as never), InvalidError)
  const seen: (string | string[] | undefined)[][] = []
  await serving(
    (req, res) => {
      seen.push([req.headers['tinystore-fence'], req.headers['x-mine']])
      res.end()
    },
    async base => {
      const res = await http.fetch(`${base}/`, 42n, { method: 'POST', headers: { 'X-Mine': 'kept', 'Tinystore-Fence': '1' } })
      assert.equal(res.status, 200)
      await http.fetch(new Request(`${base}/r`, { headers: { 'X-Mine': 'from the request' } }), 7n)
      await assert.rejects(http.fetch(`${base}/`, 1n << 128n), InvalidError)
    },
  )
  assert.deepEqual(seen, [
    ['42', 'kept'],
    ['7', 'from the request'],
  ])
})
