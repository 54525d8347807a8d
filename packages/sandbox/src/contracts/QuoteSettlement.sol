// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title QuoteSettlement
/// @notice Settles a router quote signed by the operator with EIP-712. The quote is a bearer
///         instrument: whoever calls `execute` first, inside its validity, is the taker.
///         Buy:  taker pays `amountIn` of the asset (fee included): `amountIn - feeAmount` to the
///               payer, `feeAmount` to the fee recipient; the payer delivers `amountOut` stock.
///         Sell: taker delivers `amountIn` stock to the payer; the payer pays `amountOut` of the asset
///               to the taker and `feeAmount` to the fee recipient.
abstract contract QuoteSettlement is EIP712, Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    struct Quote {
        bytes32 quoteId;
        address stockToken;
        address assetToken;
        bool isBuy;
        uint256 amountIn;
        uint256 amountOut;
        uint256 feeAmount;
        uint256 expiresAt;
    }

    bytes32 public constant QUOTE_TYPEHASH = keccak256(
        "Quote(bytes32 quoteId,address stockToken,address assetToken,bool isBuy,uint256 amountIn,uint256 amountOut,uint256 feeAmount,uint256 expiresAt)"
    );

    /// @notice The key that signs quotes (the chain's operator_address).
    address public operator;
    /// @notice Holds the stock and asset inventory the quotes are settled against.
    address public immutable payer;
    /// @notice Receives every quote's fee, in the asset token.
    address public immutable feeRecipient;
    /// @notice quote id => settled; each quote settles at most once.
    mapping(bytes32 => bool) public quoteUsed;

    error QuoteExpired(bytes32 quoteId, uint256 expiresAt, uint256 blockTimestamp);
    error QuoteAlreadyUsed(bytes32 quoteId);
    error InvalidSigner(address recovered, address expected);
    error InvalidAmount(bytes32 quoteId);
    error FeeExceedsAmount(bytes32 quoteId, uint256 feeAmount, uint256 assetAmount);

    event QuoteExecuted(
        bytes32 indexed quoteId,
        address indexed taker,
        address indexed stockToken,
        address assetToken,
        bool isBuy,
        uint256 amountIn,
        uint256 amountOut,
        uint256 feeAmount
    );
    event OperatorChanged(address previousOperator, address newOperator);

    constructor(string memory name_, address operator_, address payer_, address feeRecipient_, address owner_)
        EIP712(name_, "1")
        Ownable(owner_)
    {
        operator = operator_;
        payer = payer_;
        feeRecipient = feeRecipient_;
    }

    function setOperator(address newOperator) external onlyOwner {
        emit OperatorChanged(operator, newOperator);
        operator = newOperator;
    }

    /// @notice The EIP-712 digest the operator signs for `quote`.
    function hashQuote(Quote calldata quote) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(QUOTE_TYPEHASH, quote)));
    }

    function execute(Quote calldata quote, bytes calldata signature) external nonReentrant {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecover(hashQuote(quote), signature);
        if (err != ECDSA.RecoverError.NoError || recovered != operator) revert InvalidSigner(recovered, operator);
        if (quoteUsed[quote.quoteId]) revert QuoteAlreadyUsed(quote.quoteId);
        if (block.timestamp > quote.expiresAt) revert QuoteExpired(quote.quoteId, quote.expiresAt, block.timestamp);
        if (quote.amountIn == 0 || quote.amountOut == 0) revert InvalidAmount(quote.quoteId);
        uint256 assetLeg = quote.isBuy ? quote.amountIn : quote.amountOut;
        if (quote.isBuy && quote.feeAmount > assetLeg) revert FeeExceedsAmount(quote.quoteId, quote.feeAmount, assetLeg);

        quoteUsed[quote.quoteId] = true;
        IERC20 asset = IERC20(quote.assetToken);
        IERC20 stock = IERC20(quote.stockToken);
        if (quote.isBuy) {
            asset.safeTransferFrom(msg.sender, payer, quote.amountIn - quote.feeAmount);
            if (quote.feeAmount > 0) asset.safeTransferFrom(msg.sender, feeRecipient, quote.feeAmount);
            stock.safeTransferFrom(payer, msg.sender, quote.amountOut);
        } else {
            stock.safeTransferFrom(msg.sender, payer, quote.amountIn);
            asset.safeTransferFrom(payer, msg.sender, quote.amountOut);
            if (quote.feeAmount > 0) asset.safeTransferFrom(payer, feeRecipient, quote.feeAmount);
        }
        emit QuoteExecuted(
            quote.quoteId,
            msg.sender,
            quote.stockToken,
            quote.assetToken,
            quote.isBuy,
            quote.amountIn,
            quote.amountOut,
            quote.feeAmount
        );
    }
}
