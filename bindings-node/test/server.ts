// Starts `tinystore serve` as a real process for the tests that go
// through a server.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { repo } from './helpers'

/** The tinystore binary: $TINYSTORE_BIN, or the workspace's debug build. */
export const tinystoreBin = process.env.TINYSTORE_BIN ?? path.join(repo, 'target', 'debug', 'tinystore')

/** A running server. */
export interface Server {
  process: ChildProcess
  socket: string
  /** `tcp://HOST:PORT`, or `tls://HOST:PORT` with `--tls-cert`. */
  tcp?: string
  /** Stops it with SIGTERM (or `signal`) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
  /** What it wrote to stderr so far (its `serving` line included). */
  said(): string
}

/** Serves `dir`, on TCP too when `token` is given, with `extra` arguments
 * (e.g. `--tls-cert`); resolves once it listens. */
export async function serve(dir: string, token?: string, extra: string[] = []): Promise<Server> {
  if (!existsSync(tinystoreBin)) throw new Error(`no tinystore binary at ${tinystoreBin}: build tinystore-cli or set TINYSTORE_BIN`)
  const args = ['serve', dir]
  if (token !== undefined) {
    const file = path.join(dir, '..', `${path.basename(dir)}.token`)
    writeFileSync(file, token, { mode: 0o600 })
    args.push('--tcp', '127.0.0.1:0', '--token-file', file)
  }
  args.push(...extra)
  const child = spawn(tinystoreBin, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let said = ''
  const exited = once(child, 'exit')
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', chunk => {
      said += String(chunk)
      if (/serving[^\n]*\n/.test(said)) resolve() // the whole line, TCP address included
    })
    exited.then(([code]) => reject(new Error(`tinystore serve exited with ${code}: ${said}`)))
  })
  const tcp = /and ((?:tcp|tls):\/\/\S+)/.exec(said)?.[1]
  return {
    process: child,
    socket: path.join(dir, 'tinystore.sock'),
    tcp,
    said: () => said,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal)
        await exited
      }
    },
  }
}
