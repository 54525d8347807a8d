import { BaseError, ContractFunctionRevertedError, type Hex } from 'viem'

/** A contract revert, decoded by name against the ABI the call was made with. */
export type DecodedRevert = {
  /**
   * The custom error's name (`QuoteExpired`, `ERC20InsufficientAllowance`, …), `Error` for a
   * `require` message, `Panic` for an assertion or arithmetic failure, `UnknownError` for a
   * selector the ABI does not know, `EmptyRevert` for a revert without data.
   */
  errorName: string
  /** The error's arguments as decoded (bigints, addresses, hex), empty when none. */
  args: readonly unknown[]
  /** One line: the error with its arguments, or the reason. */
  message: string
  /** The 4-byte selector of an error the ABI does not know. */
  selector?: Hex | undefined
}

/**
 * Decodes the revert inside an error thrown by viem's contract actions (`simulateContract`,
 * `estimateContractGas`, `readContract`, `writeContract`). Returns undefined when the error is not
 * a revert (a transport failure, a timeout, an RPC error): the caller rethrows those.
 *
 * @example
 * try {
 *   await simulateContract(client, request)
 * } catch (error) {
 *   const revert = decodeRevert(error)
 *   if (!revert) throw error
 *   revert.errorName // 'QuoteExpired'
 * }
 */
export function decodeRevert(error: unknown): DecodedRevert | undefined {
  if (!(error instanceof BaseError)) return undefined
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError)
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined
  const decoded = reverted.data
  if (decoded) {
    const args = decoded.args ?? []
    if (decoded.errorName === 'Error')
      return { errorName: 'Error', args, message: `reverted: ${reverted.reason ?? String(args[0])}` }
    if (decoded.errorName === 'Panic')
      return { errorName: 'Panic', args, message: `panicked: ${reverted.reason ?? String(args[0])}` }
    return {
      errorName: decoded.errorName,
      args,
      message: `reverted with ${decoded.errorName}(${args.map(formatArgument).join(', ')})`,
    }
  }
  if (reverted.signature)
    return {
      errorName: 'UnknownError',
      args: [],
      message: `reverted with an error the ABI does not know (selector ${reverted.signature})`,
      selector: reverted.signature,
    }
  const reason = reverted.reason && reverted.reason !== 'execution reverted' ? `: ${reverted.reason}` : ''
  return { errorName: 'EmptyRevert', args: [], message: `reverted without an error${reason}` }
}

function formatArgument(value: unknown): string {
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return `[${value.map(formatArgument).join(', ')}]`
  return String(value)
}
