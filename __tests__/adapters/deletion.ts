// A user with a row in every place deleteUser must empty (accounts.md §6.3), for the adapter-specific tests that then
// look at the database itself (direct SQL on SQLite and PostgreSQL, the key space on Redis).
import type { FullAdapter } from "./contract/fixtures"

/** The identifiers of the verification tokens `seedEverything` writes for an address (all belong to its user). */
export const tokenIdentifiers = (email: string): string[] => [
  email,
  email.toUpperCase(),
  `gatehouse:verify-email:${email.toLowerCase()}`,
  `gatehouse:password-reset:${email}`,
]

/**
 * Creates user `id` with `email` and: an OIDC account with tokens, a session, an impersonation session of which the
 * user is the target, an authenticator, a verified two-factor row, a password, and the four tokens of
 * {@link tokenIdentifiers}.
 */
export async function seedEverything(adapter: FullAdapter, id: string, email: string): Promise<void> {
  const expires = new Date(Date.now() + 3_600_000)
  const now = new Date()
  await adapter.createUser({ id, email, emailVerified: now })
  await adapter.linkAccount({
    userId: id,
    type: "oidc",
    provider: "idp",
    providerAccountId: `sub-${id}`,
    access_token: `at-${id}`,
    id_token: `idt-${id}`,
  })
  await adapter.createSession({ sessionToken: `s-${id}`, userId: id, expires })
  await adapter.createSession({ sessionToken: `imp-${id}`, userId: id, expires, impersonatedBy: "some-admin" })
  await adapter.createAuthenticator({
    userId: id,
    providerAccountId: `pk-${id}`,
    counter: 0,
    credentialBackedUp: false,
    credentialID: `cred-${id}`,
    credentialPublicKey: "pub",
    transports: null,
    credentialDeviceType: "singleDevice",
  })
  await adapter.upsertTwoFactor({
    userId: id,
    secret: "gh1.sealed",
    verifiedAt: now,
    lastUsedStep: 0,
    backupCodes: ["h1", "h2"],
    version: 0,
    createdAt: now,
    updatedAt: now,
  })
  await adapter.setPasswordHash(id, `hash-${id}`)
  for (const identifier of tokenIdentifiers(email)) {
    await adapter.createVerificationToken({ identifier, token: `t-${id}`, expires })
  }
}
