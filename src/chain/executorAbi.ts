// The executor contracts' ABI as stockroute relies on it, owned by chain/: the fragments of
// `execute`, its event, its custom errors and the views the guard and reconciliation read. A real
// deployment's PlatformRouter and RFQSettlement expose the same interface; the sandbox compiles its
// own contracts, and test/chain/abis.test.ts asserts these copies equal the sandbox artifacts'
// fragments so the two cannot drift apart.

/**
 * The executor (PlatformRouter or RFQSettlement): `execute(quote, signature)`, `hashQuote`,
 * `quoteUsed`, `operator`, `eip712Domain` (EIP-5267), the `QuoteExecuted` event and every custom
 * error `execute` can raise itself.
 */
export const executorAbi = [
  {
    inputs: [
      {
        components: [
          {
            internalType: 'bytes32',
            name: 'quoteId',
            type: 'bytes32',
          },
          {
            internalType: 'address',
            name: 'stockToken',
            type: 'address',
          },
          {
            internalType: 'address',
            name: 'assetToken',
            type: 'address',
          },
          {
            internalType: 'bool',
            name: 'isBuy',
            type: 'bool',
          },
          {
            internalType: 'uint256',
            name: 'amountIn',
            type: 'uint256',
          },
          {
            internalType: 'uint256',
            name: 'amountOut',
            type: 'uint256',
          },
          {
            internalType: 'uint256',
            name: 'feeAmount',
            type: 'uint256',
          },
          {
            internalType: 'uint256',
            name: 'expiresAt',
            type: 'uint256',
          },
        ],
        internalType: 'struct QuoteSettlement.Quote',
        name: 'quote',
        type: 'tuple',
      },
      {
        internalType: 'bytes',
        name: 'signature',
        type: 'bytes',
      },
    ],
    name: 'execute',
    outputs: [],
    stateMutability: 'nonpayable',
    type: 'function',
  },
  {
    inputs: [
      {
        components: [
          {
            internalType: 'bytes32',
            name: 'quoteId',
            type: 'bytes32',
          },
          {
            internalType: 'address',
            name: 'stockToken',
            type: 'address',
          },
          {
            internalType: 'address',
            name: 'assetToken',
            type: 'address',
          },
          {
            internalType: 'bool',
            name: 'isBuy',
            type: 'bool',
          },
          {
            internalType: 'uint256',
            name: 'amountIn',
            type: 'uint256',
          },
          {
            internalType: 'uint256',
            name: 'amountOut',
            type: 'uint256',
          },
          {
            internalType: 'uint256',
            name: 'feeAmount',
            type: 'uint256',
          },
          {
            internalType: 'uint256',
            name: 'expiresAt',
            type: 'uint256',
          },
        ],
        internalType: 'struct QuoteSettlement.Quote',
        name: 'quote',
        type: 'tuple',
      },
    ],
    name: 'hashQuote',
    outputs: [
      {
        internalType: 'bytes32',
        name: '',
        type: 'bytes32',
      },
    ],
    stateMutability: 'view',
    type: 'function',
  },
  {
    inputs: [
      {
        internalType: 'bytes32',
        name: '',
        type: 'bytes32',
      },
    ],
    name: 'quoteUsed',
    outputs: [
      {
        internalType: 'bool',
        name: '',
        type: 'bool',
      },
    ],
    stateMutability: 'view',
    type: 'function',
  },
  {
    inputs: [],
    name: 'operator',
    outputs: [
      {
        internalType: 'address',
        name: '',
        type: 'address',
      },
    ],
    stateMutability: 'view',
    type: 'function',
  },
  {
    inputs: [],
    name: 'eip712Domain',
    outputs: [
      {
        internalType: 'bytes1',
        name: 'fields',
        type: 'bytes1',
      },
      {
        internalType: 'string',
        name: 'name',
        type: 'string',
      },
      {
        internalType: 'string',
        name: 'version',
        type: 'string',
      },
      {
        internalType: 'uint256',
        name: 'chainId',
        type: 'uint256',
      },
      {
        internalType: 'address',
        name: 'verifyingContract',
        type: 'address',
      },
      {
        internalType: 'bytes32',
        name: 'salt',
        type: 'bytes32',
      },
      {
        internalType: 'uint256[]',
        name: 'extensions',
        type: 'uint256[]',
      },
    ],
    stateMutability: 'view',
    type: 'function',
  },
  {
    anonymous: false,
    inputs: [
      {
        indexed: true,
        internalType: 'bytes32',
        name: 'quoteId',
        type: 'bytes32',
      },
      {
        indexed: true,
        internalType: 'address',
        name: 'taker',
        type: 'address',
      },
      {
        indexed: true,
        internalType: 'address',
        name: 'stockToken',
        type: 'address',
      },
      {
        indexed: false,
        internalType: 'address',
        name: 'assetToken',
        type: 'address',
      },
      {
        indexed: false,
        internalType: 'bool',
        name: 'isBuy',
        type: 'bool',
      },
      {
        indexed: false,
        internalType: 'uint256',
        name: 'amountIn',
        type: 'uint256',
      },
      {
        indexed: false,
        internalType: 'uint256',
        name: 'amountOut',
        type: 'uint256',
      },
      {
        indexed: false,
        internalType: 'uint256',
        name: 'feeAmount',
        type: 'uint256',
      },
    ],
    name: 'QuoteExecuted',
    type: 'event',
  },
  {
    inputs: [
      {
        internalType: 'bytes32',
        name: 'quoteId',
        type: 'bytes32',
      },
      {
        internalType: 'uint256',
        name: 'expiresAt',
        type: 'uint256',
      },
      {
        internalType: 'uint256',
        name: 'blockTimestamp',
        type: 'uint256',
      },
    ],
    name: 'QuoteExpired',
    type: 'error',
  },
  {
    inputs: [
      {
        internalType: 'bytes32',
        name: 'quoteId',
        type: 'bytes32',
      },
    ],
    name: 'QuoteAlreadyUsed',
    type: 'error',
  },
  {
    inputs: [
      {
        internalType: 'address',
        name: 'recovered',
        type: 'address',
      },
      {
        internalType: 'address',
        name: 'expected',
        type: 'address',
      },
    ],
    name: 'InvalidSigner',
    type: 'error',
  },
  {
    inputs: [
      {
        internalType: 'bytes32',
        name: 'quoteId',
        type: 'bytes32',
      },
    ],
    name: 'InvalidAmount',
    type: 'error',
  },
  {
    inputs: [
      {
        internalType: 'bytes32',
        name: 'quoteId',
        type: 'bytes32',
      },
      {
        internalType: 'uint256',
        name: 'feeAmount',
        type: 'uint256',
      },
      {
        internalType: 'uint256',
        name: 'assetAmount',
        type: 'uint256',
      },
    ],
    name: 'FeeExceedsAmount',
    type: 'error',
  },
  {
    inputs: [
      {
        internalType: 'address',
        name: 'token',
        type: 'address',
      },
    ],
    name: 'SafeERC20FailedOperation',
    type: 'error',
  },
  {
    inputs: [],
    name: 'ReentrancyGuardReentrantCall',
    type: 'error',
  },
] as const
