'use strict'
// A store's status as the package gives it: the addon's plain objects,
// frozen, with null (not undefined) where the core has none.

/**
 * @param {import('../native').NativeHeldStatus} held
 * @returns {import('../index').HeldStatus}
 */
function heldOf(held) {
  return Object.freeze({
    name: held.name,
    key: held.key,
    fence: held.fence ?? null,
    ttl: held.ttl,
    left: held.left,
    renewing: held.renewing,
    leader: held.leader ?? null,
    kind: /** @type {import('../index').Kind} */ (held.kind),
    mode: /** @type {'read' | 'write' | undefined} */ (held.mode) ?? null,
    weight: held.weight,
    data: held.data ?? null,
  })
}

/**
 * @param {import('../native').NativeWaitingStatus} waiting
 * @returns {import('../index').WaitingStatus}
 */
function waitingOf(waiting) {
  return Object.freeze({
    name: waiting.name,
    key: waiting.key,
    kind: /** @type {import('../index').Kind} */ (waiting.kind),
    waiters: waiting.waiters,
    waited: waiting.waited ?? null,
  })
}

/**
 * @param {import('../native').NativeStatus} status
 * @returns {import('../index').Status}
 */
function statusOf(status) {
  return Object.freeze({
    epoch: status.epoch,
    fencesGiven: status.fencesGiven,
    lastFence: status.lastFence ?? null,
    graceLeft: status.graceLeft ?? null,
    held: Object.freeze(status.held.map(heldOf)),
    waiting: Object.freeze(status.waiting.map(waitingOf)),
    heldTotal: status.heldTotal,
    waitingTotal: status.waitingTotal,
    more: status.more,
    testing: status.testing,
    longestWaits: Object.freeze(status.longestWaits.map(waitingOf)),
    lateWritesRefused: Object.freeze(
      status.lateWritesRefused.map(r =>
        Object.freeze({ name: r.name, kind: /** @type {import('../index').Kind} */ (r.kind), refused: r.refused }),
      ),
    ),
  })
}

module.exports = { statusOf }
