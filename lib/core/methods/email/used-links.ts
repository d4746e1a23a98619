/**
 * Remembers which email sign-in links were used, so that opening one again shows "already used" at once instead of a
 * confirmation button that can only fail. A mark in the key-value store (shared by every instance), kept as long as
 * the link could have lived; the adapter's token row stays the one authority for signing in.
 */
import { keyedHash } from "../../kernel/secrets"
import type { RequestContext } from "../../kernel/context"
import type { EmailConfig } from "../../../providers/types"

/** The mark of a token: the library's keyed hash (secrets.ts), over a prefixed token so it is not the adapter's. */
const markOf = keyedHash

/** The store key of a used link: a keyed hash of its token, apart from the hash the adapter stores. */
function usedKey(ctx: RequestContext, token: string): string {
  return `email-used:${markOf(`used:${token}`, ctx.config.secret[0]!)}`
}

/** How long a link of `provider` lives, in seconds: how long its mark is worth keeping. */
const lifetime = (provider: EmailConfig): number => provider.maxAge ?? 10 * 60

/**
 * Marks the link of `token` as used. Best effort: a store that is down costs only the plain "already used" page.
 *
 * @example
 * ```ts
 * await markLinkUsed(ctx, provider, token)
 * ```
 */
export async function markLinkUsed(ctx: RequestContext, provider: EmailConfig, token: string): Promise<void> {
  try {
    await ctx.config.store.set(usedKey(ctx, token), "1", lifetime(provider))
  } catch (error) {
    ctx.logger.debug("could not mark an email link as used", { error })
  }
}

/**
 * Whether the link of `token` was used (it signed someone in). `false` when the store cannot tell.
 *
 * @example
 * ```ts
 * if (await wasLinkUsed(ctx, token)) return usedLinkPage(ctx)
 * ```
 */
export async function wasLinkUsed(ctx: RequestContext, token: string): Promise<boolean> {
  // The confirmation page must still show while the store is slow or down: the read gets the adapter's time limit,
  // and an answer that does not come in time counts as "not known to be used" (the POST then decides, as before).
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ctx.config.adapterTimeout)
    timer.unref?.()
  })
  try {
    const read = ctx.config.store.get([usedKey(ctx, token)]).then(([value]) => value ?? null)
    return (await Promise.race([read, late])) === "1"
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}
