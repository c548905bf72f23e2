import { parseAbi } from 'viem'

/**
 * Custom errors the revert decoder knows by name. Signatures are copied from the sources:
 * OpenZeppelin Contracts 5.x (IERC6093 token errors, Ownable, AccessControl, SafeERC20, ERC1967 and
 * UUPS proxies, Address/Errors, EIP-2612, ECDSA, Nonces, Pausable, ReentrancyGuard, Initializable),
 * Uniswap Permit2 (AllowanceTransfer, SignatureTransfer, SignatureVerification, PermitErrors) and
 * Uniswap Universal Router. Errors sharing one signature across projects (e.g. `LengthMismatch()`)
 * appear once because they share one selector.
 */
export const REVERT_ERRORS_ABI = parseAbi([
  // OpenZeppelin IERC6093: ERC-20
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InvalidSender(address sender)',
  'error ERC20InvalidReceiver(address receiver)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC20InvalidApprover(address approver)',
  'error ERC20InvalidSpender(address spender)',
  'error ERC20ExceededCap(uint256 increasedSupply, uint256 cap)',
  // OpenZeppelin IERC6093: ERC-721
  'error ERC721InvalidOwner(address owner)',
  'error ERC721NonexistentToken(uint256 tokenId)',
  'error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)',
  'error ERC721InvalidSender(address sender)',
  'error ERC721InvalidReceiver(address receiver)',
  'error ERC721InsufficientApproval(address operator, uint256 tokenId)',
  'error ERC721InvalidApprover(address approver)',
  'error ERC721InvalidOperator(address operator)',
  // OpenZeppelin IERC6093: ERC-1155
  'error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)',
  'error ERC1155InvalidSender(address sender)',
  'error ERC1155InvalidReceiver(address receiver)',
  'error ERC1155MissingApprovalForAll(address operator, address owner)',
  'error ERC1155InvalidApprover(address approver)',
  'error ERC1155InvalidOperator(address operator)',
  'error ERC1155InvalidArrayLength(uint256 idsLength, uint256 valuesLength)',
  // OpenZeppelin EIP-2612 permit, ECDSA, Nonces
  'error ERC2612ExpiredSignature(uint256 deadline)',
  'error ERC2612InvalidSigner(address signer, address owner)',
  'error ECDSAInvalidSignature()',
  'error ECDSAInvalidSignatureLength(uint256 length)',
  'error ECDSAInvalidSignatureS(bytes32 s)',
  'error InvalidAccountNonce(address account, uint256 currentNonce)',
  // OpenZeppelin access control
  'error OwnableUnauthorizedAccount(address account)',
  'error OwnableInvalidOwner(address owner)',
  'error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)',
  'error AccessControlBadConfirmation()',
  // OpenZeppelin SafeERC20 and Address/Errors
  'error SafeERC20FailedOperation(address token)',
  'error SafeERC20FailedDecreaseAllowance(address spender, uint256 currentAllowance, uint256 requestedDecrease)',
  'error AddressEmptyCode(address target)',
  'error AddressInsufficientBalance(address account)',
  'error FailedInnerCall()',
  'error FailedCall()',
  'error InsufficientBalance(uint256 balance, uint256 needed)',
  // OpenZeppelin proxies
  'error ERC1967InvalidImplementation(address implementation)',
  'error ERC1967InvalidAdmin(address admin)',
  'error ERC1967InvalidBeacon(address beacon)',
  'error ERC1967NonPayable()',
  'error UUPSUnauthorizedCallContext()',
  'error UUPSUnsupportedProxiableUUID(bytes32 slot)',
  'error ProxyDeniedAdminAccess()',
  'error InvalidInitialization()',
  'error NotInitializing()',
  // OpenZeppelin Pausable, ReentrancyGuard
  'error EnforcedPause()',
  'error ExpectedPause()',
  'error ReentrancyGuardReentrantCall()',
  // Uniswap Permit2
  'error AllowanceExpired(uint256 deadline)',
  'error InsufficientAllowance(uint256 amount)',
  'error ExcessiveInvalidation()',
  'error InvalidAmount(uint256 maxAmount)',
  'error LengthMismatch()',
  'error InvalidNonce()',
  'error SignatureExpired(uint256 signatureDeadline)',
  'error InvalidSignature()',
  'error InvalidSignatureLength()',
  'error InvalidSigner()',
  'error InvalidContractSignature()',
  // Uniswap Universal Router
  'error ExecutionFailed(uint256 commandIndex, bytes message)',
  'error InvalidCommandType(uint256 commandType)',
  'error TransactionDeadlinePassed()',
  'error V3TooLittleReceived()',
  'error V3TooMuchRequested()',
  'error V2TooLittleReceived()',
  'error V2TooMuchRequested()',
  'error InsufficientToken()',
  'error InsufficientETH()',
])
