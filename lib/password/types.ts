/** The options and hook shapes of the `Password` provider (`gatehouse-auth/providers/password`). */
import type { Awaitable, Theme } from "../models"
import type { BreachCheckOptions } from "./breach"
import type { ScryptParams } from "./hash"

/** The user a password email is about (the adapter's user). */
export interface PasswordMailUser {
  id: string
  email: string | null
  name?: string | null
  emailVerified: Date | null
  [key: string]: unknown
}

interface MailCommon {
  /** The normalised address the email goes to. */
  identifier: string
  user: PasswordMailUser
  provider: PasswordConfig
  theme: Theme
  request: Request
}

/** `sendVerificationRequest` of the Password provider: a link that confirms the address. */
export interface PasswordVerificationParams extends MailCommon {
  url: string
  token: string
  expires: Date
  purpose: "verify-email"
}

/** `sendPasswordReset`: a link to choose a new password. */
export interface PasswordResetParams extends MailCommon {
  url: string
  token: string
  expires: Date
}

/** `sendAccountExists`: a sign-up with an address that already has a user. */
export interface AccountExistsParams extends MailCommon {
  verified: boolean
  signInUrl: string
  resetUrl: string
}

/** `sendPasswordChanged`: a reset, change or set wrote a new password. */
export interface PasswordChangedParams extends MailCommon {
  reason: "reset" | "change" | "set"
}

/** What the `verify` hook receives: the normalised password, the password as typed, and the stored hash. */
export interface PasswordVerifyInput {
  password: string
  raw: string
  hash: string
}

/** The options of `Password()` (durations in seconds; `breachCheck.timeout` in ms). */
export interface PasswordOptions {
  /** Shortest password in code points after NFKC (default 8; at least 8, at most `maxLength`). */
  minLength?: number
  /** Longest password (default 128; 64 to 1024). */
  maxLength?: number
  /** Refuse password sign-ins of unverified addresses (default: `true` in production, else `false`). */
  requireEmailVerification?: boolean
  /** With `requireEmailVerification: false`: a new account is signed in by the sign-up (default `true`). */
  autoSignIn?: boolean
  emailVerification?: { maxAge?: number; signIn?: boolean; confirm?: boolean }
  reset?: { maxAge?: number; revokeSessions?: boolean }
  change?: { revokeOtherSessions?: boolean }
  /** Replaces the built-in scrypt hasher (receives the normalised password). Give `verify` for its format too. */
  hash?: (password: string) => Promise<string>
  /** Verifies stored hashes that are not `$scrypt$` (imported bcrypt, argon2id). */
  verify?: (input: PasswordVerifyInput) => Promise<boolean>
  /** Whether a verified hash is replaced by a fresh one at sign-in. */
  needsRehash?: (hash: string) => boolean
  /** The built-in hasher's parameters (default `{ln: 17, r: 8, p: 1}`). */
  scrypt?: Partial<ScryptParams>
  /** `true` refuses the password (`blocklisted`); replaces the default (the address or its local part). */
  blocklist?: (password: string, user: { email: string | null; name?: string | null }) => Awaitable<boolean>
  /** Off by default: `true` (Have I Been Pwned), range-API options, or a function flagging a password. */
  breachCheck?: boolean | BreachCheckOptions | ((password: string) => Awaitable<boolean>)
  /** SMTP transport of the built-in emails (a URL or nodemailer options); default the Nodemailer provider's. */
  server?: unknown
  from?: string
  /** The public origin the links are built from (default `AUTH_URL`). */
  url?: string
  sendVerificationRequest?: (params: PasswordVerificationParams) => Awaitable<void>
  sendPasswordReset?: (params: PasswordResetParams) => Awaitable<void>
  sendAccountExists?: (params: AccountExistsParams) => Awaitable<void>
  sendPasswordChanged?: (params: PasswordChangedParams) => Awaitable<void>
  /** Answers wait for the email hooks (serverless); timing then differs between known and unknown addresses. */
  awaitEmails?: boolean
  theme?: Theme
}

/** The provider object `Password()` returns (its options are merged and checked when the config is resolved). */
export interface PasswordConfig extends PasswordOptions {
  id: "password"
  type: "password"
  name: string
  options?: PasswordOptions
}

/** The inputs of the Password provider's server functions (each one object; `csrf: false` skips the origin guard). */
export interface PasswordServerInputs {
  signUp: { email: string; password: string; name?: string; callbackUrl?: string; csrf?: boolean }
  requestPasswordReset: { email: string; callbackUrl?: string; csrf?: boolean }
  resetPassword: { token: string; email: string; password: string; csrf?: boolean }
  changePassword: { currentPassword: string; newPassword: string; revokeOtherSessions?: boolean; csrf?: boolean }
  setPassword: { newPassword: string; csrf?: boolean }
  sendVerificationEmail: { email: string; callbackUrl?: string; csrf?: boolean }
}

/** The server functions in a flavour's shape: `Args` are the leading arguments (`[req, res]` or `[request]`). */
export type PasswordServerFunctions<Args extends unknown[]> = {
  [M in keyof PasswordServerInputs]: (...args: [...Args, PasswordServerInputs[M]]) => Promise<{ ok: true }>
}
