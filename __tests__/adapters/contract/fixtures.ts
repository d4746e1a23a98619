// Fixture builders and shared context of the adapter contract suite.
import { randomUUID } from "node:crypto"
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterUser,
  VerificationToken,
} from "../../../lib/storage/adapter"

/** Every adapter under test implements the whole contract. */
export type FullAdapter = Required<Adapter>

/** What each contract section receives. */
export interface ContractContext {
  /** The adapter of the running suite (set in `beforeAll`). */
  adapter(): FullAdapter
  /** True when expired sessions and tokens vanish on their own (Redis TTLs) instead of being returned. */
  expiresByTTL: boolean
}

export const uid = (): string => randomUUID()

/** A user with every field set, random id and email. */
export function aUser(overrides: Partial<AdapterUser> = {}): AdapterUser {
  const id = uid()
  return {
    id,
    name: "Ada Lovelace",
    email: `ada-${id}@example.com`,
    emailVerified: new Date("2024-05-06T07:08:09.123Z"),
    image: "https://example.com/ada.png",
    ...overrides,
  }
}

/** An OAuth account with every token field set. */
export function anAccount(userId: string, overrides: Partial<AdapterAccount> = {}): AdapterAccount {
  return {
    userId,
    type: "oauth",
    provider: "github",
    providerAccountId: uid(),
    access_token: "gho_access",
    refresh_token: "ghr_refresh",
    expires_at: 1_900_000_000,
    token_type: "bearer",
    scope: "read:user user:email",
    id_token: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
    session_state: "state-1",
    ...overrides,
  }
}

/** A WebAuthn authenticator. */
export function anAuthenticator(userId: string, overrides: Partial<AdapterAuthenticator> = {}): AdapterAuthenticator {
  return {
    userId,
    providerAccountId: uid(),
    counter: 0,
    credentialBackedUp: true,
    credentialID: Buffer.from(uid()).toString("base64url"),
    credentialPublicKey: Buffer.from("public-key-" + uid()).toString("base64"),
    transports: "internal,hybrid",
    credentialDeviceType: "multiDevice",
    ...overrides,
  }
}

/** A verification token valid for an hour. */
export function aToken(overrides: Partial<VerificationToken> = {}): VerificationToken {
  return {
    identifier: `user-${uid()}@example.com`,
    token: uid().replace(/-/g, "") + uid().replace(/-/g, ""),
    expires: new Date(Date.now() + 3_600_000),
    ...overrides,
  }
}

/** A date one hour (or `ms`) from now, rounded to whole milliseconds as every store keeps them. */
export const inFuture = (ms = 3_600_000): Date => new Date(Date.now() + ms)

/** Creates and returns a fresh user. */
export async function createdUser(ctx: ContractContext, overrides: Partial<AdapterUser> = {}): Promise<AdapterUser> {
  return ctx.adapter().createUser(aUser(overrides))
}
