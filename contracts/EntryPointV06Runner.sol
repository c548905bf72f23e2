// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title EntryPointV06Runner
/// @notice Never deployed: the guard places this code at the ERC-4337 EntryPoint v0.6 address by
/// `eth_simulateV1` state override to run a v0.6 user operation's execution as the EntryPoint
/// would (v0.6 has no simulation entry point that keeps its logs): the account is created through
/// the real SenderCreator when the operation carries `initCode`, then called with `callData`
/// from the EntryPoint's address. Validation and gas accounting are not run.
contract EntryPointV06Runner {
    /// @notice Creates the account if needed, then runs its call; never reverts for the call.
    /// @return deployed The SenderCreator created `sender`.
    /// @return success The account's call succeeded.
    /// @return result Its return or revert data.
    function run(address senderCreator, bytes calldata initCode, address sender, bytes calldata callData)
        external
        returns (bool deployed, bool success, bytes memory result)
    {
        if (initCode.length > 0) {
            (bool created, bytes memory ret) =
                senderCreator.call(abi.encodeWithSignature("createSender(bytes)", initCode));
            if (!created || ret.length != 32 || abi.decode(ret, (address)) != sender) {
                return (false, false, ret);
            }
            deployed = true;
        }
        (success, result) = sender.call(callData);
    }
}
