import { getAddress, isAddress } from 'viem/utils'
import { z } from 'zod'

/** A 0x address in the reply, returned checksummed. */
export const addressSchema = z
  .string()
  .refine((text) => isAddress(text, { strict: false }), 'expected a 0x address')
  .transform((text) => getAddress(text))

/** A decimal string of base units (wei unit), returned as bigint. */
export const baseUnitsSchema = z
  .string()
  .regex(/^\d{1,78}$/, 'expected a non-negative integer in base units')
  .transform((text) => BigInt(text))

/** A decimal number serialized as a string (prices, turnover), kept as text. */
export const decimalStringSchema = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal number as text')
