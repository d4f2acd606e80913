// The proxy the lost-answer tests put in front of a real server
// (fake-gcs-server, Azurite, moto): it loses the server's answer to one
// request after the server has acted on it.
import net from 'node:net'

/** A running proxy: its port, how many steps of its plan it played, and its end. */
export interface LosingProxy {
  port: number
  played: () => number
  close: () => void
}

/**
 * A loopback proxy in front of the server at `host:upstream` that loses its
 * answer to the first request whose first chunk `picks`: it forwards the
 * request, waits for the answer's first bytes (the server has acted by
 * then), runs `between`, and closes the connection unanswered. Every other
 * request and answer goes through. `close` ends its connections too: a
 * client keeps its own open between requests, and a server may never close
 * an idle one, so the proxy's ends of them would keep the test process
 * alive (the listener itself is unreferenced: a failed case leaves it
 * open).
 *
 * Given a `plan`, the proxy plays it on the requests `picks` chooses, one
 * step each, in turn: `null` loses the answer as above; an HTTP answer's
 * bytes keeps the request from the server (read whole) and gives the
 * client those bytes, closing the connection, as a server that refused it
 * (a 429) would. `between` runs at the plan's last step; requests picked
 * after it go through.
 */
export async function losingProxy(
  upstream: number,
  picks: (chunk: Buffer) => boolean,
  between: () => Promise<void> = async () => {},
  host = '127.0.0.1',
  plan: (Buffer | null)[] = [null],
): Promise<LosingProxy> {
  let played = 0
  let pending: (() => Promise<void>) | null = between
  /** Runs `between` if `last`, once. */
  const betweenIf = (last: boolean): Promise<void> => {
    const run = last ? pending : null
    if (last) pending = null
    return run ? run() : Promise.resolve()
  }
  const connections = new Set<net.Socket>()
  const server = net.createServer(down => {
    const up = net.connect(upstream, host)
    for (const socket of [down, up]) {
      connections.add(socket)
      socket.on('close', () => connections.delete(socket))
    }
    let losing = false
    let last = false
    let ended = false
    const end = () => {
      ended = true
      down.destroy()
      up.destroy()
    }
    // The picked request so far, while the proxy reads it to answer it.
    let refused: Buffer | null = null
    let answer: Buffer | null = null
    const answerWhenWhole = () => {
      if (refused === null || answer === null || !whole(refused)) return
      const given = answer
      refused = null
      ended = true
      void betweenIf(last).finally(() => {
        up.destroy()
        down.end(given)
      })
    }
    down.on('data', (chunk: Buffer) => {
      if (refused !== null) {
        refused = Buffer.concat([refused, chunk])
        answerWhenWhole()
        return
      }
      if (ended) return
      if (!losing && played < plan.length && picks(chunk)) {
        answer = plan[played] ?? null
        played += 1
        last = played === plan.length
        if (answer !== null) {
          refused = chunk
          answerWhenWhole()
          return
        }
        losing = true
      }
      up.write(chunk)
    })
    up.on('data', chunk => {
      if (ended) return
      if (!losing) {
        down.write(chunk)
        return
      }
      ended = true
      up.pause()
      void betweenIf(last).finally(end) // the answer is lost with its connection
    })
    down.on('end', () => up.end())
    up.on('end', () => {
      if (!ended) down.end()
    })
    down.on('error', end)
    up.on('error', end)
  })
  server.unref()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  const close = () => {
    server.close()
    for (const socket of connections) socket.destroy()
  }
  return { port, played: () => played, close }
}

/**
 * Whether `request` holds a whole HTTP request: its headers and a body of
 * its Content-Length, or a chunked body's last chunk.
 */
function whole(request: Buffer): boolean {
  const at = request.indexOf('\r\n\r\n')
  if (at < 0) return false
  const head = request.subarray(0, at).toString()
  const body = request.subarray(at + 4)
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return body.includes('\r\n0\r\n\r\n') || body.subarray(0, 5).toString() === '0\r\n\r\n'
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  return body.length >= (length ? Number(length[1]) : 0)
}

/** Whether `chunk` starts with `text` (a request line's start). */
export function startsWith(text: string): (chunk: Buffer) => boolean {
  return chunk => chunk.subarray(0, text.length).toString() === text
}
