/**
 * The mailed links' tokens: 32 random bytes (base64url), stored only as a keyed SHA-256 of the token bound to the user
 * and to the state the link changes (verification state, current password hash), single use by the adapter's atomic
 * `useVerificationToken`.
 */
import { randomBytes } from "node:crypto"
import type { AdapterUser } from "../../../storage/adapter"
import { store } from "../../kernel/config/stores"
import type { RequestContext } from "../../kernel/context"
import { constantTimeEqual, keyedHash } from "../../kernel/secrets"

/** The stored form of a link token: the Auth.js keyed hash (`sha256(value + secret)`) of its binding. */
const storedForm = keyedHash

/** Which link: confirm an address, or reset a password. */
export type LinkKind = "verify-email" | "password-reset"

const identifierOf = (kind: LinkKind, email: string): string => `gatehouse:${kind}:${email}`

/** The value a link's stored token is the keyed hash of: the token bound to the user and to what it changes. */
function binding(kind: LinkKind, token: string, user: AdapterUser, passwordHash: string | null): string {
  const state =
    kind === "verify-email"
      ? user.emailVerified
        ? String(new Date(user.emailVerified).getTime())
        : "none"
      : (passwordHash ?? "none")
  return `${kind}:${token}:${user.id}:${state}`
}

/**
 * Stores a new link token for `user` (the keyed hash only) and answers the raw token and its expiry.
 *
 * @example
 * ```ts
 * const { token, expires } = await issueLinkToken(ctx, "password-reset", email, user, row?.passwordHash ?? null, 1800)
 * ```
 */
export async function issueLinkToken(
  ctx: RequestContext,
  kind: LinkKind,
  email: string,
  user: AdapterUser,
  passwordHash: string | null,
  maxAge: number,
): Promise<{ token: string; expires: Date }> {
  const token = randomBytes(32).toString("base64url")
  const expires = new Date(Date.now() + maxAge * 1000)
  await store(ctx.config, "password").createVerificationToken({
    identifier: identifierOf(kind, email),
    token: storedForm(binding(kind, token, user, passwordHash), ctx.config.secret[0]!),
    expires,
  })
  return { token, expires }
}

/**
 * Uses a link token against the user's current state: recomputes the stored value from the current user and password
 * row (every secret of a rotation is tried) and deletes it atomically. `true` only for an unexpired row.
 *
 * @example
 * ```ts
 * if (!(await useLinkToken(ctx, "verify-email", email, token, user, null))) throw new Verification()
 * ```
 */
export async function useLinkToken(
  ctx: RequestContext,
  kind: LinkKind,
  email: string,
  token: string,
  user: AdapterUser,
  passwordHash: string | null,
): Promise<boolean> {
  const adapter = store(ctx.config, "password")
  const identifier = identifierOf(kind, email)
  const value = binding(kind, token, user, passwordHash)
  for (const secret of ctx.config.secret) {
    const row = await adapter.useVerificationToken({ identifier, token: storedForm(value, secret) })
    if (!row) continue
    // Fail closed: a missing or invalid expiry counts as expired.
    return new Date(row.expires).valueOf() >= Date.now() && constantTimeEqual(row.identifier, identifier)
  }
  return false
}
