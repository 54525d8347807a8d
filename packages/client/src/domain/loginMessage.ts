/** The four lines a wallet-login message must carry (`Name: value`, any order). */
export const loginMessageLines = {
  walletAddress: 'Wallet address',
  chainId: 'ChainId',
  timestamp: 'Timestamp',
  nonce: 'Nonce',
} as const

export type LoginMessageFields = {
  walletAddress: string
  chainId: string
  /** ISO 8601 UTC without fractional seconds: `YYYY-MM-DDThh:mm:ssZ`. */
  timestamp: string
  nonce: string
}

/**
 * Builds the plain text a wallet signs with personal_sign to log in.
 *
 * @example
 * buildLoginMessage({ walletAddress: '0xabc…', chainId: 31337, timestamp: new Date(), nonce: crypto.randomUUID() })
 */
export function buildLoginMessage(parameters: {
  walletAddress: string
  chainId: number
  timestamp: Date
  nonce: string
}): string {
  return [
    `${loginMessageLines.walletAddress}: ${parameters.walletAddress}`,
    `${loginMessageLines.chainId}: ${parameters.chainId}`,
    `${loginMessageLines.timestamp}: ${formatLoginTimestamp(parameters.timestamp)}`,
    `${loginMessageLines.nonce}: ${parameters.nonce}`,
  ].join('\n')
}

/** `YYYY-MM-DDThh:mm:ssZ`, the timestamp form the login message requires. */
export function formatLoginTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`
}

/**
 * Reads the required lines of a login message; extra lines are ignored, order is free.
 * Returns null when a required line is missing or empty.
 */
export function parseLoginMessage(message: string): LoginMessageFields | null {
  const values = new Map<string, string>()
  for (const line of message.split(/\r?\n/)) {
    const separator = line.indexOf(': ')
    if (separator <= 0) continue
    const name = line.slice(0, separator).trim()
    if (!values.has(name)) values.set(name, line.slice(separator + 2).trim())
  }
  const fields = {
    walletAddress: values.get(loginMessageLines.walletAddress),
    chainId: values.get(loginMessageLines.chainId),
    timestamp: values.get(loginMessageLines.timestamp),
    nonce: values.get(loginMessageLines.nonce),
  }
  if (!fields.walletAddress || !fields.chainId || !fields.timestamp || !fields.nonce) return null
  return fields as LoginMessageFields
}

const loginTimestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

/** Milliseconds of a `YYYY-MM-DDThh:mm:ssZ` timestamp, or null when it has another form. */
export function parseLoginTimestamp(text: string): number | null {
  if (!loginTimestampPattern.test(text)) return null
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? null : ms
}
