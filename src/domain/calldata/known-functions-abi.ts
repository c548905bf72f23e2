import { parseAbi } from 'viem'
import { CATALOGUE_ABI } from '../protocols/protocol-catalogue.js'

/**
 * Functions the calldata decoder knows by selector. One entry per selector: ERC-20 and ERC-721
 * share `approve`/`transferFrom` selectors, so those entries use neutral argument names (`value`
 * is an amount for ERC-20 and a token id for ERC-721).
 */
export const KNOWN_FUNCTIONS_ABI = parseAbi([
  'struct PermitDetails { address token; uint160 amount; uint48 expiration; uint48 nonce; }',
  'struct PermitSingle { PermitDetails details; address spender; uint256 sigDeadline; }',
  'struct PermitBatch { PermitDetails[] details; address spender; uint256 sigDeadline; }',
  'struct AllowanceTransferDetails { address from; address to; uint160 amount; address token; }',
  'struct TokenSpenderPair { address token; address spender; }',
  'struct TokenPermissions { address token; uint256 amount; }',
  'struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }',
  'struct PermitBatchTransferFrom { TokenPermissions[] permitted; uint256 nonce; uint256 deadline; }',
  'struct SignatureTransferDetails { address to; uint256 requestedAmount; }',
  'struct Call { address target; bytes callData; }',
  'struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'struct ExactInputParams { bytes path; address recipient; uint256 amountIn; uint256 amountOutMinimum; }',
  'struct ExactOutputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountOut; uint256 amountInMaximum; uint160 sqrtPriceLimitX96; }',
  'struct ExactOutputParams { bytes path; address recipient; uint256 amountOut; uint256 amountInMaximum; }',
  'struct Route { address from; address to; bool stable; address factory; }',
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Call3Value { address target; bool allowFailure; uint256 value; bytes callData; }',
  'struct WalletCall { address target; uint256 value; bytes data; }',
  // ERC-20 (approve and transferFrom also cover ERC-721's, which share the selectors)
  'function transfer(address to, uint256 value)',
  'function approve(address spender, uint256 value)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function transferFrom(address from, address to, uint256 value)',
  // EIP-2612 permit (v, r, s; and USDC FiatToken v2.2's packed `bytes signature` form), DAI permit
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, bytes signature)',
  'function permit(address holder, address spender, uint256 nonce, uint256 expiry, bool allowed, uint8 v, bytes32 r, bytes32 s)',
  // EIP-3009 (USDC): a transfer the holder `from` signed, submitted by anyone (receive: by `to`);
  // v, r, s and FiatToken v2.2's packed `bytes signature` forms
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  // ERC-4626 vaults (`deposit`/`mint` credit shares to `receiver`; `withdraw`/`redeem` burn
  // `owner`'s shares and pay assets to `receiver`)
  'function deposit(uint256 assets, address receiver)',
  'function mint(uint256 shares, address receiver)',
  'function withdraw(uint256 assets, address receiver, address owner)',
  'function redeem(uint256 shares, address receiver, address owner)',
  // ERC-721 / ERC-1155
  'function setApprovalForAll(address operator, bool approved)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
  // Uniswap Permit2 (AllowanceTransfer and SignatureTransfer)
  'function approve(address token, address spender, uint160 amount, uint48 expiration)',
  'function permit(address owner, PermitSingle permitSingle, bytes signature)',
  'function permit(address owner, PermitBatch permitBatch, bytes signature)',
  'function transferFrom(address from, address to, uint160 amount, address token)',
  'function transferFrom(AllowanceTransferDetails[] transferDetails)',
  'function lockdown(TokenSpenderPair[] approvals)',
  'function invalidateNonces(address token, address spender, uint48 newNonce)',
  'function permitTransferFrom(PermitTransferFrom permit, SignatureTransferDetails transferDetails, address owner, bytes signature)',
  'function permitTransferFrom(PermitBatchTransferFrom permit, SignatureTransferDetails[] transferDetails, address owner, bytes signature)',
  'function permitWitnessTransferFrom(PermitTransferFrom permit, SignatureTransferDetails transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)',
  'function permitWitnessTransferFrom(PermitBatchTransferFrom permit, SignatureTransferDetails[] transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)',
  // Containers
  'function multicall(bytes[] data)',
  'function multicall(uint256 deadline, bytes[] data)',
  'function aggregate(Call[] calls)',
  'function tryAggregate(bool requireSuccess, Call[] calls)',
  'function aggregate3(Call3[] calls)',
  'function aggregate3Value(Call3Value[] calls)',
  'function execute(bytes commands, bytes[] inputs, uint256 deadline)',
  'function execute(bytes commands, bytes[] inputs)',
  // Smart-account executors (ERC-4337 accounts, EIP-7702 delegates): the account calls out.
  // SimpleAccount, Simple7702Account, Coinbase Smart Wallet, Kernel v2, OpenZeppelin accounts.
  'function execute(address target, uint256 value, bytes data)',
  'function executeBatch(WalletCall[] calls)',
  'function executeBatch(address[] dest, uint256[] value, bytes[] func)',
  'function executeBatch(address[] dest, bytes[] func)',
  // ERC-7821 / ERC-7579 `execute(mode, executionData)`: mode byte 0 is the call type (0x00 one
  // call, packed; 0x01 a batch of (target, value, data)).
  'function execute(bytes32 mode, bytes executionData)',
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures)',
  // Safe MultiSend / MultiSendCallOnly: `transactions` packs (uint8 operation, address to,
  // uint256 value, uint256 dataLength, bytes data) back to back; Safes delegatecall it
  'function multiSend(bytes transactions)',
  // Uniswap SwapRouter02 (v3 swaps without a deadline field, v2 swaps without a deadline
  // argument) and Aerodrome's Router (routes of pools, `to` and a deadline): outputs go to
  // `recipient`/`to`
  'function exactInputSingle(ExactInputSingleParams params)',
  'function exactInput(ExactInputParams params)',
  'function exactOutputSingle(ExactOutputSingleParams params)',
  'function exactOutput(ExactOutputParams params)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to)',
  'function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  'function swapExactETHForTokens(uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, Route[] routes, address to, uint256 deadline)',
  // Ownership and proxies (OpenZeppelin Ownable, ERC1967/UUPS, transparent proxy, ProxyAdmin)
  'function transferOwnership(address newOwner)',
  'function renounceOwnership()',
  'function upgradeTo(address newImplementation)',
  'function upgradeToAndCall(address newImplementation, bytes data)',
  'function changeAdmin(address newAdmin)',
  'function upgrade(address proxy, address implementation)',
  'function upgradeAndCall(address proxy, address implementation, bytes data)',
  // OpenZeppelin AccessControl (v5 names the renounce argument `callerConfirmation`; same selector)
  'function grantRole(bytes32 role, address account)',
  'function revokeRole(bytes32 role, address account)',
  'function renounceRole(bytes32 role, address callerConfirmation)',
  // Safe OwnerManager, ModuleManager, GuardManager, FallbackManager (each `authorized`: only the
  // Safe itself may call them, so they arrive inside `execTransaction` with `to` = the Safe)
  'function addOwnerWithThreshold(address owner, uint256 _threshold)',
  'function removeOwner(address prevOwner, address owner, uint256 _threshold)',
  'function swapOwner(address prevOwner, address oldOwner, address newOwner)',
  'function changeThreshold(uint256 _threshold)',
  'function enableModule(address module)',
  'function disableModule(address prevModule, address module)',
  'function setGuard(address guard)',
  'function setFallbackHandler(address handler)',
  // WETH
  'function deposit()',
  'function withdraw(uint256 wad)',
  // The protocol catalogue (src/domain/protocols/protocol-catalogue.ts): lending, bridges,
  // positions, marketplaces, with the arguments that name whose the money becomes
  ...CATALOGUE_ABI,
] as readonly string[])
