import { formatUnits } from 'viem'
import type { CorporateAction, CorporateActionRecord } from './corporateActionTypes.js'

/** JSON of a record, every field of the reference's Corporate action record. */
export function corporateActionRecordJson(record: CorporateActionRecord) {
  const quantity = (value: bigint) => formatUnits(value, record.tokenDecimals)
  return {
    id: record.id,
    maker: record.maker,
    chain_id: record.chainId,
    holding_qty: quantity(record.holdingQty),
    action_qty: quantity(record.actionQty),
    compensation_qty:
      record.compensationE18 === null ? null : formatUnits(record.compensationE18, record.tokenDecimals + 18),
    status: record.status,
    is_token_locked: record.isTokenLocked,
    created_at: new Date(record.createdAtMs).toISOString(),
    updated_at: new Date(record.updatedAtMs).toISOString(),
    processed_hash: record.processedHash,
    processed_at: record.processedAtMs === null ? null : new Date(record.processedAtMs).toISOString(),
    remark: record.remark,
    tax_rate: record.taxRate,
    original_fee_amount: record.originalFeeAmount,
    original_net_amount: record.originalNetAmount,
    original_compensation_amount: record.originalCompensationAmount,
    token_address: record.tokenAddress,
    action_type: record.actionType,
    params: record.params,
    ticker: record.ticker,
    exchange: record.exchange,
  }
}

/** JSON of an action for the sandbox admin endpoints: the action and all its holders' records. */
export function corporateActionJson(action: CorporateAction) {
  return {
    id: action.id,
    chain_id: action.chainId,
    token_address: action.tokenAddress,
    token_ticker: action.tokenTicker,
    ticker: action.ticker,
    exchange: action.exchange,
    action_type: action.actionType,
    params: action.params,
    lock_tokens: action.lockTokens,
    lock_hash: action.lockHash,
    status: action.status,
    created_at: new Date(action.createdAtMs).toISOString(),
    processed_at: action.processedAtMs === null ? null : new Date(action.processedAtMs).toISOString(),
    processed_hash: action.processedHash,
    remark: action.remark,
    records: action.records.map(corporateActionRecordJson),
  }
}
