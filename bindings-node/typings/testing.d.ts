// The addon's typings of src/testing.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeStore } from './store'

/**
 * A test store: a new store in a temporary directory whose time the test
 * controls, embedded or served by this process, until `close`.
 */
export declare class NativeTestStore {
  /** The store. */
  get store(): NativeStore
  /** Where other processes connect (`unix:PATH`), when served. */
  get address(): string | null
  /** The store's directory, removed on close. */
  get dir(): string
  /**
   * Closes the store, stops its server when served, and removes the
   * directory. Idempotent.
   */
  close(): Promise<void>
}

/** An embedded test store: this process owns it. */
export declare function openTestStore(): Promise<NativeTestStore>

/**
 * A test store served by this process on its Unix socket (as `tinystore
 * serve --testing` would), its store connected to it.
 */
export declare function serveTestStore(): Promise<NativeTestStore>
