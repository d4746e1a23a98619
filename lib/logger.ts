/**
 * The logger: `error`, `warn` and `debug` levels, each overridable through `config.logger`. Metadata is redacted so
 * secrets, tokens and passwords never reach a log line.
 */

/** Codes of the warnings Gatehouse emits. */
export type WarningCode =
  | "totp-qr-unavailable"
  | "two-factor-secret-unreadable"
  | "debug-enabled"
  | "csrf-disabled"
  | "env-url-basepath-redundant"
  | "env-url-basepath-mismatch"
  | "experimental-webauthn"
  | "webauthn-counter-regression"
  | "missing-secret-dev"
  | "email-maxage-long"
  | "email-url-from-request"
  | "memory-store-single-process"
  | "lazy-config-unstable"
  | "session-cookie-not-written"
  | "authorized-redirect-loop"
  | "signin-unknown-provider"
  | "short-secret"
  | "env-variable-typo"
  | "rp-initiated-logout-unavailable"
  | "signout-state-invalid"
  | "session-cookie-large"
  | "rate-limit-no-client-ip"
  | "entra-any-tenant"
  | "entra-tenant-refused"
  | "par-required-by-server"
  | "fapi2-insecure-requests"
  | "audit-store-failed"
  | "audit-sink-failed"
  | "auth-url-origin-mismatch"
  | "forwarded-headers-ignored"
  | "is-authenticated-unread"
  | "password-hash-weak"
  | "password-hash-unknown-format"
  | "password-breach-check-failed"

/** Shown after the code by the built-in logger (a custom `warn` gets the same text as its second argument). */
export const warningMessages: Readonly<Record<WarningCode, string>> = Object.freeze({
  "totp-qr-unavailable":
    "The optional dependency `uqr` could not be loaded, so enableTotp() returns no QR code (qrSvg: null); show the " +
    "secret for manual entry, or install uqr.",
  "two-factor-secret-unreadable":
    "A user's stored TOTP secret cannot be decrypted with any configured secret (a removed AUTH_SECRET, or a tampered " +
    "row): every code fails until the app resets the row with the adapter's deleteTwoFactor.",
  "debug-enabled": "Debug logging is on (`debug: true`); turn it off in production, it logs session details.",
  "csrf-disabled": "CSRF checks are off (`skipCSRFCheck`); only do this behind your own CSRF protection.",
  "env-url-basepath-redundant": "Both AUTH_URL and `basePath` are set; `basePath` wins over AUTH_URL's path.",
  "env-url-basepath-mismatch": "AUTH_URL's path differs from `basePath`; `basePath` is used.",
  "experimental-webauthn":
    "`experimental.enableWebAuthn` is no longer needed: WebAuthn and passkeys are generally available; remove it.",
  "missing-secret-dev":
    "No secret is set, so a random one is used for this process: sessions end when it restarts. Set AUTH_SECRET " +
    "(make one with `npx gatehouse-auth secret`).",
  "email-maxage-long": "Magic links live longer than an hour; a short lifetime (the default, 10 minutes) is safer.",
  "password-hash-weak":
    "The Password provider's scrypt parameters are below every row of OWASP's table (N=2^17 r=8 p=1, …); raise them.",
  "password-hash-unknown-format":
    "A stored password hash is not `$scrypt$` and no `verify` hook is configured, so it never matches; give " +
    "`Password({ verify })` for imported hashes.",
  "password-breach-check-failed":
    "The breached-password check did not answer (timeout, network error or non-200); the password was accepted " +
    "(fail-open). Set `breachCheck.failClosed` to refuse instead.",
  "email-url-from-request":
    "Email links are built from the request's Host header because neither AUTH_URL nor the provider's `url` is " +
    "set; production refuses this. Set AUTH_URL.",
  "memory-store-single-process":
    "The key-value store (revocations, replay guards, rate limits) lives in this process's memory and is not shared " +
    "with other instances; use an adapter with a store (PostgreSQL, SQLite, Redis) or set `store`.",
  "rate-limit-no-client-ip":
    "Rate limiting has no client IP for this request, so the rules keyed by IP are skipped (the per-account and " +
    "per-address rules still apply). In the web flavour set `rateLimit.ip`.",
  "short-secret":
    "The secret is shorter than 32 bytes and easy to guess. Set AUTH_SECRET to a new one made with " +
    "`npx gatehouse-auth secret` or `openssl rand -base64 33`.",
  "env-variable-typo": "An AUTH_* environment variable looks misspelt and is not read.",
  "lazy-config-unstable":
    "The config function returns a new object on every request, so nothing resolved from it can be reused; " +
    "return the same object (build it once) unless it really changes.",
  "session-cookie-not-written":
    "The session was refreshed after the response headers were sent, so its new cookie could not be written; " +
    "read the session before you start the response.",
  "authorized-redirect-loop":
    "`authorized` answered a redirect to the page being requested; it is treated as a denial instead of a loop.",
  "webauthn-counter-regression":
    "A passkey's signature counter went backwards (a cloned or replayed authenticator); the sign-in was refused.",
  "rp-initiated-logout-unavailable":
    "`logout.rpInitiated` is set but the provider has no end-session endpoint (none in discovery, no " +
    "`logout.endSessionEndpoint`); only the local session was ended.",
  "signout-state-invalid":
    "A sign-out callback carried a missing, expired or foreign `state`; the user was sent to the app origin.",
  "session-cookie-large":
    "The session cookie needs more than 3 chunks (provider tokens kept for refresh can add several KB); browsers may " +
    "drop cookies past their size limits. Use database sessions, or keep fewer claims in the JWT.",
  "signin-unknown-provider": "signIn() was called with a provider id that is not configured; the sign-in page is used.",
  "entra-any-tenant":
    "Microsoft Entra ID accepts every tenant (multi-tenant issuer without `allowedTenants`); production refuses this " +
    "config: list the tenant ids, or pass `allowedTenants: () => true` on purpose.",
  "entra-tenant-refused":
    "Microsoft Entra ID: a sign-in from a tenant that `allowedTenants` does not allow was refused.",
  "par-required-by-server":
    "The provider requires pushed authorization requests but `par: false` is set: its sign-ins will be refused.",
  "fapi2-insecure-requests":
    "A `fapi2` provider allows plain-http requests (`allowInsecureRequests`); use this in development only.",
  "audit-store-failed":
    "An audit event could not be stored (the request went on); check the adapter's audit_events table and the " +
    "database. Logged at most once a minute.",
  "audit-sink-failed":
    "The `audit.sink` threw, rejected or took longer than 5 s (the request went on). Logged at most once a minute.",
  "auth-url-origin-mismatch":
    "A request reached the app at another origin than AUTH_URL's, and every link and redirect goes to AUTH_URL's: " +
    "set AUTH_URL to where the app runs (or leave it unset in development).",
  "forwarded-headers-ignored":
    "X-Forwarded-Proto or X-Forwarded-Host arrived but Express's `trust proxy` does not trust the sender, so they are " +
    'ignored: behind a proxy, set app.set("trust proxy", 1) (or AUTH_URL) for https URLs and __Secure- cookies.',
  "is-authenticated-unread":
    "req.isAuthenticated() was called on a request Gatehouse never read, so it answers false even for a signed-in " +
    "user: put app.use(auth) before your routes (it is what passport.session() was).",
})

/** What `config.logger` may override; each level left out uses the built-in one. */
export interface LoggerInstance {
  error: (error: Error) => void
  /** `message` is a sentence saying what to do (the built-in text of {@link warningMessages}, or a more precise one). */
  warn: (code: WarningCode, message?: string) => void
  debug: (message: string, metadata?: unknown) => void
}

const sensitiveKey =
  /^(?:.*(?:secret|password|passwd|token|verifier|cookie|authorization|assertion|code|nonce|state|credential|dpop).*)$/i

/**
 * A driver's or the system's error code, shown although its key is `code`: a SQLSTATE (`42P01`), a driver's name
 * (`SQLITE_CONSTRAINT_UNIQUE`, `ERR_SQLITE_ERROR`) or an errno name (`ECONNREFUSED`). They name a failure, not a
 * secret; an OAuth authorization code (long, random, mixed case) never has these shapes.
 */
const errorCodeShape = /^(?:[0-9A-Z]{5}|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|E[A-Z]{2,15})$/

/**
 * Returns a copy of `value` with every sensitive-looking member replaced by `"[redacted]"` (a `code` that is an error
 * code stays).
 *
 * @example
 * ```ts
 * redact({ access_token: "abc", provider: "github" }) // { access_token: "[redacted]", provider: "github" }
 * ```
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]"
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  if (value instanceof Error) return { name: value.name, message: value.message }
  if (value instanceof Date || value instanceof URL) return String(value)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        sensitiveKey.test(k) &&
        v !== undefined &&
        v !== null &&
        typeof v !== "boolean" &&
        !(k === "code" && typeof v === "string" && errorCodeShape.test(v))
          ? "[redacted]"
          : redact(v, depth + 1)
    }
    return out
  }
  return value
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/**
 * Escapes control characters (C0, DEL, C1, U+2028/2029) so that no value can start a new log line (LG-04).
 *
 * @example
 * ```ts
 * escapeControl("x\r\n[gatehouse][error] forged") // "x\\r\\n[gatehouse][error] forged"
 * ```
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
}

/** Writes one log line; whatever it holds, it stays one line. */
function write(line: string): void {
  process.stderr.write(`${escapeControl(line)}\n`)
}

function defaultError(error: Error): void {
  // An AuthError's wire `type` names it best; read structurally so the logger imports nothing.
  const { type: wireType } = error as { type?: unknown }
  const type = typeof wireType === "string" ? wireType : error.name
  write(`[gatehouse][error] ${type}: ${error.message}`)
  const cause = error.cause as Record<string, unknown> | undefined
  if (cause && typeof cause === "object") {
    const { err, ...details } = cause
    if (err instanceof Error) {
      // A stack is several lines: the message in it is escaped first, then each line gets its own prefix.
      const stack = (err.stack ?? err.message).replace(err.message, escapeControl(err.message))
      for (const line of stack.split("\n")) write(`[gatehouse][cause]: ${line}`)
    }
    if (Object.keys(details).length > 0) write(`[gatehouse][details]: ${JSON.stringify(redact(details))}`)
  }
}

/**
 * Builds the logger for a config: user overrides win; debug output (built-in or the user's `debug`) only when `debug`
 * is true.
 *
 * @example
 * ```ts
 * const logger = createLogger({ debug: false, logger: { error: (e) => myLog(e) } })
 * ```
 */
export function createLogger(options: { debug?: boolean; logger?: Partial<LoggerInstance> }): LoggerInstance {
  const user = options.logger ?? {}
  const debugOn = options.debug === true
  return Object.freeze({
    error: (error: Error) => {
      try {
        ;(user.error ?? defaultError)(error)
      } catch {
        // A throwing logger must not break the request.
      }
    },
    warn: (code: WarningCode, message?: string) => {
      const text = message ?? warningMessages[code]
      try {
        if (user.warn) user.warn(code, text)
        else write(`[gatehouse][warn][${code}] ${text}`)
      } catch {
        // ignore
      }
    },
    debug: (message: string, metadata?: unknown) => {
      try {
        if (!debugOn) return
        if (user.debug) user.debug(message, redact(metadata))
        else write(`[gatehouse][debug]: ${message} ${JSON.stringify(redact(metadata)) ?? ""}`)
      } catch {
        // ignore
      }
    },
  })
}
