import {
  UNIVERSAL_ROUTER_COMMAND_ROWS,
  type UniversalRouterCommand,
  V4_ACTION_ROWS,
} from '../protocols/universal-router.js'

/**
 * The decoder's tables of the Universal Router's commands and of the v4 actions its `V4_SWAP`
 * plans carry, by code: the rows the Universal Router module declares
 * (`src/domain/protocols/universal-router.ts`), where what they mean is read.
 */
export const UNIVERSAL_ROUTER_COMMANDS: ReadonlyMap<number, UniversalRouterCommand> = new Map<
  number,
  UniversalRouterCommand
>(UNIVERSAL_ROUTER_COMMAND_ROWS)

/** The v4 actions a `V4_SWAP` plan may carry, by code (see {@link UNIVERSAL_ROUTER_COMMANDS}). */
export const V4_ACTIONS: ReadonlyMap<number, UniversalRouterCommand> = new Map<
  number,
  UniversalRouterCommand
>(V4_ACTION_ROWS)
