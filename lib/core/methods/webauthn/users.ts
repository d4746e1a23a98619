/** Who a WebAuthn ceremony is for: the signed-in user, the user an email names, the stable user handle. */
import { store } from "../../kernel/config/stores"
import { createHmac, hkdfSync, randomBytes } from "node:crypto"
import type { AdapterUser } from "../../../storage/adapter"
import type { WebAuthnUserInfo } from "../../../providers/types"
import type { RequestContext } from "../../kernel/context"
import { sessionContext } from "../../session/context"
import { signedInUser } from "../../session/principal"
import type { ResolvedWebAuthnProvider } from "../../../webauthn/provider"

/** The user the request is signed in as (through the one door), if any. */
export function currentUser(ctx: RequestContext): Promise<AdapterUser | null> {
  return signedInUser(sessionContext(ctx))
}

/**
 * The default `getUserInfo`: the `email` of the query (GET) or body (POST); a known user exists, another email is a
 * prospective new user; no email answers `null`.
 */
export async function userInfo(
  ctx: RequestContext,
  provider: ResolvedWebAuthnProvider,
): Promise<WebAuthnUserInfo | null> {
  const request = { method: ctx.request.method, query: ctx.request.query, body: ctx.request.body }
  if (provider.getUserInfo) return provider.getUserInfo({ provider, adapter: store(ctx.config, "webauthn") }, request)
  const raw = ctx.request.method === "GET" ? ctx.request.query.email : ctx.request.body?.email
  if (typeof raw !== "string" || raw.trim() === "") return null
  const email = raw.trim().toLowerCase()
  const user = await store(ctx.config, "webauthn").getUserByEmail(email)
  return user ? { user, exists: true } : { user: { email }, exists: false }
}

/**
 * The user handle of `userId`: `"stable"` = HMAC-SHA256 under a key derived from the secret (the same user always
 * gets the same handle, so an authenticator replaces its old credential instead of adding one); `"random"` = 32 new
 * random bytes (Auth.js).
 */
export function userHandle(
  ctx: RequestContext,
  provider: ResolvedWebAuthnProvider,
  userId: string,
): Uint8Array<ArrayBuffer> {
  if (provider.userHandle === "random") return new Uint8Array(randomBytes(32))
  const key = Buffer.from(hkdfSync("sha256", ctx.config.secret[0] as string, "", "webauthn-user-handle", 32))
  return new Uint8Array(createHmac("sha256", key).update(userId).digest())
}

/** Authenticator models by AAGUID, for a credential's default name. */
const KNOWN_AAGUIDS: Readonly<Record<string, string>> = {
  "fbfc3007-154e-4ecc-8c0b-6e020557d7bd": "iCloud Keychain",
  "dd4ec289-e01d-41c9-bb89-70fa845d4bf2": "iCloud Keychain",
  "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4": "Google Password Manager",
  "adce0002-35bc-c60a-648b-0b25f1f05503": "Chrome on Mac",
  "08987058-cadc-4b81-b6e1-30de50dcbe96": "Windows Hello",
  "9ddd1817-af5a-4672-a2b9-3e3dd95000a9": "Windows Hello",
  "6028b017-b1d4-4c02-b4b3-afcdafc96bb2": "Windows Hello",
  "bada5566-a7aa-401f-bd96-45619a55120d": "1Password",
  "d548826e-79b4-db40-a3d8-11116f7e8349": "Bitwarden",
  "531126d6-e717-415c-9320-3d9aa6981239": "Dashlane",
}

/** The default name of a new credential: its model when known, else "Passkey". */
export function defaultCredentialName(aaguid: string | undefined): string {
  return (aaguid && KNOWN_AAGUIDS[aaguid.toLowerCase()]) || "Passkey"
}

export type { AdapterUser }
