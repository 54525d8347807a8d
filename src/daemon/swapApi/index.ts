// The daemon's control HTTP server: the local swap API for aggregators (POST /v1/swaps,
// GET /v1/swaps/:id, GET /v1/quotes), the operator's routes over a ControlPlane (executions,
// cancel, kill switch, strategies, positions, balances, the GET /v1/events stream), the OpenAPI
// document (GET /v1/openapi.json), beside the caller's own routes (/health, /metrics).
export type { CancelOutcome, ControlPlane, StrategyStatus, WalletBalances } from './controlPlane.js'
export * from './errors.js'
export type { ExecutionView } from './executionView.js'
export type { PreviewView } from './previewView.js'
export * from './replySchemas.js'
export type { SwapRequest } from './schemas.js'
export * from './startControlServer.js'
export type { SwapExecutionView } from './swapExecutionView.js'
export type {
  ControlMethod,
  ControlReply,
  ControlRequest,
  ControlRoute,
  ControlServerLogger,
  ControlStreamReply,
  ControlStreamSink,
  ExtraRoute,
  SwapApiEngine,
} from './types.js'
