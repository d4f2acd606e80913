#!/usr/bin/env node
// What OpenTelemetry costs a hold: bench/hold.js's embedded median in a
// child process per mode, the modes alternating, ROUNDS times: `absent`
// (@opentelemetry/api cannot be resolved), `no-provider` (installed, none
// registered) and `provider` (the SDK's tracer and meter providers
// registered, spans batched to an exporter that drops them). Prints each
// mode's median of its rounds. `make bench-otel-node`; figures in
// docs/benchmarks.md, "OpenTelemetry when absent".
'use strict'
const { execFileSync } = require('node:child_process')
const os = require('node:os')
const path = require('node:path')

const ROUNDS = Number(process.env.TINYSTORE_BENCH_ROUNDS ?? 3)
const MODES = ['absent', 'no-provider', 'provider']

const child = `
const path = require('node:path')
const os = require('node:os')
const { mkdtempSync, rmSync } = require('node:fs')
const Module = require('node:module')
const mode = process.argv[1]
if (mode === 'absent') {
  const resolve = Module._resolveFilename
  Module._resolveFilename = function (request, ...rest) {
    if (request.startsWith('@opentelemetry/')) throw Object.assign(new Error('not found'), { code: 'MODULE_NOT_FOUND' })
    return resolve.call(this, request, ...rest)
  }
} else if (mode === 'provider') {
  const { trace, metrics } = require('@opentelemetry/api')
  const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base')
  const { MeterProvider } = require('@opentelemetry/sdk-metrics')
  const drop = { export: (spans, done) => done({ code: 0 }), shutdown: async () => {} }
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(drop)] }))
  metrics.setGlobalMeterProvider(new MeterProvider())
}
const { open } = require('tinystore')
const { median } = require(process.argv[2])
;(async () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tinystore-bench-'))
  const store = await open(path.join(tmp, 'store'))
  console.log(await median(store.locks('bench')))
  await store.close()
  rmSync(tmp, { recursive: true, force: true })
})()
`

const seen = Object.fromEntries(MODES.map(mode => [mode, []]))
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of MODES) {
    const out = execFileSync(process.execPath, ['-e', child, mode, path.join(__dirname, 'hold.js')], { cwd: __dirname })
    seen[mode].push(Number(String(out).trim()))
  }
}
const mid = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = x => Math.round(x).toLocaleString('en-US')
console.log(`node otel bench: ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, ${ROUNDS} rounds, embedded hold round trips/s`)
console.log(`| ${MODES.join(' | ')} |`)
console.log(`| ${MODES.map(mode => fmt(mid(seen[mode]))).join(' | ')} |`)
