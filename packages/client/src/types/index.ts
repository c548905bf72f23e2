/**
 * The answer vocabulary the service and its buyers share: verdicts, severities, environments,
 * error codes, payment reasons, typed-data kinds. The answer schemas
 * (`@pre-send-guard/client/schemas`) are built from these lists, and the service's domain takes
 * its codes from here, so a new code cannot reach one side only. The hex and address patterns
 * (and guards that narrow to viem's `Hex`/`Address`) and the API's route paths are here too. No
 * runtime dependency.
 */

/** One explained finding of the risk screen (declared with the answers it is part of). */
export type { Finding } from '../schemas/preflight.js'
export {
  ADDRESS_PATTERN,
  BYTES_PATTERN,
  BYTES32_PATTERN,
  expectAddress,
  expectBytes,
  expectBytes32,
  HEX_NUMBER_PATTERN,
  HEX_PATTERN,
  hexNumber,
  hexSlice,
  isAddressText,
  isBytes32Text,
  isBytesText,
  isHexNumberText,
  isHexText,
  isNonEmptyBytesText,
  lowerHex,
  NONEMPTY_BYTES_PATTERN,
  QUANTITY_PATTERN,
  WORD_PATTERN,
} from './hex.js'
export {
  DEFAULT_NETWORK,
  NETWORK_NAMES,
  NETWORKS,
  type NetworkFacts,
  type NetworkId,
  type NetworkName,
  networkByChainId,
  networkById,
  type ServedNetwork,
} from './networks.js'
export {
  FREE_ROUTES_PREFIX,
  ROUTES,
  type RouteParams,
  type RoutePath,
  routePath,
} from './routes.js'
export * from './vocabulary.js'
