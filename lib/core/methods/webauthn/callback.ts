/**
 * POST <base>/callback/:webauthnProvider (`action`, `data`, `csrfToken`, `callbackUrl`): verifies an assertion or an
 * attestation against a single-use challenge and signs the user in (B.1 verification and registration orders).
 */
import { sessionContext } from "../../session/context"
import { userForChange } from "../../session/for-change"
import { store } from "../../kernel/config/stores"
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server"
import type { AdapterUser } from "../../../storage/adapter"
import { AccountNotLinked, InvalidRequest, WebAuthnVerificationError } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { finishSignIn, runSignInCallback } from "../../session/finish-sign-in"
import type { Account } from "../../kernel/types"
import { consumeChallenge } from "../../../webauthn/challenge"
import { findAuthenticator } from "../../../webauthn/encoding"
import { updateCounter } from "./counter"
import { simpleWebAuthn } from "../../../webauthn/library"
import { webAuthnProvider } from "./options"
import { registerCredential } from "./register"
import { crossOriginRefusal, expectedRelyingParty } from "../../../webauthn/relying-party"
import type { ResolvedWebAuthnProvider } from "../../../webauthn/provider"
import { currentUser } from "./users"
import { challengeFlow } from "./flow"

/** Largest `data` field accepted (B.2 rule 10). */
export const MAX_WEBAUTHN_DATA = 64 * 1024

const verificationFailed = (provider: string, reason: string, err?: unknown): WebAuthnVerificationError =>
  new WebAuthnVerificationError("WebAuthn verification failed", {
    cause: { provider, reason, ...(err instanceof Error ? { err } : {}) },
  })

/** Refuses a ceremony run in a cross-origin iframe, unless its top-level origin is allowed (after the challenge is spent). */
function assertSameOrigin(
  provider: ResolvedWebAuthnProvider,
  response: { clientDataJSON?: unknown } | undefined,
): void {
  const refusal = crossOriginRefusal(provider, response?.clientDataJSON)
  if (refusal) throw verificationFailed(provider.id, refusal)
}

/**
 * An assertion's `topOrigin` is also checked by the library, against `expectedTopOrigin`: the allowed ones, when there
 * are any (its registration check reads neither member, so {@link assertSameOrigin} is the rule there).
 */
const topOriginOption = (provider: ResolvedWebAuthnProvider) =>
  provider.topOrigins.length > 0 ? { expectedTopOrigin: [...provider.topOrigins] } : {}

function parseData<T>(ctx: RequestContext, provider: string): T & { id: string } {
  const data = ctx.request.body?.data
  if (typeof data !== "string" || data.length > MAX_WEBAUTHN_DATA) throw verificationFailed(provider, "bad data")
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  } catch (error) {
    throw verificationFailed(provider, "data is not JSON", error)
  }
  const id = (parsed as { id?: unknown } | null)?.id
  if (typeof parsed !== "object" || parsed === null || typeof id !== "string") {
    throw verificationFailed(provider, "data has no credential id")
  }
  return parsed as T & { id: string }
}

async function authenticate(ctx: RequestContext, provider: ResolvedWebAuthnProvider): Promise<AuthResult> {
  const adapter = store(ctx.config, "webauthn")
  const response = parseData<AuthenticationResponseJSON>(ctx, provider.id)
  const stored = await findAuthenticator(adapter, response.id)
  if (!stored) throw verificationFailed(provider.id, "unknown credential")
  const { challenge } = await consumeChallenge(challengeFlow(ctx, provider), "authenticate")
  assertSameOrigin(provider, response.response)
  const rp = expectedRelyingParty(ctx.origin, provider)
  const lib = await simpleWebAuthn()
  let verified: Awaited<ReturnType<typeof lib.verifyAuthenticationResponse>>
  try {
    verified = await lib.verifyAuthenticationResponse({
      ...provider.verifyAuthenticationOptions,
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.ids,
      ...topOriginOption(provider),
      // The counter rule is applied below with a compare-and-swap, so the library gets 0 here (it would otherwise
      // accept a replayed zero-counter assertion and reject a regression without telling us which).
      credential: {
        id: response.id,
        publicKey: new Uint8Array(Buffer.from(stored.credentialPublicKey, "base64")),
        counter: 0,
      },
    })
  } catch (error) {
    throw verificationFailed(provider.id, "assertion did not verify", error)
  }
  if (!verified.verified) throw verificationFailed(provider.id, "assertion did not verify")
  await updateCounter(ctx, provider, stored, verified.authenticationInfo.newCounter)

  const account = await adapter.getAccount(stored.providerAccountId, provider.id)
  const user = account ? await adapter.getUser(account.userId) : null
  if (!account || !user || user.id !== stored.userId) throw verificationFailed(provider.id, "credential has no user")
  const signInAccount: Account = { ...account, type: "webauthn" }
  const redirect = await runSignInCallback(ctx, { user, account: signInAccount })
  if (redirect) return { redirect }
  const userVerified = verified.authenticationInfo.userVerified === true
  return finishSignIn(ctx, { user, account: signInAccount, isNewUser: false, userVerified })
}

async function register(ctx: RequestContext, provider: ResolvedWebAuthnProvider): Promise<AuthResult> {
  const adapter = store(ctx.config, "webauthn")
  const response = parseData<RegistrationResponseJSON>(ctx, provider.id)
  const { challenge, registerData } = await consumeChallenge(challengeFlow(ctx, provider), "register")
  if (!registerData) throw verificationFailed(provider.id, "challenge has no registration data")
  assertSameOrigin(provider, response.response)
  const rp = expectedRelyingParty(ctx.origin, provider)
  const lib = await simpleWebAuthn()
  let verified: Awaited<ReturnType<typeof lib.verifyRegistrationResponse>>
  try {
    verified = await lib.verifyRegistrationResponse({
      ...provider.verifyRegistrationOptions,
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.ids,
    })
  } catch (error) {
    throw verificationFailed(provider.id, "attestation did not verify", error)
  }
  if (!verified.verified) throw verificationFailed(provider.id, "attestation did not verify")

  // The user is the one the options were issued for: still signed in as them, or (sign-up) still unknown.
  // Adding a passkey to an existing account is a change: never by an impersonation session.
  const signedIn = registerData.exists ? await userForChange(sessionContext(ctx)) : await currentUser(ctx)
  let user: AdapterUser | null = null
  if (registerData.exists) {
    user = signedIn?.id === registerData.id ? signedIn : null
    if (!user)
      throw new AccountNotLinked("Sign in as the account to add a passkey to", { cause: { provider: provider.id } })
  } else {
    if (signedIn) throw new AccountNotLinked("Already signed in", { cause: { provider: provider.id } })
    if (await adapter.getUserByEmail(registerData.email)) {
      throw new AccountNotLinked("Another account already exists with the same e-mail address", {
        cause: { provider: provider.id },
      })
    }
  }

  const { credential, credentialDeviceType, credentialBackedUp, aaguid } = verified.registrationInfo
  const newUser = {
    id: registerData.id,
    email: registerData.email,
    name: registerData.name ?? null,
    emailVerified: null,
  }
  const candidate = user ?? (newUser as AdapterUser)
  const redirect = await runSignInCallback(ctx, {
    user: candidate,
    account: { type: "webauthn", provider: provider.id, providerAccountId: toAccountId(credential.id) },
  })
  if (redirect) return { redirect }
  const created = await registerCredential(ctx, provider, {
    user: user ?? undefined,
    newUser: user ? undefined : (newUser as AdapterUser),
    credential: {
      id: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? response.response.transports ?? [],
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      aaguid,
    },
  })
  return finishSignIn(ctx, { user: created.user, account: created.account, isNewUser: !user })
}

const toAccountId = (id: string): string => Buffer.from(id, "base64url").toString("base64")

/**
 * Handles the WebAuthn callback. The router has checked CSRF first (the route table's rule; Auth.js skips it): without
 * a valid token nothing is read or verified.
 *
 * @example
 * ```ts
 * const result = await webAuthnCallback(ctx)
 * ```
 */
export async function webAuthnCallback(ctx: RequestContext): Promise<AuthResult> {
  const provider = webAuthnProvider(ctx)
  const action = ctx.request.body?.action
  if (action === "authenticate") return authenticate(ctx, provider)
  if (action === "register") return register(ctx, provider)
  throw new InvalidRequest("Invalid action parameter", { cause: { provider: provider.id } })
}
