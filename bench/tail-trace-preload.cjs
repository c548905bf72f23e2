// Preloaded into the service by bench/tail-trace.ts (`node --require`): per-request phase
// timestamps (the connection accepted, the request read, each RPC exchange it made, the answer
// written), event-loop stalls and GC pauses, and optionally a CPU profile. SIGUSR2 the first
// time: reset and start (the profile too, with PROF_OUT); every later time: write what was
// recorded to TRACE_OUT (and the profile to PROF_OUT) and reset. Bench tooling only.
const http = require('node:http')
const fs = require('node:fs')
const inspector = require('node:inspector')
const { AsyncLocalStorage } = require('node:async_hooks')
const { monitorEventLoopDelay, PerformanceObserver, performance } = require('node:perf_hooks')

const epoch = (t) => performance.timeOrigin + t
const als = new AsyncLocalStorage()
const records = []
const stalls = []
const gcs = []
const delay = monitorEventLoopDelay({ resolution: 5 })
delay.enable()

if (!process.env.NO_TRACE) {
  const emit = http.Server.prototype.emit
  http.Server.prototype.emit = function (event, ...args) {
    const [a, b] = args
    if (event === 'connection') a.acceptedAt = performance.now()
    if (event !== 'request' || a.method !== 'POST') return emit.call(this, event, ...args)
    const socket = a.socket
    socket.requests = (socket.requests ?? 0) + 1
    const record = {
      id: a.headers['x-trace'],
      accepted: epoch(socket.acceptedAt ?? 0),
      firstOnConnection: socket.requests === 1,
      start: epoch(performance.now()),
      rpc: [],
    }
    a.on('end', () => {
      record.read = epoch(performance.now())
    })
    b.on('finish', () => {
      record.end = epoch(performance.now())
      records.push(record)
    })
    return als.run(record, () => emit.call(this, event, a, b))
  }
  const request = http.request
  http.request = function (...args) {
    const record = als.getStore()
    const req = request.apply(this, args)
    if (record) {
      const exchange = { start: epoch(performance.now()) }
      record.rpc.push(exchange)
      req.on('response', (res) => {
        res.on('end', () => {
          exchange.end = epoch(performance.now())
        })
      })
    }
    return req
  }
}

let last = performance.now()
setInterval(() => {
  const now = performance.now()
  if (now - last > 40) stalls.push({ at: epoch(last), ms: now - last })
  last = now
}, 10).unref()
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if (e.duration > 10) gcs.push({ at: epoch(e.startTime), ms: e.duration })
}).observe({ entryTypes: ['gc'] })

let session
let started = false
const reset = () => {
  records.length = 0
  stalls.length = 0
  gcs.length = 0
  delay.reset()
}
process.on('SIGUSR2', () => {
  if (!started) {
    started = true
    reset()
    if (process.env.PROF_OUT) {
      session = new inspector.Session()
      session.connect()
      session.post('Profiler.enable', () =>
        session.post('Profiler.setSamplingInterval', { interval: 250 }, () =>
          session.post('Profiler.start'),
        ),
      )
    }
    return
  }
  fs.writeFileSync(
    process.env.TRACE_OUT,
    JSON.stringify({
      records,
      stalls,
      gcs,
      delay: {
        p50: delay.percentile(50) / 1e6,
        p99: delay.percentile(99) / 1e6,
        max: delay.max / 1e6,
      },
    }),
  )
  reset()
  if (session) {
    session.post('Profiler.stop', (_error, result) => {
      fs.writeFileSync(process.env.PROF_OUT, JSON.stringify(result.profile))
      session.disconnect()
      session = undefined
    })
  }
})
