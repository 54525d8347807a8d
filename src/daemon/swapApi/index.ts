// The daemon's control HTTP server: the local swap API for aggregators (POST /v1/swaps,
// GET /v1/swaps/:id, GET /v1/quotes) beside the caller's own routes (/health, /metrics).
export * from './errors.js'
export type { ExecutionView } from './executionView.js'
export type { PreviewView } from './previewView.js'
export type { SwapRequest } from './schemas.js'
export * from './startControlServer.js'
export type {
  ControlMethod,
  ControlReply,
  ControlRequest,
  ControlServerLogger,
  ExtraRoute,
  SwapApiEngine,
} from './types.js'
