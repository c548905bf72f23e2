import { expectBytes, lowerHex } from '@pre-send-guard/client/types'
import {
  type Address,
  concat,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  keccak256,
  parseEther,
} from 'viem'
import probeArtifact from '../../../contracts/artifacts/DelegateProbe.json' with { type: 'json' }
import tokenArtifact from '../../../contracts/artifacts/ProbeToken.json' with { type: 'json' }
import { ENTRY_POINTS } from '../account-abstraction/entry-points.js'
import { checksummed } from '../evm/checksummed.js'
import type {
  BlockRef,
  CallRequest,
  ChainReader,
  SimulatedCall,
  StateOverrides,
} from '../preflight/chain-reader.js'
import { knownCodeOn, recogniseCode } from '../protocols/known-code.js'
import { type NetworkId, servedNetwork } from '../protocols/network.js'
import type { ProbeReport, SenderDelegate } from './probe-report.js'

export type { ProbeHit, ProbeReport, SenderDelegate } from './probe-report.js'

/**
 * The addresses the behaviour probe plays with. None holds anything on Base; each is a plain
 * number nobody has the key of, so the probe cannot collide with a real account.
 */
export const PROBE_ADDRESSES = {
  /** The first stranger: runs {@link probeArtifact} and calls the account as anyone could. */
  stranger: '0x000000000000000000000000000000005742a001',
  /** The second stranger: stands in for every address hard-coded in the delegate's code. */
  standIn: '0x000000000000000000000000000000005742a002',
  /** The canary ERC-20 the account is given. */
  token: '0x000000000000000000000000000000005742a0c0',
  /** Sends the probe call. */
  caller: '0x000000000000000000000000000000005742a0ca',
} as const satisfies Record<string, Address>

/** Canary tokens the account holds during the probe (18 decimals, so 1,000 tokens). */
const CANARY_BALANCE = parseEther('1000')
/** ETH the account and the first stranger hold during the probe. */
const PROBE_ETH = parseEther('10')
/** ETH the probe sends the account to see whether it stays (`INCOMING` in DelegateProbe.sol). */
const PROBE_INCOMING_ETH = parseEther('1')
/** The first stranger's nonce: its CREATE of the delegate's copy lands at a known address. */
const STRANGER_NONCE = 1

/**
 * Where the copy of the delegate lands (the first stranger's CREATE), and so where the probed
 * account's delegation points.
 */
export const PROBE_COPY: Address = getContractAddress({
  from: PROBE_ADDRESSES.stranger,
  nonce: BigInt(STRANGER_NONCE),
})

/** {@link keptAddresses} per network, built on first use. */
const keptOn = new Map<NetworkId, readonly Address[]>()

/**
 * Addresses a delegate may hard-code without them counting as operators, on `network` (the
 * served one by default): known infrastructure that acts only on what the account itself signed
 * (the EntryPoints, Permit2, ...), at its addresses there. Tokens and protocols are kept too: a
 * delegate that names USDC is not handing USDC the keys. On Base Sepolia that is Sepolia's USDC,
 * and no mainnet-only protocol's address.
 */
export function keptAddresses(network: NetworkId = servedNetwork()): readonly Address[] {
  let kept = keptOn.get(network)
  if (kept === undefined) {
    const known = knownCodeOn(network).flatMap((k) => k.addresses)
    kept = [...new Set([...Object.values(ENTRY_POINTS), ...known])]
    keptOn.set(network, kept)
  }
  return kept
}

const probeAbi = probeArtifact.abi
/** The runtime codes the probe places, checked once when the module loads. */
const PROBE_CODE = expectBytes(probeArtifact.deployedBytecode, 'DelegateProbe.json')
const TOKEN_CODE = expectBytes(tokenArtifact.deployedBytecode, 'ProbeToken.json')

/**
 * The probe of `delegate` for `account`: one call and the state overrides that stage it (the
 * account delegated to the copy, given ETH and canary tokens; the strangers given the probe's
 * code). The account's real state is otherwise untouched, and nothing is sent.
 */
export function probePlan(
  account: Address,
  delegate: Address,
): { call: CallRequest; overrides: StateOverrides } {
  const runtime = PROBE_CODE
  const overrides: Record<Address, StateOverrides[Address]> = {
    [checksummed(account)]: {
      code: concat(['0xef0100', PROBE_COPY]),
      balance: PROBE_ETH,
    },
    [checksummed(PROBE_ADDRESSES.stranger)]: {
      code: runtime,
      balance: PROBE_ETH,
      nonce: STRANGER_NONCE,
    },
    [checksummed(PROBE_ADDRESSES.standIn)]: { code: runtime },
    [checksummed(PROBE_ADDRESSES.token)]: {
      code: TOKEN_CODE,
      stateDiff: { [balanceSlot(account)]: toWord(CANARY_BALANCE) },
    },
  }
  const data = encodeFunctionData({
    abi: probeAbi,
    functionName: 'probe',
    args: [account, delegate, PROBE_ADDRESSES.token, keptAddresses(), PROBE_ADDRESSES.standIn],
  })
  return {
    call: { from: PROBE_ADDRESSES.caller, to: PROBE_ADDRESSES.stranger, data, value: 0n },
    overrides,
  }
}

/** ProbeToken keeps balances in a mapping at slot 0. */
function balanceSlot(account: Address): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [account, 0n]))
}

function toWord(value: bigint): Hex {
  return `0x${value.toString(16).padStart(64, '0')}`
}

type RawResult = {
  code: Hex
  copy: Address
  hardCoded: readonly Address[]
  ethAccepted: boolean
  ethKept: bigint
  selectors: bigint
  hits: readonly {
    caller: Address
    selector: Hex
    shape: number
    ethOut: bigint
    tokenOut: bigint
    allowance: bigint
  }[]
}

/** Reads the probe call's outcome. */
export function probeReport(simulated: SimulatedCall | undefined): ProbeReport {
  if (simulated === undefined) return { ran: false, reason: 'the probe was not simulated' }
  if (simulated.status !== 'success') {
    return { ran: false, reason: `the probe itself failed: ${simulated.message}` }
  }
  let raw: RawResult
  try {
    raw = decodeFunctionResult({
      abi: probeAbi,
      functionName: 'probe',
      data: simulated.returnData,
    }) as unknown as RawResult
  } catch {
    return { ran: false, reason: 'the probe answered in an unexpected shape' }
  }
  const code = lowerHex(raw.code)
  if (code !== '0x' && raw.copy.toLowerCase() !== PROBE_COPY.toLowerCase()) {
    return {
      ran: false,
      reason:
        "the delegate's code could not be copied for the probe (it starts with 0xEF or creation failed)",
    }
  }
  const hits = raw.hits.map((h) => ({
    caller: checksummed(h.caller),
    selector: h.selector,
    shape: h.shape,
    ethOut: h.ethOut,
    tokenOut: h.tokenOut,
    allowance: h.allowance,
  }))
  const stranger = PROBE_ADDRESSES.stranger.toLowerCase()
  return {
    ran: true,
    code,
    hardCoded: raw.hardCoded.map((a) => checksummed(a)),
    ethAccepted: raw.ethAccepted,
    ethKept: raw.ethKept,
    ethSent: PROBE_INCOMING_ETH,
    selectors: Number(raw.selectors),
    byStranger: hits.filter((h) => h.caller.toLowerCase() === stranger),
    byHardCoded: hits.filter((h) => h.caller.toLowerCase() !== stranger),
  }
}

/** A delegate's code, whether it is a known wallet delegate, and its probe on `account`. */
export interface DelegateReads {
  code: Hex
  recognised: { id: string; name: string } | undefined
  probe: ProbeReport
}

/**
 * Reads a delegate's code and probes it on `account` (its real storage, its code replaced by the
 * copy for the probe only): two requests side by side.
 */
export async function readDelegate(
  chain: Pick<ChainReader, 'code' | 'simulate'>,
  account: Address,
  delegate: Address,
  at: BlockRef,
): Promise<DelegateReads> {
  const plan = probePlan(account, delegate)
  const [code, simulation] = await Promise.all([
    chain.code(delegate, at),
    chain.simulate([plan.call], at, plan.overrides),
  ])
  const known = code === '0x' ? undefined : recogniseCode(delegate, code)
  return {
    code,
    recognised: known?.kind === 'wallet-delegate' ? { id: known.id, name: known.name } : undefined,
    probe: simulation.available
      ? probeReport(simulation.calls[0])
      : { ran: false, reason: simulation.reason },
  }
}

/** A delegated sender's delegate, read and probed on the sender ({@link readDelegate}). */
export async function readSenderDelegate(
  chain: Pick<ChainReader, 'code' | 'simulate'>,
  sender: Address,
  delegate: Address,
  at: BlockRef,
): Promise<SenderDelegate> {
  const { recognised, probe } = await readDelegate(chain, sender, delegate, at)
  return { delegate, recognised, probe }
}

/** True when the probe saw the delegate let assets leave the account. */
export function probeFoundHarm(probe: ProbeReport | undefined): boolean {
  if (probe === undefined || !probe.ran) return false
  return (
    probe.byStranger.length > 0 ||
    probe.byHardCoded.length > 0 ||
    (probe.ethAccepted && probe.ethKept < probe.ethSent)
  )
}
