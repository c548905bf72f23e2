import { parseAbi } from 'viem'
import type { PowerEffect } from './declared-effects.js'
import { addr, big, str } from './decoded-args.js'
import { onBaseAndSepolia } from './network.js'
import type { FunctionKey, ProtocolCall, ProtocolModule } from './protocol-module.js'

/**
 * Safe: `execTransaction` (the call the owners signed), MultiSend's packed batches, and the
 * management functions of OwnerManager, ModuleManager, GuardManager and FallbackManager (each
 * `authorized`: only the Safe itself may call them, so they arrive inside `execTransaction` with
 * `to` = the Safe; they are judged on any target, where the decoder already opens the inner call).
 */
const ABI = parseAbi([
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures)',
  // MultiSend / MultiSendCallOnly: `transactions` packs (uint8 operation, address to, uint256
  // value, uint256 dataLength, bytes data) back to back; Safes delegatecall it
  'function multiSend(bytes transactions)',
  'function addOwnerWithThreshold(address owner, uint256 _threshold)',
  'function removeOwner(address prevOwner, address owner, uint256 _threshold)',
  'function swapOwner(address prevOwner, address oldOwner, address newOwner)',
  'function changeThreshold(uint256 _threshold)',
  'function enableModule(address module)',
  'function disableModule(address prevModule, address module)',
  'function setGuard(address guard)',
  'function setFallbackHandler(address handler)',
])

/** Safe 1.3/1.4 and its MultiSend libraries. */
export const SAFE = {
  name: 'Safe',
  abi: ABI,
  powers: {
    'addOwnerWithThreshold(address,uint256)': (c) =>
      power(
        c,
        'safe-owner',
        `addOwnerWithThreshold adds owner ${str(c.args.owner)} and sets the threshold to ${threshold(c)}`,
        c.args.owner,
      ),
    'removeOwner(address,address,uint256)': (c) =>
      power(
        c,
        'safe-owner',
        `removeOwner removes owner ${str(c.args.owner)} and sets the threshold to ${threshold(c)}`,
        c.args.owner,
      ),
    'swapOwner(address,address,address)': (c) =>
      power(
        c,
        'safe-owner',
        `swapOwner replaces owner ${str(c.args.oldOwner)} with ${str(c.args.newOwner)}`,
        c.args.newOwner,
      ),
    'changeThreshold(uint256)': (c) =>
      power(c, 'safe-threshold', `changeThreshold sets the threshold to ${threshold(c)}`),
    'enableModule(address)': (c) =>
      power(
        c,
        'safe-module',
        `enableModule lets module ${str(c.args.module)} execute any transaction from the Safe without owner signatures`,
        c.args.module,
      ),
    'disableModule(address,address)': (c) =>
      power(c, 'safe-module', `disableModule removes module ${str(c.args.module)}`, c.args.module),
    'setGuard(address)': (c) =>
      power(
        c,
        'safe-guard',
        `setGuard makes ${str(c.args.guard)} the transaction guard, which can veto every later Safe transaction`,
        c.args.guard,
      ),
    'setFallbackHandler(address)': (c) =>
      power(
        c,
        'safe-fallback-handler',
        `setFallbackHandler makes ${str(c.args.handler)} the fallback handler, which answers calls the Safe does not implement (EIP-1271 signature checks among them)`,
        c.args.handler,
      ),
  },
  contracts: [
    {
      id: 'safe-multisend-call-only',
      name: 'Safe MultiSendCallOnly',
      kind: 'safe-multisend',
      deployments: onBaseAndSepolia(
        '0x9641d764fc13c8B624c04430C7356C1C7C8102e2', // 1.4.1
        '0x40A2aCCbd92BCA938b02010E17A5b8929b49130D', // 1.3.0
        '0xA1dabEF33b3B82c7814B6D82A79e50F4AC44102B', // 1.3.0 (eip155)
      ),
      codes: [
        {
          hash: '0xecd5bd14a08c5d2122379900b2f272bdf107a7e92423c10dd5fe3254386c9939',
          immutables: [],
          source:
            '@safe-global/safe-contracts 1.4.1 MultiSendCallOnly (= safe-deployments codeHash)',
        },
      ],
    },
    {
      id: 'safe-multisend',
      name: 'Safe MultiSend',
      kind: 'safe-multisend',
      deployments: onBaseAndSepolia(
        '0x38869bf66a61cF6bDB996A6aE40D5853Fd43B526', // 1.4.1
        '0xA238CBeb142c10Ef7Ad8442C6D1f9E89e07e7761', // 1.3.0
        '0x998739BFdAAdde7C933B942a68053933098f9EDa', // 1.3.0 (eip155)
      ),
      codes: [
        {
          hash: '0xbe8c0a076af4c2555e37ce30e86a260c5d695e7f1f372621e64eb3b8f91afcea',
          immutables: [[224, 32]], // multisendSingleton = address(this)
          source: '@safe-global/safe-contracts 1.4.1 MultiSend',
        },
      ],
    },
  ],
} satisfies ProtocolModule<FunctionKey<typeof ABI>>

/** One change of who controls the Safe (the call's target). */
function power(
  { site }: ProtocolCall,
  kind: PowerEffect['kind'],
  action: string,
  subjectValue?: ProtocolCall['args'][string],
): PowerEffect[] {
  const effect: PowerEffect = { kind, contract: site.target, action }
  const subject = addr(subjectValue)
  if (subject !== undefined) effect.subject = subject
  return [effect]
}

function threshold({ args }: ProtocolCall): string {
  const n = big(args._threshold)
  return n === undefined ? '(unreadable)' : n.toString(10)
}
