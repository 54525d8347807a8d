// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ManagedToken} from "./ManagedToken.sol";

/// @title ShareToken
/// @notice Fractional ownership of an underlying StockToken: 18 decimals, 1e18 units are one share.
contract ShareToken is ManagedToken {
    /// @notice The StockToken this token is a fraction of.
    address public immutable underlying;

    constructor(string memory name_, string memory symbol_, address manager_, address underlying_)
        ManagedToken(name_, symbol_, manager_)
    {
        underlying = underlying_;
    }

    function decimals() public pure override returns (uint8) {
        return 18;
    }
}
