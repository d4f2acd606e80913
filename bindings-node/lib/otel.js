'use strict'
// OpenTelemetry: spans for a wait (tinystore.wait), a hold (tinystore.hold)
// and a guard's check (tinystore.guard.check), and the counter of late
// writes refused by guards (tinystore.guard.refused); docs/observe.md
// names their attributes. @opentelemetry/api is an optional peer
// dependency, required at first use: without it, or while no tracer (and
// meter) provider is registered, each call costs one look at the global
// provider and makes no span.

/** @typedef {import('@opentelemetry/api').Span} Span */
/** @typedef {import('@opentelemetry/api').Tracer} Tracer */
/** @typedef {import('@opentelemetry/api').Counter} Counter */

const SCOPE = 'tinystore'

/** @type {typeof import('@opentelemetry/api') | null | undefined} undefined: not looked for yet */
let api
/** @type {Tracer | undefined} */
let tracer
/** @type {Counter | undefined} */
let counter

/** @returns {typeof import('@opentelemetry/api') | null} */
function loaded() {
  if (api === undefined) {
    try {
      api = require('@opentelemetry/api')
    } catch {
      api = null
    }
  }
  return /** @type {typeof import('@opentelemetry/api') | null} */ (api)
}

/**
 * Whether `provider` is the API's own: the proxy with no provider
 * registered behind it, or the no-op.
 * @param {unknown} provider
 */
function isNoop(provider) {
  const delegate = /** @type {{ getDelegate?: () => unknown }} */ (provider).getDelegate?.() ?? provider
  const name = /** @type {{ constructor?: { name?: string } }} */ (delegate).constructor?.name
  return name === 'NoopTracerProvider' || name === 'NoopMeterProvider'
}

/**
 * The API's proxy provider and its no-op delegate, kept from the first
 * look while no provider is registered: asking the proxy for its delegate
 * is cheaper than getTracerProvider(), which looks up the global each
 * time, and registering a provider makes it the proxy's delegate.
 * @type {{ getDelegate(): unknown } | undefined}
 */
let proxy
/** @type {unknown} */
let noop

/** The tracer of tinystore's spans; undefined while none would record. */
function tracing() {
  if (tracer) return tracer
  if (proxy && proxy.getDelegate() === noop) return undefined
  const otel = loaded()
  if (!otel) return undefined
  const provider = otel.trace.getTracerProvider()
  if (isNoop(provider)) {
    const delegating = /** @type {{ getDelegate?: () => unknown }} */ (provider)
    if (typeof delegating.getDelegate === 'function') {
      proxy = /** @type {{ getDelegate(): unknown }} */ (delegating)
      noop = proxy.getDelegate()
    }
    return undefined
  }
  tracer = otel.trace.getTracer(SCOPE)
  return tracer
}

/** The refused-writes counter; undefined while none would record. */
function counting() {
  if (counter) return counter
  const otel = loaded()
  if (!otel) return undefined
  const provider = otel.metrics.getMeterProvider()
  if (isNoop(provider)) return undefined
  counter = otel.metrics.getMeter(SCOPE).createCounter('tinystore.guard.refused', {
    unit: '{write}',
    description: "Late writes refused by tinystore's guards as stale",
  })
  return counter
}

/** A fence as the spans carry it: 40 decimal digits. @param {bigint} fence */
function fenceText(fence) {
  return fence.toString().padStart(40, '0')
}

/** @param {unknown} err */
function codeOf(err) {
  const code = /** @type {{ code?: unknown }} */ (err)?.code
  return typeof code === 'string' ? code : err instanceof Error ? err.name : 'other'
}

/** @param {Span} span @param {unknown} err */
function failed(span, err) {
  span.setAttribute('tinystore.error.code', codeOf(err))
  span.setStatus({ code: /** @type {typeof import('@opentelemetry/api')} */ (api).SpanStatusCode.ERROR, message: String(err) })
}

/**
 * Starts a wait span for `key` of the group `name` of `kind`; undefined
 * while nothing records. `end(held, err)` ends it.
 * @param {string} kind @param {string} name @param {string} key
 */
function waiting(kind, name, key) {
  const t = tracer ?? tracing()
  if (!t) return undefined
  const start = performance.now()
  const span = t.startSpan('tinystore.wait', {
    attributes: { 'tinystore.kind': kind, 'tinystore.group': name, 'tinystore.key': key },
  })
  return {
    /** @param {{ fence?: bigint } | undefined} held @param {unknown} [err] */
    end(held, err) {
      span.setAttribute('tinystore.waited_ms', performance.now() - start)
      if (!held) failed(span, err)
      else if (typeof held.fence === 'bigint') span.setAttribute('tinystore.fence', fenceText(held.fence))
      span.end()
    },
  }
}

/**
 * Starts a hold span from a grant; undefined while nothing records.
 * `end(lost)` ends it: released (no error) or lost.
 * @param {string} kind @param {string} name @param {string} key @param {{ fence?: bigint }} held
 */
function holdingSpan(kind, name, key, held) {
  const t = tracer ?? tracing()
  if (!t) return undefined
  /** @type {Record<string, string>} */
  const attributes = { 'tinystore.kind': kind, 'tinystore.group': name, 'tinystore.key': key }
  if (typeof held.fence === 'bigint') attributes['tinystore.fence'] = fenceText(held.fence)
  const span = t.startSpan('tinystore.hold', { attributes })
  const a = /** @type {typeof import('@opentelemetry/api')} */ (api)
  return {
    /**
     * Runs `fn` with the hold span as the active span (the context
     * manager the application registered carries it across awaits).
     * @template T @param {() => T} fn @returns {T}
     */
    run(fn) {
      return a.context.with(a.trace.setSpan(a.context.active(), span), fn)
    },
    /** @param {unknown} [lost] */
    end(lost) {
      if (lost === undefined) span.setAttribute('tinystore.ended', 'released')
      else {
        span.setAttribute('tinystore.ended', 'lost')
        failed(span, lost)
      }
      span.end()
    },
  }
}

/**
 * Runs a guard's check, `run`, in a tinystore.guard.check span, and counts
 * a stale refusal; only `run()` while nothing records. `backend()` names
 * the backend (asked only when something records).
 * @template T
 * @param {string} resource @param {bigint} fence @param {() => string} backend @param {() => T} run
 * @returns {T}
 */
function checked(resource, fence, backend, run) {
  const t = tracer ?? tracing()
  const c = counter ?? counting()
  if (!t && !c) return run()
  const on = backend()
  const span = t?.startSpan('tinystore.guard.check', {
    attributes: { 'tinystore.resource': resource, 'tinystore.fence': fenceText(fence), 'tinystore.backend': on },
  })
  /** @param {unknown} err */
  const verdict = err => {
    const largest = /** @type {{ largest?: unknown }} */ (err)?.largest
    if (err === undefined) span?.setAttribute('tinystore.outcome', 'accepted')
    else if (codeOf(err) === 'stale') {
      span?.setAttribute('tinystore.outcome', 'stale')
      if (typeof largest === 'bigint') span?.setAttribute('tinystore.largest', fenceText(largest))
      c?.add(1, { 'tinystore.backend': on })
    } else if (span) {
      span.setAttribute('tinystore.outcome', 'error')
      failed(span, err)
    }
    span?.end()
  }
  let result
  try {
    result = run()
  } catch (err) {
    verdict(err)
    throw err
  }
  if (result instanceof Promise) {
    return /** @type {any} */ (
      result.then(
        value => {
          verdict(undefined)
          return value
        },
        err => {
          verdict(err)
          throw err
        },
      )
    )
  }
  verdict(undefined)
  return result
}

module.exports = { waiting, holdingSpan, checked, fenceText }
