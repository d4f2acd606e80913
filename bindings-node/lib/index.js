'use strict'
// The npm package `tinystore`: locks whose every exclusive lease carries a
// fence. See index.d.ts for the API and docs/node.md for a tour.
//
// Every export is a plain name in the object literal below, so that Node's
// ESM loader (cjs-module-lexer) sees each one: `import { LeaseLostError }
// from 'tinystore'` works as `require` does.
const { parseFence, fenceText } = require('./convert')
const { Store, open, connect } = require('./store')
const { Locks, Semaphore } = require('./group')
const { RwLocks } = require('./rw_locks')
const { Lease, Permit } = require('./lease')
const { Election, Leadership, Observer } = require('./election')
const { Watcher } = require('./watch')
const { Server, serve } = require('./serve')
const {
  TinystoreError,
  WaitTimeoutError,
  LeaseLostError,
  InUseError,
  ClosedError,
  InvalidError,
  LimitError,
  UnauthorizedError,
  CorruptError,
  IoError,
  UnavailableError,
  TinystoreInternalError,
  StaleError,
  errorClasses,
} = require('./errors')
const { guard } = require('./guard')
const { http, fenceHeaders } = require('./http')

module.exports = {
  open,
  connect,
  serve,
  parseFence,
  fenceText,
  Store,
  Server,
  Locks,
  Semaphore,
  RwLocks,
  Lease,
  Permit,
  Election,
  Leadership,
  Observer,
  Watcher,
  TinystoreError,
  WaitTimeoutError,
  LeaseLostError,
  InUseError,
  ClosedError,
  InvalidError,
  LimitError,
  UnauthorizedError,
  CorruptError,
  IoError,
  UnavailableError,
  TinystoreInternalError,
  StaleError,
  errorClasses,
  guard,
  http,
  fenceHeaders,
}
