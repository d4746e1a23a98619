/** The config of an email (magic link) provider, and what its `sendVerificationRequest` receives. */
import type { Awaitable, Theme } from "../../models"
import type { CommonProviderOptions } from "./common"

export interface SendVerificationRequestParams {
  identifier: string
  url: string
  expires: Date
  provider: EmailConfig
  token: string
  theme: Theme
  request: Request
  /** Gatehouse: a one-time code to show next to (or, for `"two-factor"`, instead of) the link. */
  code?: string
  /** Gatehouse (always passed): why the mail is sent: a sign-in link, a second-factor code, an address check. */
  purpose?: "sign-in" | "two-factor" | "verify-email"
}

export interface EmailConfig extends CommonProviderOptions {
  type: "email"
  /** SMTP connection: a URL or nodemailer transport options. */
  server?: unknown
  from?: string | undefined
  /** Lifetime of a sign-in link in seconds (Gatehouse default: 600). */
  maxAge?: number
  /**
   * Gatehouse: the site's public URL (only its origin is used) for the links in the emails. Without it, links use
   * `AUTH_URL`; in production one of the two is required, since a request's `Host` header must never choose them.
   */
  url?: string | undefined
  /**
   * Gatehouse: `true` (default) shows a one-click confirmation page when the link is opened (a GET changes nothing,
   * so mail scanners that prefetch links do not use them up); `false` signs in on the GET itself, like Auth.js.
   */
  confirm?: boolean
  /**
   * Gatehouse: also mail a one-time code next to the link (`true` = 6 digits, 5 attempts). The code signs in on
   * `POST {base}/callback/<id>` with `code`, lives as long as the link, and shares its single use.
   */
  code?: boolean | { length?: 6 | 8; maxAttempts?: number }
  sendVerificationRequest: (params: SendVerificationRequestParams) => Awaitable<void>
  /** A token generator; by default 32 random bytes as hex. */
  generateVerificationToken?: () => Awaitable<string>
  /** Normalises the address typed by the user; throw to reject it. */
  normalizeIdentifier?: (identifier: string) => string
  /** Secret for hashing tokens; defaults to the config's. */
  secret?: string | string[] | undefined
  apiKey?: string | undefined
  theme?: Theme
  options?: Partial<EmailConfig>
}
