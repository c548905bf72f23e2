import {
  type Address,
  encodeFunctionData,
  type Hex,
  numberToHex,
  parseEther,
  parseUnits,
  zeroAddress,
  zeroHash,
} from 'viem'
import { mintDevnetUsdc, USDC_ADDRESS } from '../../../src/adapters/devnet/prepare.js'
import { clients, deploy, loadArtifact, testAccount } from '../../support/contracts.js'
import { SEAPORT_TYPES } from '../../support/typed-data-kinds.js'
import type { CorpusCase, CorpusSetup } from '../corpus-case.js'
import {
  deploySeaport,
  SEAPORT_ADDRESS,
  seaportArtifact,
  seaportDomain,
} from './support/seaport-deploy.js'

/**
 * Seaport 1.6 (real bytecode: solc 0.8.24 viaIR over `seaport-core@1.6.6`) at its canonical
 * Base address: the sender buys NFTs (an OpenZeppelin ERC-721) a seller listed by signing
 * EIP-712 `OrderComponents`, paying the seller and a 2.5 % marketplace fee in ETH or USDC.
 */

/** Seaport's `ItemType`. */
const NATIVE = 0
const ERC20 = 1
const ERC721 = 2
/** Seaport's `BasicOrderType`: ETH_TO_ERC721_FULL_OPEN, ERC20_TO_ERC721_FULL_OPEN. */
const ETH_TO_ERC721_FULL_OPEN = 0
const ERC20_TO_ERC721_FULL_OPEN = 8
/** `OrderType.FULL_OPEN`. */
const FULL_OPEN = 0

interface Item {
  itemType: number
  token: Address
  identifierOrCriteria: bigint
  startAmount: bigint
  endAmount: bigint
}
interface ConsiderationItem extends Item {
  recipient: Address
}
interface OrderParameters {
  offerer: Address
  zone: Address
  offer: Item[]
  consideration: ConsiderationItem[]
  orderType: number
  startTime: bigint
  endTime: bigint
  zoneHash: Hex
  salt: bigint
  conduitKey: Hex
  totalOriginalConsiderationItems: bigint
}

/** A listing's price: `amount` in the payment currency, split among `payees` by basis points. */
interface Listing {
  tokenId: bigint
  currency: 'eth' | 'usdc'
  payees: { recipient: Address; amount: bigint }[]
}

export const setup: CorpusSetup = async ({ rpcUrl, sender, deployer, stranger }) => {
  const started = performance.now()
  await deploySeaport(rpcUrl, deployer)
  const seaport = seaportArtifact('Seaport')
  const seller = testAccount(150)
  /** The marketplace's fee recipient (2.5 % of every sale). */
  const marketplace = testAccount(151).address
  /** A third party a seller chose to pay most of the price to (e.g. the collection's creator). */
  const creator = testAccount(152).address

  const { publicClient } = clients(rpcUrl, deployer)
  const chainId = await publicClient.getChainId()
  const rpc = (method: string, params: unknown[]) =>
    fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
  await rpc('anvil_setBalance', [seller.address, numberToHex(parseEther('10'))])

  const send = async (account: typeof sender, to: Address, data: Hex) => {
    const { walletClient } = clients(rpcUrl, account)
    const hash = await walletClient.sendTransaction({ to, data })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`seaport setup: ${hash} reverted`)
  }

  // The NFT: an OpenZeppelin ERC-721; the seller owns tokens 1..6 and approves Seaport.
  const nft = await deploy(rpcUrl, 'TestERC721', [], deployer)
  for (const id of [1n, 2n, 3n, 4n, 5n, 6n])
    await send(
      deployer,
      nft.address,
      encodeFunctionData({ abi: nft.abi, functionName: 'mint', args: [seller.address, id] }),
    )
  await send(
    seller,
    nft.address,
    encodeFunctionData({
      abi: nft.abi,
      functionName: 'setApprovalForAll',
      args: [SEAPORT_ADDRESS, true],
    }),
  )
  // The sender's USDC, and its approval of Seaport (the everyday ERC-20 payment path).
  await mintDevnetUsdc(rpcUrl, sender.address, parseUnits('1000', 6))
  await send(
    sender,
    USDC_ADDRESS,
    encodeFunctionData({
      abi: loadArtifact('TestERC20').abi,
      functionName: 'approve',
      args: [SEAPORT_ADDRESS, parseUnits('1000', 6)],
    }),
  )

  const counter = (await publicClient.readContract({
    address: SEAPORT_ADDRESS,
    abi: seaport.abi,
    functionName: 'getCounter',
    args: [seller.address],
  })) as bigint
  const now = (await publicClient.getBlock()).timestamp

  /** The seller signs a listing of one NFT for the listed payees. */
  const list = async (listing: Listing) => {
    const token = listing.currency === 'eth' ? zeroAddress : USDC_ADDRESS
    const itemType = listing.currency === 'eth' ? NATIVE : ERC20
    const parameters: OrderParameters = {
      offerer: seller.address,
      zone: zeroAddress,
      offer: [
        {
          itemType: ERC721,
          token: nft.address,
          identifierOrCriteria: listing.tokenId,
          startAmount: 1n,
          endAmount: 1n,
        },
      ],
      consideration: listing.payees.map((p) => ({
        itemType,
        token,
        identifierOrCriteria: 0n,
        startAmount: p.amount,
        endAmount: p.amount,
        recipient: p.recipient,
      })),
      orderType: FULL_OPEN,
      startTime: now - 60n,
      endTime: now + 30n * 86_400n,
      zoneHash: zeroHash,
      salt: 0x5eaf0n + listing.tokenId,
      conduitKey: zeroHash,
      totalOriginalConsiderationItems: BigInt(listing.payees.length),
    }
    const { totalOriginalConsiderationItems: _, ...components } = parameters
    const signature = await seller.signTypedData({
      domain: seaportDomain(chainId),
      types: SEAPORT_TYPES,
      primaryType: 'OrderComponents',
      message: { ...components, counter },
    })
    const total = listing.payees.reduce((sum, p) => sum + p.amount, 0n)
    return { parameters, signature, total }
  }

  const call = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: seaport.abi, functionName, args } as never)

  /** `BasicOrderParameters` for a signed listing, with optional fulfiller tips appended. */
  const basic = (
    order: Awaited<ReturnType<typeof list>>,
    tips: { recipient: Address; amount: bigint }[] = [],
  ) => {
    const [first, ...rest] = order.parameters.consideration
    const offer = order.parameters.offer[0]
    if (!first || !offer) throw new Error('a basic order needs an offer and a consideration')
    return {
      considerationToken: first.token,
      considerationIdentifier: 0n,
      considerationAmount: first.startAmount,
      offerer: order.parameters.offerer,
      zone: zeroAddress,
      offerToken: offer.token,
      offerIdentifier: offer.identifierOrCriteria,
      offerAmount: 1n,
      basicOrderType:
        first.itemType === NATIVE ? ETH_TO_ERC721_FULL_OPEN : ERC20_TO_ERC721_FULL_OPEN,
      startTime: order.parameters.startTime,
      endTime: order.parameters.endTime,
      zoneHash: zeroHash,
      salt: order.parameters.salt,
      offererConduitKey: zeroHash,
      fulfillerConduitKey: zeroHash,
      totalOriginalAdditionalRecipients: BigInt(rest.length),
      additionalRecipients: [
        ...rest.map((r) => ({ amount: r.startAmount, recipient: r.recipient })),
        ...tips,
      ],
      signature: order.signature,
    }
  }
  const advanced = (order: Awaited<ReturnType<typeof list>>) => ({
    parameters: order.parameters,
    numerator: 1n,
    denominator: 1n,
    signature: order.signature,
    extraData: '0x' as Hex,
  })

  const ONE = parseEther('1')
  const fee = (price: bigint) => (price * 250n) / 10_000n
  const withFee = (tokenId: bigint, currency: Listing['currency'], price: bigint) =>
    list({
      tokenId,
      currency,
      payees: [
        { recipient: seller.address, amount: price - fee(price) },
        { recipient: marketplace, amount: fee(price) },
      ],
    })

  const efficientEth = await withFee(1n, 'eth', ONE)
  const basicEth = await withFee(2n, 'eth', ONE)
  const advancedEth = await withFee(3n, 'eth', ONE)
  const creatorShare = await list({
    tokenId: 4n,
    currency: 'eth',
    payees: [
      { recipient: seller.address, amount: ONE / 10n - fee(ONE) },
      { recipient: creator, amount: (ONE * 9n) / 10n },
      { recipient: marketplace, amount: fee(ONE) },
    ],
  })
  const USDC_PRICE = parseUnits('100', 6)
  const basicUsdc = await withFee(5n, 'usdc', USDC_PRICE)
  const advancedUsdc = await withFee(6n, 'usdc', USDC_PRICE)

  const TIP = (ONE * 9n) / 10n
  const from = sender.address
  const cases: CorpusCase[] = [
    {
      name: 'seaport.buy-nft-eth-basic-efficient',
      protocol: 'seaport',
      category: 'trade',
      benign: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillBasicOrder_efficient_6GL6yc', [basic(efficientEth)]),
        value: efficientEth.total,
      },
      twin: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillBasicOrder_efficient_6GL6yc', [
          basic(efficientEth, [{ recipient: stranger, amount: TIP }]),
        ]),
        value: efficientEth.total + TIP,
      },
      twinIs:
        'an unsigned fulfiller "tip" of 0.9 ETH (90 % of the price) to a stranger appended to additionalRecipients',
    },
    {
      name: 'seaport.buy-nft-eth-basic',
      protocol: 'seaport',
      category: 'trade',
      benign: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillBasicOrder', [basic(basicEth)]),
        value: basicEth.total,
      },
      twin: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillBasicOrder', [basic(basicEth, [{ recipient: stranger, amount: TIP }])]),
        value: basicEth.total + TIP,
      },
      twinIs:
        'an unsigned fulfiller "tip" of 0.9 ETH (90 % of the price) to a stranger appended to additionalRecipients',
    },
    {
      name: 'seaport.buy-nft-eth-advanced',
      protocol: 'seaport',
      category: 'trade',
      benign: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillAdvancedOrder', [advanced(advancedEth), [], zeroHash, from]),
        value: advancedEth.total,
      },
      twin: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillAdvancedOrder', [advanced(advancedEth), [], zeroHash, stranger]),
        value: advancedEth.total,
      },
      twinIs: 'stranger as recipient (the NFT goes to the stranger, the sender pays)',
    },
    {
      name: 'seaport.buy-nft-eth-order',
      protocol: 'seaport',
      category: 'trade',
      benign: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillOrder', [
          { parameters: advancedEth.parameters, signature: advancedEth.signature },
          zeroHash,
        ]),
        value: advancedEth.total,
      },
    },
    {
      name: 'seaport.buy-nft-eth-creator-takes-90pct',
      protocol: 'seaport',
      category: 'trade',
      benign: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillOrder', [
          { parameters: creatorShare.parameters, signature: creatorShare.signature },
          zeroHash,
        ]),
        value: creatorShare.total,
      },
    },
    {
      name: 'seaport.buy-nft-usdc-basic',
      protocol: 'seaport',
      category: 'trade',
      benign: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillBasicOrder', [basic(basicUsdc)]),
      },
      twin: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillBasicOrder', [
          basic(basicUsdc, [{ recipient: stranger, amount: (USDC_PRICE * 9n) / 10n }]),
        ]),
      },
      twinIs:
        'an unsigned fulfiller "tip" of 90 USDC (90 % of the price) to a stranger appended to additionalRecipients',
    },
    {
      name: 'seaport.buy-nft-usdc-advanced',
      protocol: 'seaport',
      category: 'trade',
      benign: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillAdvancedOrder', [advanced(advancedUsdc), [], zeroHash, from]),
      },
      twin: {
        from,
        to: SEAPORT_ADDRESS,
        data: call('fulfillAdvancedOrder', [advanced(advancedUsdc), [], zeroHash, stranger]),
      },
      twinIs: 'stranger as recipient (the NFT goes to the stranger, the sender pays USDC)',
    },
  ]
  if (process.env.CORPUS_TIMING)
    console.log(`seaport setup: ${Math.round(performance.now() - started)} ms`)
  return cases
}
