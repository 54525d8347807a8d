import type { CorporateActionRecord } from '@stockroute/client/api/actions/getCorporateActions.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { Address, Client } from 'viem'
import type { Ledger, PositionRecord } from '../../../store/index.js'
import type { JobLogger } from '../jobTypes.js'

// What applying one corporate action record needs (the run's context, the record's position and
// chain client) and what it returns.

export type Outcome = { kind: 'applied' | 'already' | 'income' } | { kind: 'skipped'; why: string }

export type RunContext = {
  ledger: Ledger
  service: ServiceClient
  clients: Map<number, Client>
  logger: JobLogger | undefined
  signal: AbortSignal | undefined
  defaultAssetOf: (chainId: number) => Promise<Address | undefined>
}

export type Step = {
  record: CorporateActionRecord
  position: PositionRecord
  client: Client
  context: RunContext
}

export function skip(why: string): Outcome {
  return { kind: 'skipped', why }
}
