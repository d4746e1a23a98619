/** The `account` and `admin` options (accounts.md §1) and what the core keeps of them. */
import type { AdapterAccount, AdapterAuthenticator, AdapterUser, UserCursor } from "../../../storage/adapter"
import type { Awaitable } from "../../../models"

/** A mail of the account flows, handed to `account.sendEmail`. */
export interface AccountEmail {
  type: "email-change-verify" | "email-change-notice" | "delete-confirm"
  /** The address to send to. */
  to: string
  /** The one link of the mail. */
  url: string
  expires: Date
  /** The user's current row. */
  user: { id: string; name: string | null; email: string | null }
  /** `email-change-notice` only: the new address, masked (`a***@example.com`). */
  newEmailMasked?: string
}

/** The `account` option. */
export interface AccountOptions {
  /** `"email"`: `deleteAccount` only mails a confirmation link; the account goes when the link is used. */
  deleteConfirmation?: "none" | "email"
  /** Sends the change-email and delete-confirmation mails. */
  sendEmail?: (message: AccountEmail) => Awaitable<void>
  /** Lifetime of the verification link to the new address, seconds (300–604800, default 86400). */
  emailChangeMaxAge?: number
  /** Lifetime of the "this wasn't me" link to the old address, seconds (at least `emailChangeMaxAge`; 604800). */
  emailChangeCancelMaxAge?: number
  /** Lifetime of the delete-confirmation link, seconds (300–86400, default 3600). */
  deleteConfirmationMaxAge?: number
  /** Whether your own Credentials provider can sign this user in (counted as a sign-in method). */
  hasCredentials?: (user: AdapterUser) => Awaitable<boolean>
}

/** The `admin` option. */
export interface AdminOptions {
  /** Who is an admin; the user is always re-read from the adapter. Default `user.role === "admin"`. */
  isAdmin?: (user: AdapterUser) => Awaitable<boolean>
  /** Lifetime of an impersonation session, seconds (60–3600, default 3600). */
  impersonationMaxAge?: number
}

/** The adapter methods the account and admin features call (each checked where the feature needs it). */
export interface DirectoryStore {
  getUser(id: string): Promise<AdapterUser | null>
  getUserByEmail(email: string): Promise<AdapterUser | null>
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Promise<AdapterUser>
  deleteUser(userId: string): Promise<AdapterUser | null | undefined | void>
  unlinkAccount(account: Pick<AdapterAccount, "provider" | "providerAccountId">): Promise<unknown>
  listAccountsByUserId(userId: string): Promise<AdapterAccount[]>
  listUsers?(filter: { emailPrefix?: string; id?: string; after?: UserCursor; limit: number }): Promise<AdapterUser[]>
  listAuthenticatorsByUserId?(userId: string): Promise<AdapterAuthenticator[]>
  listSessionsByUserId?(userId: string): Promise<Array<{ expires: Date }>>
}

/** The resolved account and admin options. */
export interface ResolvedAccounts {
  readonly account?: Readonly<Required<Omit<AccountOptions, "sendEmail" | "hasCredentials">>> &
    Readonly<Pick<AccountOptions, "sendEmail" | "hasCredentials">>
  readonly admin?: Readonly<{ isAdmin: (user: AdapterUser) => Awaitable<boolean>; impersonationMaxAge: number }>
  /** The adapter's methods these features call; present when `account`, `admin` or their routes are configured. */
  readonly store?: DirectoryStore
  readonly routes: Readonly<{ account: boolean; admin: boolean }>
}
