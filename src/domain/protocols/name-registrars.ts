import { parseAbi } from 'viem'
import { owner } from './beneficiary-args.js'
import type { FunctionKey, ProtocolModule } from './protocol-module.js'

/** Name registrars (ENS, Basenames): the name is registered to `owner`, paid by the caller. */
const ABI = parseAbi([
  'struct RegisterRequest { string name; address owner; uint256 duration; address resolver; bytes[] data; bool reverseRecord; }',
  'function register(string name, address owner, uint256 duration, bytes32 secret, address resolver, bytes[] data, bool reverseRecord, uint16 ownerControlledFuses)',
  'function register(RegisterRequest request)',
])

/** ENS's ETHRegistrarController and Basenames' RegistrarController. */
export const NAME_REGISTRARS = {
  name: 'Name registrars',
  abi: ABI,
  catalogue: {
    'register(string,address,uint256,bytes32,address,bytes[],bool,uint16)': {
      protocol: 'ENS ETHRegistrarController',
      beneficiaries: [owner('owner')],
    },
    'register((string,address,uint256,address,bytes[],bool))': {
      protocol: 'Basenames RegistrarController',
      beneficiaries: [owner('request.owner')],
    },
  },
} satisfies ProtocolModule<FunctionKey<typeof ABI>>
