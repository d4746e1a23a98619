/** `listAccounts` (accounts.md §2.2): what the user can sign in with, without a token, hash or secret in it. */
import type { AdapterUser } from "../../../storage/adapter"
import type { ResolvedConfig } from "../../kernel/config/types"
import { currentPrincipal } from "../../session/principal"
import type { SessionContext } from "../../session/types"
import { pendingEmailOf } from "./email-change"
import { directory } from "../../session/subject"

/** One linked provider account: only these three fields. */
export interface LinkedAccount {
  provider: string
  type: string
  providerAccountId: string
}

/** A passkey as the overview lists it (never its public key or counter). */
export interface OverviewPasskey {
  id: string
  name: string | null
  createdAt: number | null
  lastUsedAt: number | null
}

/** What the user can sign in with. Times are seconds since the epoch. */
export interface AccountOverview {
  userId: string
  email: string | null
  emailVerified: number | null
  pendingEmail: string | null
  accounts: LinkedAccount[]
  passkeys: OverviewPasskey[]
  password: boolean
  credentials: boolean
  emailSignIn: boolean
  twoFactor: { enabled: boolean }
  methods: number
}

const seconds = (date: unknown): number | null =>
  date ? Math.floor(new Date(date as string | Date).getTime() / 1000) : null

/**
 * The overview of a stored user (or, for a JWT user unknown to the adapter, the empty one with the session's email).
 *
 * @example
 * ```ts
 * const overview = await overviewOf(config, userId, user, sessionEmail)
 * ```
 */
export async function overviewOf(
  config: ResolvedConfig,
  userId: string,
  user: AdapterUser | null,
  sessionEmail: string | null = null,
): Promise<AccountOverview> {
  const store = directory(config)
  const rows = user ? await store.listAccountsByUserId(userId) : []
  const accounts = rows
    .filter((a) => a.type === "oauth" || a.type === "oidc")
    .map((a) => ({ provider: a.provider, type: a.type, providerAccountId: a.providerAccountId }))
    .sort((a, b) =>
      a.provider === b.provider
        ? a.providerAccountId < b.providerAccountId
          ? -1
          : 1
        : a.provider < b.provider
          ? -1
          : 1,
    )
  const authenticators = user && store.listAuthenticatorsByUserId ? await store.listAuthenticatorsByUserId(userId) : []
  const passkeys = authenticators.map((a) => ({
    id: Buffer.from(a.credentialID, "base64").toString("base64url"),
    name: a.name ?? null,
    createdAt: seconds(a.createdAt),
    lastUsedAt: seconds(a.lastUsedAt),
  }))
  // Gatehouse-managed passwords (passwords.md) keep a `password` account row; absent when that feature is off.
  const password = rows.some((a) => (a.type as string) === "password")
  const credentials =
    user && config.accounts.account?.hasCredentials ? await config.accounts.account.hasCredentials(user) : false
  const emailSignIn = Boolean(user?.emailVerified) && config.providers.some((p) => p.type === "email")
  // Enabled means a verified row in the two-factor store (an enrolment awaiting its first code is not); `false` when
  // two-factor sign-in is not configured, whatever the adapter holds.
  const twoFactorStore = config.twoFactor?.store
  const twoFactorRow = user && twoFactorStore ? await twoFactorStore.getTwoFactor(userId) : null
  const twoFactor = { enabled: Boolean(twoFactorRow && twoFactorRow.verifiedAt !== null) }
  const methods = accounts.length + passkeys.length + (password ? 1 : 0) + (credentials ? 1 : 0) + (emailSignIn ? 1 : 0)
  return {
    userId,
    email: user ? (user.email ?? null) : sessionEmail,
    emailVerified: seconds(user?.emailVerified),
    pendingEmail: user ? await pendingEmailOf(config, userId) : null,
    accounts,
    passkeys,
    password,
    credentials: credentials === true,
    emailSignIn,
    twoFactor,
    methods,
  }
}

/**
 * The overview of the request's user, or `null` without a session.
 *
 * @example
 * ```ts
 * const overview = await listAccounts(ctx) // { userId, accounts: [{ provider: "github", … }], methods: 2, … }
 * ```
 */
export async function listAccounts(ctx: SessionContext): Promise<AccountOverview | null> {
  const door = await currentPrincipal(ctx)
  if (!door.ok || door.principal.userId === undefined) return null
  const { principal } = door
  const userId = principal.userId as string
  const user = principal.strategy === "database" ? principal.user : await directory(ctx.config).getUser(userId)
  const sessionEmail =
    principal.strategy === "jwt" && typeof principal.token.email === "string" ? principal.token.email : null
  return overviewOf(ctx.config, userId, user, sessionEmail)
}
