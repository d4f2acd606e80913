// The addon's typings of src/watch.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

/**
 * One event: `kind` is `granted` (`key`, `fence`, `data`), `released`
 * (`key`, `fence`), `lost` (`key`, `fence`, `cause`), `queue` (`key`,
 * `length`) or `lagged` (`missed`); the fields a kind has not are absent.
 */
export interface NativeWatchEvent {
  kind: string
  key?: string
  fence?: bigint
  data?: string
  cause?: string
  length?: number
  missed?: number
}

/** What a watcher's `next` gives: `done` once it ended, else `event`. */
export interface NativeWatchNext {
  done: boolean
  event?: NativeWatchEvent
}

/** The events of a watched key or group, in the store's order. */
export declare class NativeWatcher {
  /**
   * The next event: at once when it is there, else as a promise; `done`
   * once it ended. Fails once with why it ended (`closed`,
   * `unavailable`, `invalid` for a bad key).
   */
  next(): NativeWatchNext | Promise<NativeWatchNext>
  /**
   * Stops watching: a `next` under way and every later one give `done`.
   * Idempotent.
   */
  close(): void
}
