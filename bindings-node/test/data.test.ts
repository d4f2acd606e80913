// Data on a lease (`{ data }`) on an embedded store and through a server;
// on etcd in etcd.test.ts. The steps are data-steps.ts's.
import path from 'node:path'
import { test } from 'node:test'
import { connect, open } from 'tinystore'
import { keptDefaultedAndRefused } from './data-steps'
import { tempDir } from './helpers'
import { serve } from './server'

test('an embedded store keeps each holder’s data', async () => {
  const store = await open(path.join(tempDir(), 'data'))
  try {
    await keptDefaultedAndRefused(store)
  } finally {
    await store.close()
  }
})

test('a served store keeps the data its clients send', async () => {
  const server = await serve(path.join(tempDir(), 'data'))
  try {
    const store = await connect(`unix:${server.socket}`)
    try {
      await keptDefaultedAndRefused(store)
    } finally {
      await store.close()
    }
  } finally {
    await server.stop()
  }
})
