// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ManagedToken} from "./ManagedToken.sol";

/// @title StockTokenManager
/// @notice The chain's manager_address: mints and burns stock and share tokens, and applies corporate
///         actions on chain. A split or reverse split multiplies each holder's balance by
///         numerator/denominator, rounding down; the fraction of one base unit lost is recorded as
///         compensation (scaled by 1e18). A delisting burns the holdings; a ticker change renames the
///         token's symbol. Every action emits an event keyed by the service's action id.
contract StockTokenManager is AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    bytes32 public constant CORPORATE_ACTION_ROLE = keccak256("CORPORATE_ACTION_ROLE");

    uint8 public constant ACTION_STOCK_SPLIT = 1;
    uint8 public constant ACTION_REVERSE_STOCK_SPLIT = 2;
    uint8 public constant ACTION_DELISTING = 3;

    /// @notice action id => holder => compensation for the fraction lost, in base units scaled by 1e18.
    mapping(bytes32 => mapping(address => uint256)) public compensation;

    error InvalidRatio(uint256 numerator, uint256 denominator);
    error LengthMismatch(uint256 recipients, uint256 amounts);

    event Minted(address indexed token, address indexed to, uint256 amount);
    event Burned(address indexed token, address indexed from, uint256 amount);
    event HoldingAdjusted(
        bytes32 indexed actionId,
        address indexed token,
        address indexed holder,
        uint8 actionType,
        uint256 balanceBefore,
        uint256 balanceAfter,
        uint256 compensationE18
    );
    event TickerChanged(bytes32 indexed actionId, address indexed token, string previousSymbol, string newSymbol);
    event DividendDeclared(
        bytes32 indexed actionId, address indexed token, address indexed asset, uint256 amountPerShare
    );

    constructor(address admin) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(MINTER_ROLE, admin);
        _grantRole(CORPORATE_ACTION_ROLE, admin);
    }

    function mint(ManagedToken token, address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        token.mint(to, amount);
        emit Minted(address(token), to, amount);
    }

    /// @notice Mints to many holders in one transaction (seeding inventories, airdrops).
    function mintBatch(ManagedToken token, address[] calldata to, uint256[] calldata amounts)
        external
        onlyRole(MINTER_ROLE)
    {
        if (to.length != amounts.length) revert LengthMismatch(to.length, amounts.length);
        for (uint256 i = 0; i < to.length; i++) {
            token.mint(to[i], amounts[i]);
            emit Minted(address(token), to[i], amounts[i]);
        }
    }

    function burn(ManagedToken token, address from, uint256 amount) external onlyRole(MINTER_ROLE) {
        token.burn(from, amount);
        emit Burned(address(token), from, amount);
    }

    function pauseToken(ManagedToken token) external onlyRole(CORPORATE_ACTION_ROLE) {
        token.pause();
    }

    function unpauseToken(ManagedToken token) external onlyRole(CORPORATE_ACTION_ROLE) {
        token.unpause();
    }

    /// @notice Applies a split (numerator > denominator) or reverse split (numerator < denominator).
    function applySplit(
        bytes32 actionId,
        ManagedToken token,
        address[] calldata holders,
        uint256 numerator,
        uint256 denominator
    ) external onlyRole(CORPORATE_ACTION_ROLE) {
        if (numerator == 0 || denominator == 0 || numerator == denominator) {
            revert InvalidRatio(numerator, denominator);
        }
        uint8 actionType = numerator > denominator ? ACTION_STOCK_SPLIT : ACTION_REVERSE_STOCK_SPLIT;
        for (uint256 i = 0; i < holders.length; i++) {
            _scaleHolding(actionId, token, holders[i], actionType, numerator, denominator);
        }
    }

    function _scaleHolding(
        bytes32 actionId,
        ManagedToken token,
        address holder,
        uint8 actionType,
        uint256 numerator,
        uint256 denominator
    ) private {
        uint256 before = token.balanceOf(holder);
        uint256 scaled = before * numerator;
        uint256 afterBalance = scaled / denominator;
        uint256 compensationE18 = ((scaled % denominator) * 1e18) / denominator;
        if (afterBalance > before) token.mint(holder, afterBalance - before);
        else if (afterBalance < before) token.burn(holder, before - afterBalance);
        compensation[actionId][holder] = compensationE18;
        emit HoldingAdjusted(actionId, address(token), holder, actionType, before, afterBalance, compensationE18);
    }

    /// @notice Delists: burns every listed holder's balance.
    function delist(bytes32 actionId, ManagedToken token, address[] calldata holders)
        external
        onlyRole(CORPORATE_ACTION_ROLE)
    {
        for (uint256 i = 0; i < holders.length; i++) {
            uint256 before = token.balanceOf(holders[i]);
            if (before > 0) token.burn(holders[i], before);
            emit HoldingAdjusted(actionId, address(token), holders[i], ACTION_DELISTING, before, 0, 0);
        }
    }

    function changeTicker(bytes32 actionId, ManagedToken token, string calldata newSymbol)
        external
        onlyRole(CORPORATE_ACTION_ROLE)
    {
        string memory previous = token.symbol();
        token.setSymbol(newSymbol);
        emit TickerChanged(actionId, address(token), previous, newSymbol);
    }

    /// @notice Records a dividend on chain; the payout itself is made off chain by the service.
    function declareDividend(bytes32 actionId, ManagedToken token, address asset, uint256 amountPerShare)
        external
        onlyRole(CORPORATE_ACTION_ROLE)
    {
        emit DividendDeclared(actionId, address(token), asset, amountPerShare);
    }
}
