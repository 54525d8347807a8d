import { executorAbi } from './executorAbi.js'
import { erc20ErrorsAbi, serviceTokenErrorsAbi } from './tokenErrorsAbis.js'

/** Everything an `execute` call can revert with, for decoding: the executor's errors and the tokens'. */
export const executeRevertsAbi = [...executorAbi, ...erc20ErrorsAbi, ...serviceTokenErrorsAbi] as const
