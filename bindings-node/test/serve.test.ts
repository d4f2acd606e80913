// Serving from inside a program and the package's command: serve(dir) lets
// another process hold keys of the store; the `bin` (bin/tinystore.js, the
// CLI run in-process by the addon) answers --help, gives `hold`'s CMD its
// standard streams, and stops `serve` cleanly
// on SIGTERM and SIGINT; a second process that opens an owned, unserved
// store is told how to serve it.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { InUseError, Server, open, serve } from 'tinystore'
import { sleep, tempDir } from './helpers'

const run = promisify(execFile)
const bin = path.resolve(__dirname, '..', 'bin', 'tinystore.js')
// Another process that holds key 1 of group "x" in the store argv[1] and prints the fence.
const holder = `require('tinystore').open(process.argv[1]).then(s => s.locks('x').hold(1, l => l.fence).then(f => s.close().then(() => console.log(String(f)))))`

async function waitFor(file: string): Promise<void> {
  for (let i = 0; !existsSync(file); i++) {
    assert.ok(i < 1500, `${file} did not appear`)
    await sleep(20)
  }
}

test('serve(dir) lets another process hold keys of the store', async () => {
  const data = path.join(tempDir(), 'data')
  const server = await serve(data)
  assert.ok(server instanceof Server)
  assert.equal(server.socket, path.join(data, 'tinystore.sock'))
  const here = await open(data) // served by this process: connects
  const mine = await here.locks('x').acquire(1)
  await mine.release()
  await here.close()
  const { stdout } = await run(process.execPath, ['-e', holder, data], { cwd: __dirname })
  assert.ok(BigInt(stdout.trim()) > mine.fence)
  await server.close()
  assert.equal(existsSync(server.socket), false)
  await server.close() // idempotent
})

test('a second process is told how to serve an owned store', async () => {
  const data = path.join(tempDir(), 'data')
  const owner = await open(data)
  try {
    const failed = await run(process.execPath, ['-e', holder, data], { cwd: __dirname }).then(
      () => assert.fail('a second process opened an owned store'),
      (err: { stderr: string }) => err.stderr,
    )
    assert.match(failed, /InUseError/)
    assert.ok(failed.includes(`tinystore serve ${data}`) && failed.includes('tinystore.serve(dir)'), failed)
    await assert.rejects(serve(data), InUseError)
  } finally {
    await owner.close()
  }
})

test('the bin answers --help', async () => {
  const { stdout } = await run(process.execPath, [bin, '--help'])
  for (const command of ['serve', 'hold', 'status', 'backup', 'restore', 'demo']) assert.match(stdout, new RegExp(command))
  const usage = await run(process.execPath, [bin, 'no-such-command']).then(
    () => assert.fail('an unknown command succeeded'),
    (err: { code: number; stderr: string }) => err,
  )
  assert.equal(usage.code, 2)
  assert.match(usage.stderr, /no-such-command/)
})

test("the bin's hold gives CMD this process's standard streams", async () => {
  // Node marks its standard streams close-on-exec: CMD must get copies.
  const data = path.join(tempDir(), 'data')
  const server = await serve(data)
  try {
    const { stdout, stderr } = await run(process.execPath, [
      bin, 'hold', data, 'x', '1', '--', 'sh', '-c', 'echo "fence=$TINYSTORE_FENCE"; echo to-stderr >&2',
    ])
    assert.match(stdout, /^fence=[0-9]+\n$/)
    assert.match(stderr, /to-stderr/)
  } finally {
    await server.close()
  }
})

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`the bin's serve stops cleanly on ${signal}`, async () => {
    const data = path.join(tempDir(), 'data')
    const child = spawn(process.execPath, [bin, 'serve', data], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', chunk => (stderr += chunk))
    try {
      await waitFor(path.join(data, 'tinystore.sock'))
      const { stdout } = await run(process.execPath, ['-e', holder, data], { cwd: __dirname })
      assert.match(stdout, /^[0-9]+\n$/)
      child.kill(signal)
      const [code] = await once(child, 'exit')
      assert.equal(code, 0, stderr)
      assert.match(stderr, /stopped cleanly/)
      assert.equal(existsSync(path.join(data, 'tinystore.sock')), false)
    } finally {
      child.kill('SIGKILL')
    }
  })
}
