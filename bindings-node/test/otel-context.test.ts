// The hold span is the active span while a hold's function runs, across
// its awaits, with the context manager an application registers (here a
// small one on node:async_hooks' AsyncLocalStorage, as OpenTelemetry's
// own for Node is): a span the function starts is the hold span's child,
// and none is active after the hold. Embedded and served test stores.
import assert from 'node:assert/strict'
import { AsyncLocalStorage } from 'node:async_hooks'
import { test } from 'node:test'
import { type Context, type ContextManager, ROOT_CONTEXT, context, trace } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { TestStore } from 'tinystore/testing'

class Storage implements ContextManager {
  #storage = new AsyncLocalStorage<Context>()
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.call(thisArg, ...args))
  }
  bind<T>(_ctx: Context, target: T): T {
    return target
  }
  enable(): this {
    return this
  }
  disable(): this {
    this.#storage.disable()
    return this
  }
}

const exporter = new InMemorySpanExporter()
context.setGlobalContextManager(new Storage())
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))

for (const served of [false, true]) {
  test(`${served ? 'served' : 'embedded'}: the hold span is active while the function runs`, async () => {
    exporter.reset()
    const kit = await (served ? TestStore.served() : TestStore.open())
    try {
      const tracer = trace.getTracer('test')
      await kit.store.locks('current').hold('k', async () => {
        await new Promise(resolve => setImmediate(resolve))
        tracer.startSpan('inside').end()
      })
      assert.equal(trace.getActiveSpan(), undefined)
      const spans = exporter.getFinishedSpans()
      const hold = spans.find(s => s.name === 'tinystore.hold')
      const inside = spans.find(s => s.name === 'inside')
      assert.ok(hold && inside, JSON.stringify(spans.map(s => s.name)))
      assert.equal(inside.parentSpanContext?.spanId, hold.spanContext().spanId)
    } finally {
      await kit.close()
    }
  })
}
