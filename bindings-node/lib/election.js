'use strict'
// Election: a lock whose holder is named, the leader; its fence is the
// leader's term. campaign waits as acquire does (the core's cancellable
// Acquiring under an AbortSignal), lead ends as hold does (the core's
// rule), a Leadership's `signal` aborts on loss as a lease's does, and
// observe is the core's Observing as an async iterable.
const { InvalidError, mappedSync, settled } = require('./errors')
const { describe, nativeOptions, signalOf } = require('./convert')
const { Holding } = require('./lease')
const { acquired, eitherSignal, holding } = require('./hold')
const { Following } = require('./following')

/**
 * A leader as JS sees it: its value and term.
 * @param {import('../native').NativeLeader} leader
 * @returns {{ readonly value: string, readonly fence: bigint }}
 */
function leaderOf(leader) {
  return Object.freeze({ value: leader.value, fence: leader.fence })
}

class Election {
  /** @type {import('../native').NativeElection} */
  #native
  /** @type {AbortSignal | undefined} */
  #signal
  /** @type {string} */
  #name

  /**
   * @param {import('../native').NativeElection} election
   * @param {AbortSignal | undefined} signal
   */
  constructor(election, signal) {
    this.#native = election
    this.#signal = signal
    this.#name = election.name
  }

  /** The election's name. */
  get name() {
    return this.#name
  }

  /**
   * Waits first come first served until this caller leads with `value`
   * (text of at most 1,024 bytes), until `wait` runs out
   * (WaitTimeoutError) or the signal aborts (its reason); a campaign given
   * up never leads.
   * @param {string} value
   * @param {import('../index').Options} [options]
   * @returns {Promise<Leadership>}
   */
  async campaign(value, options) {
    if (typeof value !== 'string') throw new InvalidError(`the value of a campaign in ${this.name} is a string, not ${describe(value)}`)
    const opts = nativeOptions(options, this.name)
    const signal = eitherSignal(this.#signal, signalOf(options, this.name))
    signal?.throwIfAborted()
    const election = this.#native
    const acquiring = mappedSync(() => election.campaigning(value, opts))
    return new Leadership(await acquired(acquiring, signal, `election ${this.name}`))
  }

  /**
   * Campaigns, runs `fn` while leading, and resigns however `fn` ends; as
   * `hold`: `fn`'s own error first, else ClosedError or LeaseLostError when
   * the leadership was lost before `fn` ended, else what `fn` returned.
   * `l.signal` aborts when it is lost.
   * @template T
   * @param {string} value
   * @param {(leadership: Leadership) => T | PromiseLike<T>} fn
   * @param {import('../index').Options} [options]
   * @returns {Promise<T>}
   */
  async lead(value, fn, options) {
    if (typeof fn !== 'function') throw new InvalidError(`lead in ${this.name} needs a function, not ${describe(fn)}`)
    return holding(await this.campaign(value, options), fn)
  }

  /**
   * The leader now, or null when nobody leads.
   * @returns {Promise<{ readonly value: string, readonly fence: bigint } | null>}
   */
  async leader() {
    const election = this.#native
    const leader = await settled(() => election.leader())
    return leader ? leaderOf(leader) : null
  }

  /**
   * Every change of leader from now on, in order: the leader now (or null)
   * first, then each change, null when nobody leads. Ends when the
   * signal aborts, on `break` (or `return()`), or with the error that
   * ended it (ClosedError, LimitError).
   * @param {{ signal?: AbortSignal }} [options]
   * @returns {Observer}
   */
  observe(options) {
    const signal = eitherSignal(this.#signal, signalOf(options, this.name))
    const election = this.#native
    return new Observer(mappedSync(() => election.observe()), signal)
  }
}

/** @extends {Holding<import('../native').NativeLeadership>} */
class Leadership extends Holding {
  /** @type {import('../native').NativeLeadership} */
  #native
  /** @type {bigint | undefined} */
  #fence

  /** @param {import('../native').NativeLeadership} native */
  constructor(native) {
    super(native)
    this.#native = native
  }

  /** The value this leader campaigned with. */
  get value() {
    return this.#native.value
  }

  /** The term: larger than every earlier leader's; every digit kept. */
  get fence() {
    this.#fence ??= this.#native.fence
    return this.#fence
  }

  /**
   * Stops leading: the next in the queue leads at once, with a larger term.
   * Idempotent; when it was lost first, rejects with ClosedError or
   * LeaseLostError.
   */
  resign() {
    const leadership = this.#native
    return settled(() => leadership.resign())
  }

  /** Resigns at the end of an `await using` block. */
  [Symbol.asyncDispose]() {
    return this.resign()
  }
}

/**
 * @param {import('../native').NativeChange} change
 * @returns {{ done: true } | { done: false, value: { readonly value: string, readonly fence: bigint } | null }}
 */
function readChange(change) {
  return change.done ? { done: true } : { done: false, value: change.leader ? leaderOf(change.leader) : null }
}

/**
 * The changes of an election's leader, as an async iterable iterator
 * (following.js).
 * @extends {Following<import('../native').NativeChange, { readonly value: string, readonly fence: bigint } | null>}
 */
class Observer extends Following {
  /**
   * @param {import('../native').NativeObserver} native
   * @param {AbortSignal | undefined} signal
   */
  constructor(native, signal) {
    super(native, readChange, signal)
  }
}

module.exports = { Election, Leadership, Observer }
