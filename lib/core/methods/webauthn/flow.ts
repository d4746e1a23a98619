/** The WebAuthn engine's view of a request: the narrow flow context `lib/webauthn/` works through. */
import type { VerificationTokenAdapter } from "../../../storage/adapter"
import type { ChallengeStore } from "../../../providers/types"
import type { Ceremony, ChallengeFlow, ResolvedWebAuthnProvider } from "../../../webauthn"
import { checkSealer } from "../../kernel/checks"
import { store } from "../../kernel/config/stores"
import type { RequestContext } from "../../kernel/context"
import { CHECK_COOKIE_MAX_AGE } from "../../kernel/cookies/names"

/**
 * The challenge flow of a request: the challenge cookie of its scheme, the core's check sealer, and the single-use
 * store of each ceremony.
 *
 * @example
 * ```ts
 * await issueChallenge(challengeFlow(ctx, provider), { challenge, ceremony: "authenticate" })
 * ```
 */
export function challengeFlow(ctx: RequestContext, provider: ResolvedWebAuthnProvider): ChallengeFlow {
  const { name, options } = ctx.cookies.webauthnChallenge
  return {
    provider,
    cookie: {
      name,
      options,
      value: ctx.request.cookies[name],
      set: (value, extra) => ctx.jar.set(name, value, { ...options, ...extra }),
      delete: () => ctx.jar.delete(name, options),
    },
    sealer: checkSealer(ctx.config.secret),
    store: (ceremony) => storeFor(ctx, provider, ceremony),
    defaultMaxAge: CHECK_COOKIE_MAX_AGE,
  }
}

/**
 * Where a challenge's single use is recorded: the provider's `challengeStore`; else the key-value store when it is
 * shared (configured, or the adapter's), as a first-use marker (`consume`) that outlives the cookie; else the adapter's
 * verification tokens under `webauthn:<ceremony>`; else the per-process key-value store.
 */
function storeFor(ctx: RequestContext, provider: ResolvedWebAuthnProvider, ceremony: Ceremony): ChallengeStore {
  if (provider.challengeStore) return provider.challengeStore
  const adapter = store(ctx.config, "webauthn")
  const { createVerificationToken, useVerificationToken } = adapter
  if (ctx.config.storeSource !== "memory" || !createVerificationToken || !useVerificationToken) {
    const kv = ctx.config.store
    return {
      // The sealed cookie proves the server issued the challenge; the store only has to see each one used once.
      set: () => undefined,
      consume: (token) => kv.consume(`webauthn:used:${ceremony}:${token}`, CHECK_COOKIE_MAX_AGE),
    }
  }
  return tokenStore({ createVerificationToken, useVerificationToken }, ceremony)
}
function tokenStore(adapter: VerificationTokenAdapter, ceremony: Ceremony): ChallengeStore {
  const identifier = `webauthn:${ceremony}`
  return {
    set: async (token, expires) => void (await adapter.createVerificationToken({ identifier, token, expires })),
    consume: async (token) => {
      const row = await adapter.useVerificationToken({ identifier, token })
      return row !== null && new Date(row.expires).getTime() > Date.now()
    },
  }
}
