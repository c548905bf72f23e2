import { readersOf } from '../../protocols/protocol-modules.js'
import { knownCallSite } from '../call-args.js'
import { positionKey } from '../context.js'
import {
  hitAt,
  isSenderOrCaller,
  type RuleHit,
  type RuleInput,
  type ScreenRule,
} from '../screen-rule.js'

/** What acting on another account's position does, by function. */
const EFFECT_TEXT: Readonly<Record<string, string>> = {
  increaseLiquidity: "adds the sender's tokens to it: a gift to its owner",
  decreaseLiquidity: "takes liquidity out of it (as the owner's approved operator)",
  collect: "collects its owed tokens (as the owner's approved operator)",
}

/** A call on a position NFT (by token id) whose owner is neither the sender nor the caller. */
export const positionNotOwned: ScreenRule = {
  id: 'position-not-owned',
  severity: 'warning',
  title: 'A call acts on a position someone else owns',
  checks:
    'A call on a position NFT by its token id (Uniswap v3 NonfungiblePositionManager `increaseLiquidity`, `decreaseLiquidity`, `collect`, at top level or in a batch) whose owner (`ownerOf(tokenId)`, read before the transaction in the same simulation) is neither the sender nor the account making the call. The detail names the position manager, the token id and the owner.',
  why: "Anyone may add liquidity to any position: tokens added to a stranger's position are theirs to withdraw, a gift the sender never gets back. Taking liquidity or fees out of someone else's position works only as their approved operator, and moves what is theirs: either way the sender is not acting on its own money.",
  example: '`increaseLiquidity({tokenId: 4242, …})` where position 4242 belongs to 0xStranger.',
  evaluate({ ctx, sites }: RuleInput) {
    const owners = ctx.positionOwners
    if (owners === undefined) return []
    const hits: RuleHit[] = []
    for (const site of sites) {
      const known = knownCallSite(site)
      const read = known === undefined ? undefined : readersOf(known.key)?.positionNfts
      if (known === undefined || read === undefined) continue
      for (const nft of read(known)) {
        const owner = owners.get(positionKey(nft.collection, nft.tokenId))
        if (owner === undefined || isSenderOrCaller(owner, site, ctx.tx)) continue
        hits.push(
          hitAt(
            site,
            `${known.call.name} on ${nft.protocol} ${nft.collection} position ${nft.tokenId}, owned by ${owner}, not the sender: it ${EFFECT_TEXT[known.call.name] ?? 'acts on it'}.`,
          ),
        )
      }
    }
    return hits
  },
}
