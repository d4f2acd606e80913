'use strict'
// The npm package `tinystore`: locks whose every exclusive lease carries a
// fence. See index.d.ts for the API and docs/node.md for a tour.
const errors = require('./errors')
const { parseFence, fenceText } = require('./convert')
const { Store, open, connect } = require('./store')
const { Locks, Semaphore } = require('./group')
const { Lease, Permit } = require('./lease')

module.exports = {
  open,
  connect,
  parseFence,
  fenceText,
  Store,
  Locks,
  Semaphore,
  Lease,
  Permit,
  TinystoreError: errors.TinystoreError,
  WaitTimeoutError: errors.WaitTimeoutError,
  LeaseLostError: errors.LeaseLostError,
  InUseError: errors.InUseError,
  ClosedError: errors.ClosedError,
  InvalidError: errors.InvalidError,
  LimitError: errors.LimitError,
  UnauthorizedError: errors.UnauthorizedError,
  CorruptError: errors.CorruptError,
  IoError: errors.IoError,
  UnavailableError: errors.UnavailableError,
  TinystoreInternalError: errors.TinystoreInternalError,
  errorClasses: errors.errorClasses,
}
