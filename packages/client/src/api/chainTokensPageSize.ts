// The page sizes of the token list (GET /api/v1/chains/{chain_id}/tokens): light (no schema, no
// viem), so that a command line can check `--page-size` without loading the client.
// actions/getChainTokens.ts re-exports both.

/** Default page size of the token list (the reference's), and the largest it accepts. */
export const chainTokensDefaultPageSize = 100
export const chainTokensMaxPageSize = 500
