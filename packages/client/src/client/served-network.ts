import { NETWORK_NAMES, NETWORKS, networkById, type ServedNetwork } from '../types/networks.js'
import { GuardError } from './guard-error.js'
import type { Discovery } from './guard-responses.js'

/**
 * The network a guard serves, as its discovery names it (`network`, a CAIP-2 id): every request
 * the kit builds for that guard carries this network's chain id. A network the kit does not
 * know is a `network_unsupported` GuardError (a refusal, not an outage).
 */
export function servedNetworkOf(discovery: Pick<Discovery, 'network'>): ServedNetwork {
  const network = networkById(discovery.network)
  if (network === undefined) {
    const known = NETWORK_NAMES.map((n) => NETWORKS[n].id).join(', ')
    throw new GuardError(
      'network_unsupported',
      `the guard serves ${discovery.network}, a network this kit does not know (it knows ${known})`,
    )
  }
  return network
}
