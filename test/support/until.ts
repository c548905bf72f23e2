/**
 * Polls `check` every `stepMs` until it holds; fails naming `what` once `timeoutMs` has passed
 * without it.
 */
export async function until(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  stepMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, stepMs))
  }
}
