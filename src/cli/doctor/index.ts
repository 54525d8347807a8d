// `stockroute doctor` as a library: each check is a function of its own; runDoctor runs them all.
export {
  type ChainCheckOptions,
  type ChainCheckParameters,
  checkChain,
  defaultMinGasWei,
  type ServedChains,
} from './chainChecks.js'
export { checkLoadedConfig, type DoctorConfig, loadDoctorConfig } from './configCheck.js'
export { checkDataFolder } from './dataFolderCheck.js'
export { checkKillSwitch } from './killSwitchCheck.js'
export { type RunDoctorOptions, runDoctor } from './runDoctor.js'
export {
  apiTimestampWindowMs,
  checkApiKey,
  checkClock,
  checkService,
  clockWarnMs,
  type ServiceCheckOptions,
} from './serviceChecks.js'
export { checkStrategyRules, describeProblems, serviceTickerRules } from './strategyRulesCheck.js'
export {
  type DoctorCheck,
  type DoctorReport,
  type DoctorStatus,
  defaultDoctorTimeoutMs,
  redactUrl,
  reportOf,
} from './types.js'
