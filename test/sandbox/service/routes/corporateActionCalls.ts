import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import type { SandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import type { Address, Hex } from 'viem'
import { expect } from 'vitest'
import { apiCall } from '../../../helpers/sandboxService.js'

// The corporate action endpoints as the route tests call them: the sandbox's trigger and process
// (POST /sandbox/v1/corporate-actions…), the maker's list of records and positions.

export type RecordJson = Record<string, unknown> & {
  id: string
  maker: string
  holding_qty: string
  action_qty: string
  compensation_qty: string | null
  status: string
  is_token_locked: boolean
  processed_hash: Hex | null
}
export type ActionJson = { id: string; status: string; processed_hash: Hex | null; records: RecordJson[] }

/** The calls, on the service the test file reads (inside tests) with `service`. */
export function corporateActionCalls(service: () => SandboxService) {
  function trigger(body: unknown) {
    return apiCall<{ code: number; data: ActionJson; message?: string; details?: string }>(
      service(),
      '/sandbox/v1/corporate-actions',
      { method: 'POST', body },
    )
  }

  async function triggered(body: Record<string, unknown>): Promise<ActionJson> {
    const reply = await trigger(body)
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    return reply.body.data
  }

  function processAction(id: string) {
    return apiCall<{ code: number; data: ActionJson; message?: string }>(
      service(),
      `/sandbox/v1/corporate-actions/${id}/process`,
      { method: 'POST', body: '' },
    )
  }

  async function processed(id: string): Promise<ActionJson> {
    const reply = await processAction(id)
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    return reply.body.data
  }

  function actionsOf(maker: Address, query: Record<string, string | number> = {}) {
    return apiCall<{ code: number; data: { actions: RecordJson[]; total_count: number }; details?: string }>(
      service(),
      '/api/v1/maker/corporate-actions/actions',
      { credential: service().credential, makerAddress: maker, query },
    )
  }

  async function positionOf(maker: Address, chain: LocalChain, ticker: string) {
    const reply = await apiCall(service(), '/api/v1/positions', {
      credential: service().credential,
      makerAddress: maker,
      query: { chain_id: chain.chainId, ticker },
    })
    expect(reply.status).toBe(200)
    return reply.body.data.positions[0] as Record<string, string> | undefined
  }

  function recordOf(action: ActionJson, maker: Address): RecordJson {
    const record = action.records.find((r) => r.maker.toLowerCase() === maker.toLowerCase())
    if (!record) throw new Error(`no record for ${maker}`)
    return record
  }

  return { trigger, triggered, processAction, processed, actionsOf, positionOf, recordOf }
}
