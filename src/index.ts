// stockroute as a library: the service client and the market rules (@stockroute/client, also
// installable on its own), the execution engine and its SQLite ledger, and the local sandbox
// (@stockroute/sandbox) for integration tests of your own.

export * from '@stockroute/client'
export { type Sandbox, startSandbox } from '@stockroute/sandbox'
export * from './engine/index.js'
export * from './store/index.js'
export * from './transactions/index.js'
