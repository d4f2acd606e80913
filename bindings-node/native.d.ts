// The addon's typings, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

/** A one-way switch: once cancelled, every wait given it ends. */
export declare class Cancel {
  /** A switch not yet cancelled. */
  constructor()
  /** Ends the waits given this switch. Idempotent. */
  cancel(): void
}

/** An exclusive hold on one key, with its fence. */
export declare class NativeLease {
  /** The fence, every digit kept. */
  get fence(): bigint
  /** The group's name. */
  get name(): string
  /** The key held, as text. */
  get key(): string
  /** The TTL in milliseconds. */
  get ttl(): number
  /** Whether it is still held. */
  get held(): boolean
  /**
   * Extends it by its TTL; `lease_lost` when it already ran out.
   * At once when it can, else as a promise.
   */
  renew(): undefined | Promise<undefined>
  /**
   * Releases it; idempotent; `lease_lost` when it ran out first.
   * At once when it can, else as a promise.
   */
  release(): undefined | Promise<undefined>
  /**
   * Resolves when it is lost (also after a release) with the
   * reason as `"<code>: <message>"`.
   */
  lost(): Promise<string>
}

/** A group of exclusive locks, one per key. */
export declare class NativeLocks {
  /** The group's name. */
  get name(): string
  /**
   * Waits first come first served for `key`; `null` when
   * `cancel`, if given, fired first (the wait is dropped, nothing
   * leaks).
   * The lease itself when it is granted at once, else a promise.
   */
  acquire(key: string, options?: NativeOptions | undefined | null, cancel?: Cancel | undefined | null): NativeLease | undefined | null | Promise<NativeLease | undefined | null>
  /**
   * Holds `key` if it is free now, else `null`; at once when it
   * can tell, else as a promise.
   */
  tryAcquire(key: string, options?: NativeOptions | undefined | null): NativeLease | undefined | null | Promise<NativeLease | undefined | null>
}

/**
 * `ttl` and `wait` in milliseconds, `renew` on or off; a missing field
 * keeps the group's value.
 */
export interface NativeOptions {
  ttl?: number
  wait?: number
  renew?: boolean
}

/** One of a semaphore key's places; it has no fence. */
export declare class NativePermit {
  /** The group's name. */
  get name(): string
  /** The key held, as text. */
  get key(): string
  /** The TTL in milliseconds. */
  get ttl(): number
  /** Whether it is still held. */
  get held(): boolean
  /**
   * Extends it by its TTL; `lease_lost` when it already ran out.
   * At once when it can, else as a promise.
   */
  renew(): undefined | Promise<undefined>
  /**
   * Releases it; idempotent; `lease_lost` when it ran out first.
   * At once when it can, else as a promise.
   */
  release(): undefined | Promise<undefined>
  /**
   * Resolves when it is lost (also after a release) with the
   * reason as `"<code>: <message>"`.
   */
  lost(): Promise<string>
}

/** A group of semaphores: up to `limit` holders per key at once. */
export declare class NativeSemaphore {
  /** The group's name. */
  get name(): string
  /**
   * Waits first come first served for `key`; `null` when
   * `cancel`, if given, fired first (the wait is dropped, nothing
   * leaks).
   * The lease itself when it is granted at once, else a promise.
   */
  acquire(key: string, options?: NativeOptions | undefined | null, cancel?: Cancel | undefined | null): NativePermit | undefined | null | Promise<NativePermit | undefined | null>
  /**
   * Holds `key` if it is free now, else `null`; at once when it
   * can tell, else as a promise.
   */
  tryAcquire(key: string, options?: NativeOptions | undefined | null): NativePermit | undefined | null | Promise<NativePermit | undefined | null>
}

/** An open store, owned by this process or reached over a connection. */
export declare class NativeStore {
  /** The group of exclusive locks called `name`, with its options. */
  locks(name: string, options?: NativeOptions | undefined | null): NativeLocks
  /** The group of semaphores called `name`, `limit` holders per key. */
  semaphore(name: string, limit: number, options?: NativeOptions | undefined | null): NativeSemaphore
  /** Releases every lease, fails every waiter with `closed`. Idempotent. */
  close(): Promise<void>
}

/**
 * Connects to a store served by `tinystore serve` at `address`
 * (`unix:PATH`, `tcp://HOST:PORT`, a socket's path or a served directory),
 * with the token a TCP server asks for.
 */
export declare function connectStore(address: string, token?: string | undefined | null): Promise<NativeStore>

/**
 * The 40-digit zero-padded text of a fence, which orders as text the way
 * fences order as numbers. Refuses a bigint below 0 or above 2^128-1.
 */
export declare function fenceText(fence: bigint): string

/** Opens the store directory `dir`, making it if missing. */
export declare function openStore(dir: string): Promise<NativeStore>

/**
 * Parses a fence's decimal with the core's strict parser: ASCII digits
 * only, leading zeros allowed, at most 2^128-1.
 */
export declare function parseFence(text: string): bigint
