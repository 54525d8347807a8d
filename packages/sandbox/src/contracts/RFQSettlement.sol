// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {QuoteSettlement} from "./QuoteSettlement.sol";

/// @title RFQSettlement
/// @notice The chain's settlement_address: executes router quotes on chains without a platform router.
contract RFQSettlement is QuoteSettlement {
    constructor(address operator_, address payer_, address feeRecipient_, address owner_)
        QuoteSettlement("RFQSettlement", operator_, payer_, feeRecipient_, owner_)
    {}
}
