/** The signature-counter rule: compare-and-swap, never decreasing; a regression is rejected and reported (B.2 rule 4). */
import { store } from "../../kernel/config/stores"
import type { AdapterAuthenticator } from "../../../storage/adapter"
import { WebAuthnVerificationError } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import type { ResolvedWebAuthnProvider } from "../../../webauthn/provider"

const isRegression = (next: number, stored: number): boolean => (next > 0 || stored > 0) && next <= stored

async function reportRegression(
  ctx: RequestContext,
  provider: ResolvedWebAuthnProvider,
  stored: AdapterAuthenticator,
): Promise<never> {
  const adapter = store(ctx.config, "webauthn")
  ctx.logger.warn(
    "webauthn-counter-regression",
    "A passkey's signature counter did not increase (credential " +
      `${stored.credentialID} of user ${stored.userId}): the authenticator may be cloned, so the sign-in was refused.`,
  )
  await ctx.config.events.securityAlert({
    type: "webauthn.counter_regression",
    userId: stored.userId,
    credentialID: stored.credentialID,
  })
  if (provider.onCounterRegression === "disable" && typeof adapter.deleteAuthenticator === "function") {
    await adapter.deleteAuthenticator(stored.credentialID)
  }
  throw new WebAuthnVerificationError("Signature counter regression", {
    cause: { provider: provider.id, reason: "counter regression" },
  })
}

/**
 * Stores `next` as the credential's counter if it is still the value read (`stored.counter`). A miss re-reads once:
 * a counter that moved to `next` or beyond is a regression (a cloned authenticator or a replay), otherwise the swap
 * is retried. With an Auth.js adapter (no compare-and-swap) the write is plain, as there.
 *
 * @example
 * ```ts
 * await updateCounter(ctx, provider, stored, authenticationInfo.newCounter)
 * ```
 */
export async function updateCounter(
  ctx: RequestContext,
  provider: ResolvedWebAuthnProvider,
  stored: AdapterAuthenticator,
  next: number,
): Promise<void> {
  const adapter = store(ctx.config, "webauthn")
  let current = stored
  for (let attempt = 0; attempt < 2; attempt++) {
    if (isRegression(next, current.counter)) return reportRegression(ctx, provider, current)
    const updated = await adapter.updateAuthenticatorCounter(current.credentialID, next, { expected: current.counter })
    if (updated) return
    const reread = await adapter.getAuthenticator(current.credentialID)
    if (!reread) {
      throw new WebAuthnVerificationError("The credential was removed", { cause: { provider: provider.id } })
    }
    current = reread
  }
  if (isRegression(next, current.counter)) return reportRegression(ctx, provider, current)
  throw new WebAuthnVerificationError("The signature counter kept changing", { cause: { provider: provider.id } })
}
