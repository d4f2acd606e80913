// What the tests share: a fresh store directory and the repository's paths.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after } from 'node:test'

/** The repository root (the tests run from bindings-node/.test-build). */
export const repo = path.resolve(__dirname, '..', '..')

/** A new empty directory, removed when the test file ends. */
export function tempDir(prefix = 'tinystore-node-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}

/** A promise with its resolve function outside. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void
  const promise = new Promise<T>(resolve => {
    open = resolve
  })
  return { promise, open }
}
