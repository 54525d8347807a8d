import { printable } from '@stockroute/client/domain/printable.js'
import { describeSandbox, type SandboxDescription } from '@stockroute/sandbox/describe.js'
import { startSandbox } from '@stockroute/sandbox/startSandbox.js'
import { writeSandboxConfig } from '@stockroute/sandbox/writeSandboxConfig.js'
import { waitForShutdownSignal } from '../shutdown.js'

/** What `stockroute sandbox` runs (its options: ./sandboxCommand.ts): the sandbox, until Ctrl-C. */
export async function runSandbox(options: {
  port?: number
  rate?: number
  json?: boolean
  writeConfig?: string
}) {
  const progress = (line: string) => process.stderr.write(`${line}\n`)
  const started = Date.now()
  progress('starting the sandbox: local chains…')
  const sandbox = await startSandbox({
    chains: {
      onChainReady: (chain) => progress(`  chain ${chain.chainId} (${chain.name}) ready at ${chain.rpcUrl}`),
    },
    service: {
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.rate === undefined ? {} : { requestsPerSecond: options.rate }),
      // An error while answering a request may carry what the request sent: shown as data.
      logger: { error: (m, e) => progress(printable(`${m}: ${String(e)}`)) },
    },
  })
  const description = describeSandbox(sandbox.local, sandbox.service)
  const configPath = options.writeConfig ? writeSandboxConfig(options.writeConfig, description) : null
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...description, configPath })}\n`)
  } else {
    printHuman(description, configPath, Date.now() - started)
  }
  const signal = await waitForShutdownSignal()
  progress(`${signal}: stopping the sandbox…`)
  await sandbox.stop()
  progress('sandbox stopped')
}

function printHuman(description: SandboxDescription, configPath: string | null, elapsedMs: number) {
  const lines = [
    `sandbox ready in ${(elapsedMs / 1000).toFixed(1)} s`,
    '',
    `service   ${description.baseUrl}`,
    `api key   ${description.apiKey}`,
    `secret    ${description.apiSecret}`,
  ]
  for (const chain of description.chains) {
    lines.push(
      '',
      `chain ${chain.chainId}  ${chain.name}  ${chain.rpcUrl}`,
      `  executor  ${chain.executorAddress} (${chain.platformRouterAddress ? 'PlatformRouter' : 'RFQSettlement'})`,
      `  operator  ${chain.operatorAddress}   payer ${chain.payerAddress}`,
      `  assets    ${chain.assets.map((a) => `${a.symbol} ${a.address} (${a.decimals} dec)`).join(', ')}; default ${chain.defaultAsset}`,
    )
  }
  lines.push('', 'funded test wallets (same on every chain; sandbox keys, worthless elsewhere):')
  for (const wallet of description.wallets) lines.push(`  ${wallet.address}  key ${wallet.privateKey}`)
  if (configPath) lines.push('', `config written: ${configPath} (and .env beside it)`)
  lines.push('', 'press Ctrl-C to stop')
  process.stdout.write(`${lines.join('\n')}\n`)
}
