// TLS through a real server, with certificates made by
// tests/tls/make-certs.sh (openssl): a good handshake, and each refusal an
// UnauthorizedError naming its cause: a CA the client does not trust, a
// wrong host name, a plain tcp:// client on the TLS port, an expired
// certificate, and mutual TLS without a client certificate.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { test } from 'node:test'
import { UnauthorizedError, connect } from 'tinystore'
import { repo, tempDir } from './helpers'
import { serve, type Server } from './server'

function makeCerts(dir: string): string {
  execFileSync('sh', [path.join(repo, 'tests', 'tls', 'make-certs.sh'), dir])
  return dir
}

/** A TLS server with the certificate `cert` of `certs`; it and its port. */
async function serveTls(dir: string, certs: string, cert: string, token?: string, extra: string[] = []): Promise<[Server, string]> {
  const tls = ['--tls-cert', path.join(certs, `${cert}.pem`), '--tls-key', path.join(certs, `${cert}.key`)]
  if (token === undefined) tls.unshift('--tcp', '127.0.0.1:0')
  const server = await serve(path.join(dir, `data-${cert}-${extra.length}`), token, [...tls, ...extra])
  assert.match(server.tcp ?? '', /^tls:\/\//)
  return [server, server.tcp!.split(':').pop()!]
}

async function refused(address: string, because: RegExp, token?: string): Promise<void> {
  await assert.rejects(
    connect(address, { token }),
    (err: unknown) => err instanceof UnauthorizedError && because.test(err.message),
  )
}

test('a good handshake is served and each bad one refused with its cause', async () => {
  const dir = tempDir()
  const certs = makeCerts(path.join(dir, 'certs'))
  const other = makeCerts(path.join(dir, 'other'))
  const ca = `?ca=${path.join(certs, 'ca.pem')}`
  const token = 'node-binding-tls-token-0123456789'
  const servers: Server[] = []
  try {
    const [server, port] = await serveTls(dir, certs, 'server', token)
    servers.push(server)
    const store = await connect(`tls://localhost:${port}${ca}`, { token })
    const lease = await store.locks('tls').acquire('k')
    assert.equal(typeof lease.fence, 'bigint')
    await lease.release()
    await store.close()
    await refused(`tls://localhost:${port}?ca=${path.join(other, 'ca.pem')}`, /not signed by a trusted CA/, token)
    await refused(`tls://127.0.0.1:${port}${ca}`, /not valid for this host name/, token)
    await refused(`tcp://127.0.0.1:${port}`, /this port speaks TLS/, token)

    const [old, expired] = await serveTls(dir, certs, 'expired', token)
    servers.push(old)
    await refused(`tls://localhost:${expired}${ca}`, /expired/, token)

    const [mutualServer, mutual] = await serveTls(dir, certs, 'server', undefined, ['--tls-client-ca', path.join(certs, 'ca.pem')])
    servers.push(mutualServer)
    await refused(`tls://localhost:${mutual}${ca}`, /requires a client certificate/)
    const client = `&cert=${path.join(certs, 'client.pem')}&key=${path.join(certs, 'client.key')}`
    const certified = await connect(`tls://localhost:${mutual}${ca}${client}`)
    assert.equal(await certified.locks('tls').hold('k', l => typeof l.fence), 'bigint')
    await certified.close()
  } finally {
    for (const server of servers) await server.stop()
  }
})
