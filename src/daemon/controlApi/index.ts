// The daemon's control HTTP server: the local swap API for aggregators (POST /v1/swaps,
// GET /v1/swaps/:id, GET /v1/quotes), the operator's routes over a ControlPlane (executions,
// cancel, kill switch, strategies, positions, balances, the GET /v1/events stream), the OpenAPI
// document (GET /v1/openapi.json), beside the caller's own routes (/health, /metrics). Its
// requests and replies are in contract.ts, which the CLI imports too; http/ is the server's
// plumbing, routes/ the handlers.
export type { CancelOutcome, ControlPlane, StrategyStatus, WalletBalances } from './controlPlane.js'
export * from './errors.js'
export * from './http/startControlServer.js'
export type {
  ControlClientErrorReason,
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
