import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FacilitatorClient } from '@x402/core/server'

/** How the loopback facilitator misbehaves on `/settle` (and `/verify`). */
export interface FacilitatorFaults {
  /** Settle, then hold the answer back this long (a lost/slow answer after broadcast). */
  settleDelayMs?: number
  /** Stall this long before settling, then settle anyway (a facilitator that hangs). */
  settleStallMs?: number
  /** Stall this long before verifying (a facilitator that hangs past the caller's timeout). */
  verifyStallMs?: number
  /**
   * Stall this share of /verify and /settle calls for `stall.ms` (a settle stalls before it
   * settles, then settles anyway); `random` decides which (seeded in the soak).
   */
  stall?: { rate: number; ms: number; random: () => number }
  /** Drop the connection on /settle without settling (the facilitator died mid-request). */
  dropSettle?: number
  /** Answer /verify with this raw body (garbage). */
  verifyBody?: string
  /** Settle (really, on chain), then answer this HTTP status and body instead of the result. */
  settleThenAnswer?: { status: number; body: unknown }
  /**
   * Settle (really), answer `settlement_pending` with the transaction, and stop listening: the
   * resource server's one retry of a pending settlement then gets ECONNREFUSED.
   */
  pendingThenDown?: boolean
  /** Answer /settle "success" with this invented transaction hash, settling nothing. */
  settleLie?: string
}

/** A real x402 facilitator HTTP API on loopback (GET /supported, POST /verify, POST /settle). */
export async function startHttpFacilitator(
  inner: FacilitatorClient,
  faults: FacilitatorFaults = {},
  /** Loopback port (default: any free one). */
  port = 0,
) {
  const calls = { verify: 0, settle: 0, supported: 0, stalled: 0 }
  const maybeStall = async () => {
    const stall = faults.stall
    if (!stall || stall.random() >= stall.rate) return
    calls.stalled++
    await new Promise((r) => setTimeout(r, stall.ms))
  }
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(typeof value === 'string' ? value : JSON.stringify(value))
    }
    try {
      if (req.method === 'GET' && req.url === '/supported') {
        calls.supported++
        return reply(200, await inner.getSupported())
      }
      if (req.method === 'POST' && req.url === '/verify') {
        calls.verify++
        await maybeStall()
        if (faults.verifyStallMs) await new Promise((r) => setTimeout(r, faults.verifyStallMs))
        if (faults.verifyBody !== undefined) return reply(200, faults.verifyBody)
        return reply(200, await inner.verify(body.paymentPayload, body.paymentRequirements))
      }
      if (req.method === 'POST' && req.url === '/settle') {
        calls.settle++
        if ((faults.dropSettle ?? 0) > 0) {
          faults.dropSettle = (faults.dropSettle ?? 0) - 1
          req.socket.destroy()
          return
        }
        if (faults.settleLie) {
          return reply(200, {
            success: true,
            transaction: faults.settleLie,
            network: body.paymentRequirements.network,
            payer: body.paymentPayload.payload.authorization.from,
          })
        }
        await maybeStall()
        if (faults.settleStallMs) await new Promise((r) => setTimeout(r, faults.settleStallMs))
        const result = await inner.settle(body.paymentPayload, body.paymentRequirements)
        if (faults.settleDelayMs) await new Promise((r) => setTimeout(r, faults.settleDelayMs))
        if (faults.settleThenAnswer) {
          return reply(faults.settleThenAnswer.status, faults.settleThenAnswer.body)
        }
        if (faults.pendingThenDown) {
          server.close()
          res.writeHead(200, { 'content-type': 'application/json', connection: 'close' })
          res.end(
            JSON.stringify({
              success: false,
              errorReason: 'settlement_pending',
              transaction: result.transaction,
              network: result.network,
            }),
          )
          return
        }
        return reply(200, result)
      }
      reply(404, { error: 'not found' })
    } catch (error) {
      reply(500, { error: String(error) })
    }
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const listening = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${listening}`,
    calls,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
