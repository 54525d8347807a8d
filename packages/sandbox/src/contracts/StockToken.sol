// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ManagedToken} from "./ManagedToken.sol";

/// @title StockToken
/// @notice One token is one whole share: 0 decimals.
contract StockToken is ManagedToken {
    constructor(string memory name_, string memory symbol_, address manager_)
        ManagedToken(name_, symbol_, manager_)
    {}

    function decimals() public pure override returns (uint8) {
        return 0;
    }
}
