// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title AssetToken
/// @notice A payment stablecoin of the sandbox with the decimals its chain uses (6 or 18). With
///         `zeroAllowanceFirst`, it behaves like USDT: changing a non-zero allowance to another
///         non-zero value reverts, so clients must set it to zero first.
contract AssetToken is ERC20, Ownable {
    uint8 private immutable _decimals;
    bool public immutable zeroAllowanceFirst;

    error AllowanceNotZero(address owner, address spender, uint256 current);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, bool zeroAllowanceFirst_, address owner_)
        ERC20(name_, symbol_)
        Ownable(owner_)
    {
        _decimals = decimals_;
        zeroAllowanceFirst = zeroAllowanceFirst_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    function approve(address spender, uint256 value) public override returns (bool) {
        uint256 current = allowance(msg.sender, spender);
        if (zeroAllowanceFirst && value != 0 && current != 0) revert AllowanceNotZero(msg.sender, spender, current);
        return super.approve(spender, value);
    }
}
