// The daemon's cron jobs: plain async functions of their dependencies, each returning a report.

export * from './jobTypes.js'
export * from './reconcilePositions.js'
export * from './refreshTokenList.js'
export * from './syncCorporateActions.js'
