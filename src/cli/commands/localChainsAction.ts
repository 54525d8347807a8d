import { describeLocalChains } from '@stockroute/sandbox/describe.js'
import { startLocalChains } from '@stockroute/sandbox/localChains.js'
import { waitForShutdownSignal } from '../shutdown.js'

/** What `stockroute local-chains` runs (its options: ./localChainsCommand.ts): the chains, until Ctrl-C. */
export async function runLocalChains(options: { json?: boolean }) {
  const started = Date.now()
  const progress = (line: string) => process.stderr.write(`${line}\n`)
  progress('starting local chains…')
  const local = await startLocalChains({
    onChainReady: (chain) => progress(`  chain ${chain.chainId} (${chain.name}) ready at ${chain.rpcUrl}`),
  })
  const description = describeLocalChains(local)
  if (options.json) {
    process.stdout.write(`${JSON.stringify(description)}\n`)
  } else {
    printHuman(description, Date.now() - started)
  }
  await waitForShutdownSignal()
  progress('stopping local chains…')
  await local.stop()
}

function printHuman(description: ReturnType<typeof describeLocalChains>, elapsedMs: number) {
  const lines = [`local chains ready in ${(elapsedMs / 1000).toFixed(1)} s`]
  for (const chain of description.chains) {
    lines.push(
      '',
      `chain ${chain.chainId}  ${chain.name}  ${chain.rpcUrl}`,
      `  executor     ${chain.executorAddress} (${chain.platformRouterAddress ? 'PlatformRouter' : 'RFQSettlement'})`,
      `  settlement   ${chain.settlementAddress}`,
      `  router       ${chain.platformRouterAddress ?? '(none on this chain)'}`,
      `  manager      ${chain.managerAddress}`,
      `  operator     ${chain.operatorAddress}`,
      `  payer        ${chain.payerAddress}`,
      ...chain.assets.map(
        (asset) =>
          `  asset ${asset.symbol.padEnd(6)} ${asset.address} (${asset.decimals} decimals${asset.symbol === chain.defaultAsset ? ', default' : ''})`,
      ),
      `  tokens       ${chain.tokens.map((token) => token.ticker).join(' ')}`,
    )
  }
  lines.push('', 'funded test wallets (the same on every chain; sandbox keys, worthless elsewhere):')
  for (const wallet of description.wallets) lines.push(`  ${wallet.address}  key ${wallet.privateKey}`)
  lines.push('', 'press Ctrl-C to stop')
  process.stdout.write(`${lines.join('\n')}\n`)
}
