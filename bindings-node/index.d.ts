// The typings of the npm package `tinystore`: locks whose every exclusive
// lease carries a fence. Times are in milliseconds. Kept by hand beside
// lib/; the tests compile against them with `tsc --strict`.

/** A key: text, or an integer (a number or a bigint), which is its decimal. */
export type Key = string | number | bigint

/** Options of a group or a call; a call's override the group's. */
export interface Options {
  /** How long a lease lives after its grant or last renewal (default 15 000; 10 ms to 24 h). */
  ttl?: number
  /** How long acquire may wait (default: until the signal aborts). */
  wait?: number
  /** Whether a held lease is renewed every ttl/3 until released (default true). */
  renew?: boolean
  /** Ends a wait: the acquire rejects with the signal's reason and no lease leaks. */
  signal?: AbortSignal
}

/** Options of `tryAcquire`, which never waits. */
export interface TryOptions {
  ttl?: number
  renew?: boolean
}

/** Options of `connect`. */
export interface ConnectOptions {
  /** The server's token, for TCP addresses. */
  token?: string
}

/** Opens the store directory `dir`, making it if missing; connects to it when it is served. */
export declare function open(dir: string): Promise<Store>

/**
 * Connects to a store served by `tinystore serve` at `address`: `unix:PATH`,
 * `tcp://HOST:PORT` (with a token), a socket's path or a served directory.
 */
export declare function connect(address: string, options?: ConnectOptions): Promise<Store>

/** Parses a fence's decimal strictly: ASCII digits only, leading zeros allowed, at most 2^128-1. */
export declare function parseFence(text: string): bigint

/** The 40-digit zero-padded text of a fence, which orders as text the way fences order as numbers. */
export declare function fenceText(fence: bigint): string

/** An open store, owned by this process or reached over a connection. */
export declare class Store {
  private constructor()
  /** The group of exclusive locks called `name`, with its options. */
  locks(name: string, options?: Options): Locks
  /** The group of semaphores called `name`: up to `limit` holders per key. */
  semaphore(name: string, limit: number, options?: Options): Semaphore
  /** Releases every lease and fails every waiter with ClosedError. Idempotent. */
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** What a group of locks and a group of semaphores share; `H` is what holding a key gives. */
declare abstract class Group<H> {
  protected constructor()
  readonly name: string
  /** Waits first come first served for `key` and holds it. */
  acquire(key: Key, options?: Options): Promise<H>
  /** Holds `key` if it is free now; else null. */
  tryAcquire(key: Key, options?: TryOptions): Promise<H | null>
  /**
   * Acquires `key`, runs `fn`, and releases what it held however `fn` ends;
   * resolves to what `fn` returned. A lease lost before `fn` ended turns a
   * success into LeaseLostError; it never hides `fn`'s own error.
   */
  hold<T>(key: Key, fn: (held: H) => T | PromiseLike<T>, options?: Options): Promise<T>
}

/** A group of exclusive locks, one per key; its leases carry fences. */
export declare class Locks extends Group<Lease> {}

/** A group of semaphores: up to `limit` holders per key; permits have no fence. */
export declare class Semaphore extends Group<Permit> {
  /** The most holders a key allows at once. */
  readonly limit: number
}

/** What a lease and a permit share. */
declare abstract class Held {
  protected constructor()
  /** The group's name. */
  readonly name: string
  /** The key held, as text. */
  readonly key: string
  /** The TTL in milliseconds. */
  readonly ttl: number
  /** Whether it is still held: false once released, run out or lost. */
  readonly held: boolean
  /** Aborts when it is lost or released; its reason is a TinystoreError (LeaseLostError, ClosedError, ...). */
  readonly signal: AbortSignal
  /** Extends it by its TTL; rejects with LeaseLostError when it ran out. */
  renew(): Promise<void>
  /** Releases it; idempotent; rejects with LeaseLostError when it ran out first. */
  release(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** A semaphore's hold on a key: it has no fence. */
export declare class Permit extends Held {}

/** A lock's hold on a key, with its fence. */
export declare class Lease extends Held {
  /** Larger than every fence the store gave before; every digit kept. */
  readonly fence: bigint
}

/** An error code of DESIGN.md. */
export type Code =
  | 'timeout'
  | 'lease_lost'
  | 'in_use'
  | 'closed'
  | 'invalid'
  | 'limit'
  | 'unauthorized'
  | 'corrupt'
  | 'io'
  | 'unavailable'
  | 'internal'

/** Every error tinystore raises; `code` says which. */
export declare class TinystoreError extends Error {
  constructor(code: Code, message: string, options?: ErrorOptions)
  readonly code: Code
}

declare class CodeError<C extends Code> extends TinystoreError {
  constructor(message: string, options?: ErrorOptions)
  readonly code: C
}

/** `timeout`: a wait ran out before the key was free. */
export declare class WaitTimeoutError extends CodeError<'timeout'> {}
/** `lease_lost`: the lease ran out, was released, or its store or connection went away. */
export declare class LeaseLostError extends CodeError<'lease_lost'> {}
/** `in_use`: the store directory is owned by another process that does not serve it. */
export declare class InUseError extends CodeError<'in_use'> {}
/** `closed`: the store or connection was closed. */
export declare class ClosedError extends CodeError<'closed'> {}
/** `invalid`: a bad name, key, TTL, fence text or argument. */
export declare class InvalidError extends CodeError<'invalid'> {}
/** `limit`: a documented limit was passed. */
export declare class LimitError extends CodeError<'limit'> {}
/** `unauthorized`: a TCP client did not authenticate, or gave a wrong token. */
export declare class UnauthorizedError extends CodeError<'unauthorized'> {}
/** `corrupt`: kv.db could not be read as a tinystore database. */
export declare class CorruptError extends CodeError<'corrupt'> {}
/** `io`: an operating-system I/O error. */
export declare class IoError extends CodeError<'io'> {}
/** `unavailable`: the server could not be reached. */
export declare class UnavailableError extends CodeError<'unavailable'> {}
/** `internal`: a bug or an unexpected state. */
export declare class TinystoreInternalError extends CodeError<'internal'> {}

/** The class for each code. */
export declare const errorClasses: {
  readonly timeout: typeof WaitTimeoutError
  readonly lease_lost: typeof LeaseLostError
  readonly in_use: typeof InUseError
  readonly closed: typeof ClosedError
  readonly invalid: typeof InvalidError
  readonly limit: typeof LimitError
  readonly unauthorized: typeof UnauthorizedError
  readonly corrupt: typeof CorruptError
  readonly io: typeof IoError
  readonly unavailable: typeof UnavailableError
  readonly internal: typeof TinystoreInternalError
}

export {}
