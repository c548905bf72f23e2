import type { PhishingList, PhishingMatch } from '../../domain/evidence/phishing-hosts.js'

/** What `eth-phishing-detect`'s detector answers for one host. */
interface DetectorResult {
  result: boolean
  type: string
  match?: string
}

interface DetectorModule {
  new (config: unknown): { check(host: string): DetectorResult }
}

/**
 * MetaMask's phishing list as the pinned npm package `eth-phishing-detect` ships it (its
 * `src/config.json`: an allowlist, a blocklist and a few genuine targets whose look-alikes are
 * flagged), checked with the package's own detector. Nothing is fetched: the list changes only
 * when the pinned version does. Loaded on first use (a few hundred kilobytes of JSON), so start-up
 * does not pay for it.
 */
export async function loadMetaMaskPhishingList(): Promise<PhishingList> {
  const [detector, config, manifest] = await Promise.all([
    import('eth-phishing-detect/src/detector.js'),
    import('eth-phishing-detect/src/config.json', { with: { type: 'json' } }),
    import('eth-phishing-detect/package.json', { with: { type: 'json' } }),
  ])
  const Detector = detector.default as DetectorModule
  const list = config.default as { version: number }
  const instance = new Detector(list)
  return {
    info: {
      name: 'MetaMask eth-phishing-detect',
      version: `${(manifest.default as { version: string }).version} (list v${list.version})`,
    },
    check(host: string): PhishingMatch | null {
      const verdict = instance.check(host.toLowerCase())
      if (!verdict.result) return null
      return verdict.type === 'fuzzy' && verdict.match
        ? { kind: 'lookalike', of: verdict.match }
        : { kind: 'blocklist' }
    },
  }
}

/** The list, loaded once on first use and shared by every request after. */
export function lazyMetaMaskPhishingList(): () => Promise<PhishingList> {
  let loading: Promise<PhishingList> | undefined
  return () => {
    loading ??= loadMetaMaskPhishingList().catch((error: unknown) => {
      loading = undefined
      throw error
    })
    return loading
  }
}
