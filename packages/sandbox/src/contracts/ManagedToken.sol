// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title ManagedToken
/// @notice Base of StockToken and ShareToken: only the StockTokenManager mints and burns, it may pause
///         transfers of this one token while a corporate action is processed, and it renames the
///         symbol on a ticker change.
abstract contract ManagedToken is ERC20 {
    /// @notice The StockTokenManager that controls supply, pausing and the symbol.
    address public immutable manager;
    /// @notice True while a corporate action is being processed: holder-to-holder transfers revert.
    bool public paused;

    string private _tickerSymbol;

    error NotManager(address caller);
    error TokenPaused(address token);

    event Paused(address indexed token);
    event Unpaused(address indexed token);
    event SymbolChanged(string previousSymbol, string newSymbol);

    modifier onlyManager() {
        if (msg.sender != manager) revert NotManager(msg.sender);
        _;
    }

    constructor(string memory name_, string memory symbol_, address manager_) ERC20(name_, symbol_) {
        manager = manager_;
        _tickerSymbol = symbol_;
    }

    function symbol() public view override returns (string memory) {
        return _tickerSymbol;
    }

    function mint(address to, uint256 amount) external onlyManager {
        _mint(to, amount);
    }

    function burn(address from, uint256 amount) external onlyManager {
        _burn(from, amount);
    }

    function pause() external onlyManager {
        paused = true;
        emit Paused(address(this));
    }

    function unpause() external onlyManager {
        paused = false;
        emit Unpaused(address(this));
    }

    function setSymbol(string calldata newSymbol) external onlyManager {
        emit SymbolChanged(_tickerSymbol, newSymbol);
        _tickerSymbol = newSymbol;
    }

    /// @dev Mints and burns stay possible while paused: they are how the manager applies the action.
    function _update(address from, address to, uint256 value) internal override {
        if (paused && from != address(0) && to != address(0)) revert TokenPaused(address(this));
        super._update(from, to, value);
    }
}
