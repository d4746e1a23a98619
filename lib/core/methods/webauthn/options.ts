/** GET <base>/webauthn-options/:provider?action=register|authenticate&email= (Auth.js decision table, B.1). */
import { sessionContext } from "../../session/context"
import { userForChange } from "../../session/for-change"
import { store } from "../../kernel/config/stores"
import { InvalidProvider, MissingAdapter } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import { jsonHeaders, type AuthResult } from "../../kernel/response"
import { issueChallenge, newChallenge, type Ceremony, type RegisterData } from "../../../webauthn/challenge"
import { descriptors } from "../../../webauthn/encoding"
import { simpleWebAuthn } from "../../../webauthn/library"
import { expectedRelyingParty } from "../../../webauthn/relying-party"
import type { ResolvedWebAuthnProvider } from "../../../webauthn/provider"
import { currentUser, userHandle, userInfo } from "./users"
import { challengeFlow } from "./flow"

const badRequest = (error: string): AuthResult => ({ status: 400, headers: { ...jsonHeaders }, body: { error } })

/** The provider of a WebAuthn route, or the Configuration error Auth.js answers. */
export function webAuthnProvider(ctx: RequestContext): ResolvedWebAuthnProvider {
  const provider = ctx.provider
  if (!provider || provider.type !== "webauthn") {
    throw new InvalidProvider("Invalid provider for WebAuthn", { cause: { provider: ctx.request.providerId } })
  }
  if (!ctx.config.stores.webauthn) throw new MissingAdapter("WebAuthn requires an adapter")
  return provider as ResolvedWebAuthnProvider
}

/**
 * Answers the options request: 200 `{action, options}` plus the challenge cookie, or 400 `{"error": ...}`.
 *
 * @example
 * ```ts
 * const result = await webAuthnOptionsAction(ctx)
 * ```
 */
export async function webAuthnOptionsAction(ctx: RequestContext): Promise<AuthResult> {
  const provider = webAuthnProvider(ctx)
  const adapter = store(ctx.config, "webauthn")
  const requested = ctx.request.query.action
  if (requested !== undefined && requested !== "register" && requested !== "authenticate") {
    return badRequest("Invalid action")
  }
  // Anything but an authentication is asked to add a passkey: never by an impersonation session.
  const signedIn = requested === "authenticate" ? await currentUser(ctx) : await userForChange(sessionContext(ctx))
  let info = signedIn ? { user: signedIn, exists: true } : await userInfo(ctx, provider)
  // A provider that never says which credentials an address has (`passkey`) does not say whether it has an account
  // either: a registration for a known address, asked by nobody signed in, gets the answer (and the work) an unknown
  // address gets. The ceremony then fails at the callback, which refuses to attach a passkey to an existing account.
  if (requested === "register" && !signedIn && info?.exists && !provider.listCredentialsByEmail) {
    info = { user: { email: info.user.email }, exists: false }
  }

  let action: Ceremony | undefined
  if (requested === "authenticate") action = "authenticate"
  else if (requested === "register") action = info && Boolean(signedIn) === info.exists ? "register" : undefined
  else if (!signedIn) action = info?.exists === false ? "register" : "authenticate"
  if (!action) return badRequest("Invalid request")

  const lib = await simpleWebAuthn()
  const rp = expectedRelyingParty(ctx.origin, provider)
  const challenge = newChallenge()
  // The library base64url-encodes the bytes it is given; a string would be taken as UTF-8 text.
  const challengeBytes = new Uint8Array(Buffer.from(challenge, "base64url"))

  if (action === "authenticate") {
    // Nobody signed in: `passkey` lists nothing (no hint about an email's credentials, B.2 rule 8); `webauthn`
    // keeps the Auth.js behaviour and lists the credentials of the user the email names.
    const knownId = signedIn?.id ?? (!provider.listCredentialsByEmail || !info?.exists ? undefined : info.user.id)
    const allow = knownId ? descriptors(await adapter.listAuthenticatorsByUserId(knownId)) : []
    const options = await lib.generateAuthenticationOptions({
      ...provider.authenticationOptions,
      rpID: rp.id,
      challenge: challengeBytes,
      allowCredentials: allow,
    })
    await issueChallenge(challengeFlow(ctx, provider), { challenge, ceremony: "authenticate" })
    return { headers: { ...jsonHeaders }, body: { action, options } }
  }

  const email = typeof info?.user.email === "string" && info.user.email !== "" ? info.user.email : undefined
  // A new user needs an email (it becomes the account); a signed-in user without one registers under their name or id.
  if (!info?.exists && (!email || provider.allowSignUp === false)) return badRequest("Invalid request")
  const registerData: RegisterData = {
    id: info?.exists && info.user.id ? info.user.id : crypto.randomUUID(),
    email: email ?? "",
    name: info?.user.name ?? null,
    exists: Boolean(info?.exists),
  }
  const userName = email ?? registerData.name ?? registerData.id
  const existing = registerData.exists ? await adapter.listAuthenticatorsByUserId(registerData.id) : []
  const options = await lib.generateRegistrationOptions({
    attestationType: "none",
    ...provider.registrationOptions,
    rpID: rp.id,
    rpName: rp.name,
    userName,
    userDisplayName: registerData.name ?? userName,
    userID: userHandle(ctx, provider, registerData.id),
    challenge: challengeBytes,
    excludeCredentials: descriptors(existing),
  })
  await issueChallenge(challengeFlow(ctx, provider), { challenge, ceremony: "register", registerData })
  return { headers: { ...jsonHeaders }, body: { action, options } }
}
