// The service client's own cost per call (signing, limiter, validation, typed result) against raw
// fetch on the same sandbox, sequential calls on loopback. Run: npm run bench:client

import { getChains } from '@stockroute/client/api/actions/getChains.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { createRequestLimiter } from '@stockroute/client/api/limiter.js'
import { signApiKeyRequest } from '@stockroute/client/domain/apiKeySignature.js'
import { startSandbox } from '@stockroute/sandbox/startSandbox.js'
import { z } from 'zod'

const calls = Math.min(Number(process.argv[2] ?? 2000), 20_000)
// In this process: with the sandbox in a child process the figures swung from run to run by a
// factor of ten on this 2-core machine; here raw and client calls meet the same server and loop.
const sandbox = await startSandbox({ service: { requestsPerSecond: 1_000_000 } })
try {
  const baseUrl = sandbox.service.url
  const { apiKey, apiSecret } = sandbox.service.credential
  const client = createServiceClient({
    baseUrl,
    credentials: { apiKey, apiSecret },
    // Far above any rate used here: the bench measures the client's work, not the spacing.
    limiter: createRequestLimiter({ requestsPerSecond: 1_000_000, maxConcurrent: 1 }),
  })
  // The same client with a pass-through limiter: isolates signing + validation from scheduling.
  const unlimited = createServiceClient({
    baseUrl,
    credentials: { apiKey, apiSecret },
    limiter: { schedule: (job) => job(), pauseFor: () => {} },
  })
  const spreadPath = '/market/v1/hkex/spread-tables'

  const rawPublic = async () => {
    const response = await fetch(`${baseUrl}/api/v1/chains`)
    await response.json()
  }
  const rawSigned = async () => {
    const timestamp = Date.now()
    const signature = signApiKeyRequest(apiSecret, { timestamp, method: 'GET', path: spreadPath, query: [] })
    const response = await fetch(`${baseUrl}${spreadPath}`, {
      headers: { 'x-api-key': apiKey, 'x-api-timestamp': String(timestamp), 'x-api-signature': signature },
    })
    await response.json()
  }
  const clientPublic = () => getChains(client)
  const signedRequest = {
    method: 'GET',
    path: spreadPath,
    auth: 'institution',
    schema: z.array(z.unknown()),
  } as const
  const clientSigned = () => client.request(signedRequest)
  const unlimitedPublic = () => getChains(unlimited)
  const unlimitedSigned = () => unlimited.request(signedRequest)

  const measure = async (run: () => Promise<unknown>) => {
    for (let i = 0; i < 200; i++) await run() // warm-up
    const started = process.hrtime.bigint()
    for (let i = 0; i < calls; i++) await run()
    return Number(process.hrtime.bigint() - started) / 1e3 / calls // µs per call
  }
  const rows: [string, number, number, number][] = [
    [
      'GET /api/v1/chains (public, getChains)',
      await measure(rawPublic),
      await measure(unlimitedPublic),
      await measure(clientPublic),
    ],
    [
      'GET /market/v1/hkex/spread-tables (signed)',
      await measure(rawSigned),
      await measure(unlimitedSigned),
      await measure(clientSigned),
    ],
  ]
  console.log(`${calls} sequential calls each, sandbox in this process, loopback; µs per call`)
  console.log(
    '"no limiter": the client with a pass-through limiter (signing + validation); "client": with its bottleneck limiter',
  )
  const header = [
    'call'.padEnd(46),
    'raw'.padStart(7),
    'no limiter'.padStart(11),
    'ratio'.padStart(6),
    'client'.padStart(7),
    'ratio'.padStart(6),
  ]
  console.log(header.join(' '))
  for (const [name, raw, bare, full] of rows) {
    const cells = [
      name.padEnd(46),
      raw.toFixed(0).padStart(7),
      bare.toFixed(0).padStart(11),
      (bare / raw).toFixed(2).padStart(6),
      full.toFixed(0).padStart(7),
      (full / raw).toFixed(2).padStart(6),
    ]
    console.log(cells.join(' '))
  }
} finally {
  await sandbox.stop()
}
