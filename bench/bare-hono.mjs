// The start-up floor (bench/startup.ts): a bare Hono server on @hono/node-server answering
// /healthz on PORT, nothing else loaded. Run by node directly, and by `npm run bench:bare-hono`
// to measure what npm itself adds.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const app = new Hono().get('/healthz', (c) => c.json({ status: 'ok' }))
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' })
