/** The secret and host checks of construction, each message naming the environment variable that fixes it. */
import { randomBytes } from "node:crypto"
import { MissingSecret, UntrustedHost } from "../../../errors"
import type { LoggerInstance } from "../../../logger"
import { isProduction, type Env } from "./env"

/** How to make a secret, quoted by every secret message. */
export const makeSecretHint = "make one with `npx gatehouse-auth secret` or `openssl rand -base64 33`"

/** Below this many bytes a production secret gets the `short-secret` warning. */
const MIN_SECRET_BYTES = 32

let devSecret: string | undefined

function productionNote(env: Env): string {
  const mode = env.NODE_ENV
  return isProduction(env) && mode !== "production" ? ` (NODE_ENV=${mode} counts as production)` : ""
}

/**
 * The secrets to use, newest first. In production (see {@link isProduction}) a missing secret throws
 * `MissingSecret` naming `AUTH_SECRET`, and a secret under 32 bytes warns; elsewhere a missing secret is replaced by
 * one random secret per process, with a one-sentence warning.
 *
 * @example
 * ```ts
 * resolveSecrets(config.secret, process.env, logger) // ["newest", "older"]
 * ```
 */
export function resolveSecrets(
  secret: string | readonly string[] | undefined,
  env: Env,
  logger: Pick<LoggerInstance, "warn">,
): string[] {
  const secrets = (Array.isArray(secret) ? secret : [secret]).filter(
    (s): s is string => typeof s === "string" && s.length > 0,
  )
  const production = isProduction(env)
  if (secrets.length === 0) {
    if (production) {
      throw new MissingSecret(
        `No secret is set${productionNote(env)}. Set AUTH_SECRET (${makeSecretHint}), or pass \`secret\`.`,
      )
    }
    if (!devSecret) {
      devSecret = randomBytes(32).toString("hex")
      logger.warn("missing-secret-dev")
    }
    return [devSecret]
  }
  if (production && Buffer.byteLength(secrets[0]!) < MIN_SECRET_BYTES) {
    logger.warn(
      "short-secret",
      `The secret is ${bytes(Buffer.byteLength(secrets[0]!))} long; use at least ${MIN_SECRET_BYTES}. ` +
        `Set AUTH_SECRET to a new one (${makeSecretHint}).`,
    )
  }
  return secrets
}

/**
 * The `UntrustedHost` error of a production app that neither sets `AUTH_URL` nor trusts the `Host` header.
 *
 * @example
 * ```ts
 * throw untrustedHost(process.env, "https://app.example/auth/session")
 * ```
 */
export function untrustedHost(env: Env, requestUrl?: string): UntrustedHost {
  return new UntrustedHost(
    `Host must be trusted${productionNote(env)}: set AUTH_URL to the app's public URL (https://app.example.com/auth), ` +
      "or AUTH_TRUST_HOST=true when a proxy you control sets the Host header." +
      (requestUrl ? ` URL was: ${requestUrl}` : ""),
  )
}

/** `1 byte`, `5 bytes`. */
const bytes = (n: number): string => `${n} byte${n === 1 ? "" : "s"}`
