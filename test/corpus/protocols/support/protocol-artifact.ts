import { readFileSync } from 'node:fs'
import type { Abi, Hex } from 'viem'

/** A committed protocol artifact: contracts/protocols/<protocol>/<ContractName>.json. */
export interface ProtocolArtifact {
  contractName: string
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
  immutableReferences?: Record<string, { start: number; length: number }[]>
}

export function protocolArtifact(protocol: string, name: string): ProtocolArtifact {
  const url = new URL(`../../../../contracts/protocols/${protocol}/${name}.json`, import.meta.url)
  return JSON.parse(readFileSync(url, 'utf8')) as ProtocolArtifact
}
