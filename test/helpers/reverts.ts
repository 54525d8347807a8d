import { BaseError, ContractFunctionRevertedError } from 'viem'
import { expect } from 'vitest'

/** Asserts that `action` reverts with the named custom error, as viem decodes it from the ABI. */
export async function expectRevert(action: Promise<unknown>, errorName: string): Promise<void> {
  const error = await action.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error, `expected a revert with ${errorName}, but the call succeeded`).toBeInstanceOf(BaseError)
  const reverted = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError)
  expect(reverted, `expected a decoded revert, got: ${String(error)}`).toBeInstanceOf(
    ContractFunctionRevertedError,
  )
  expect((reverted as ContractFunctionRevertedError).data?.errorName).toBe(errorName)
}
