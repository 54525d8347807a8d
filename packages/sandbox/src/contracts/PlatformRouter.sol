// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {QuoteSettlement} from "./QuoteSettlement.sol";

/// @title PlatformRouter
/// @notice The chain's platform_router_address, deployed on some chains only, for aggregator and DEX
///         integrations. Where it exists, router quotes are signed for it and executed through it.
contract PlatformRouter is QuoteSettlement {
    constructor(address operator_, address payer_, address feeRecipient_, address owner_)
        QuoteSettlement("PlatformRouter", operator_, payer_, feeRecipient_, owner_)
    {}
}
