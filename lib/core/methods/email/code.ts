/**
 * Email one-time codes: with `code` on, the sign-in email also carries a short code. Only the latest code of an
 * address works, it lives as long as the link, a few attempts burn it (never the link), and it shares the link's
 * single use: whichever is used first wins. The store holds the code's keyed hash under a keyed hash of the address.
 */
import { createHmac, randomInt, randomUUID } from "node:crypto"
import type { EmailConfig } from "../../../providers/types"
import type { VerificationToken } from "../../../storage/adapter"
import { checkSealer } from "../../kernel/checks"
import { store } from "../../kernel/config/stores"
import { emailCodeOptions } from "../../kernel/config/validate"
import { actionUrl, type RequestContext } from "../../kernel/context"
import type { AuthResult } from "../../kernel/response"
import { constantTimeEqual } from "../../kernel/secrets"

/** What `email-code:<addressKey>` holds. */
interface StoredCode {
  /** The request id (the attempt counter's subject). */
  r: string
  /** base64url(HMAC(first secret, r + "\0" + code)). */
  h: string
  /** The stored hash of the link token: using the code uses the link. */
  t: string
  /** The callback URL recorded at the request. */
  c: string
  /** Expiry, epoch ms. */
  x: number
}

/** What the verify-address cookie holds with codes on: the masked address shown, and the address the form needs. */
export interface SealedAddress {
  m: string
  a: string
}

const hmac = (secret: string, value: string) => createHmac("sha256", secret).update(value).digest("base64url")

/** The store key of an address's latest code: no store holds an address. */
function codeKey(ctx: RequestContext, provider: EmailConfig, address: string): string {
  return `email-code:${hmac(ctx.config.secret[0]!, `email-code\0${provider.id}\0${address}`)}`
}

/**
 * With `code` on: a new code for `address`, stored (replacing the previous one) with the link's token hash, the
 * callback URL and the expiry. `undefined` when the provider has no codes.
 *
 * @example
 * ```ts
 * const code = await issueSignInCode(ctx, provider, { address, tokenHash, callbackUrl, expires })
 * ```
 */
export async function issueSignInCode(
  ctx: RequestContext,
  provider: EmailConfig,
  link: { address: string; tokenHash: string; callbackUrl: string; expires: Date },
): Promise<string | undefined> {
  const options = emailCodeOptions(provider)
  if (!options) return undefined
  const code = Array.from({ length: options.length }, () => String(randomInt(10))).join("")
  const r = randomUUID()
  const stored: StoredCode = {
    r,
    h: hmac(ctx.config.secret[0]!, `${r}\0${code}`),
    t: link.tokenHash,
    c: link.callbackUrl,
    x: link.expires.getTime(),
  }
  const ttl = Math.max(1, Math.ceil((stored.x - Date.now()) / 1000))
  await ctx.config.store.set(codeKey(ctx, provider, link.address), JSON.stringify(stored), ttl)
  return code
}

/** The one answer of every failed code: back to the verify-request page with `error=Verification`. */
function failed(ctx: RequestContext, provider: EmailConfig): AuthResult {
  const query = new URLSearchParams({ provider: provider.id, type: "email", error: "Verification" })
  return { redirect: `${actionUrl(ctx, "verify-request")}?${query}` }
}

async function sealedAddress(ctx: RequestContext, provider: EmailConfig): Promise<string | undefined> {
  const { name } = ctx.cookies.verifyAddress
  const opened = await checkSealer(ctx.config.secret).open<unknown>(
    { purpose: "verifyAddress", provider: provider.id, salt: name },
    ctx.request.cookies[name],
  )
  const value = opened.ok ? (opened.value as Partial<SealedAddress>) : undefined
  return typeof value?.a === "string" ? value.a : undefined
}

function parseStored(json: string | null): StoredCode | null {
  if (json === null) return null
  try {
    const value = JSON.parse(json) as Partial<StoredCode>
    const ok =
      typeof value.r === "string" &&
      typeof value.h === "string" &&
      typeof value.t === "string" &&
      typeof value.c === "string" &&
      typeof value.x === "number"
    return ok ? (value as StoredCode) : null
  } catch {
    return null
  }
}

/**
 * `POST {base}/callback/<email id>` with `code` (and no `token`): checks the code of the address (the body's, else the
 * sealed one of this browser), uses the link's token up, then continues like the link (`complete`). Every failure
 * answers the same, so nothing tells whether the address exists or asked for a code.
 *
 * @example
 * ```ts
 * return codeSignIn(ctx, provider, normalize, (invite, callbackUrl) => completeEmailSignIn(ctx, provider, invite))
 * ```
 */
export async function codeSignIn(
  ctx: RequestContext,
  provider: EmailConfig,
  normalize: (input: unknown) => string,
  complete: (ctx: RequestContext, invite: VerificationToken) => Promise<AuthResult>,
): Promise<AuthResult> {
  const options = emailCodeOptions(provider)
  const body = ctx.request.body ?? {}
  if (!options || typeof body.code !== "string") return failed(ctx, provider)
  const given = body.email !== undefined ? body.email : await sealedAddress(ctx, provider)
  let address: string
  try {
    address = normalize(given)
  } catch {
    return failed(ctx, provider)
  }
  const code = body.code.replace(/[\s-]+/g, "")
  if (code.length !== options.length || !/^[0-9]+$/.test(code)) return failed(ctx, provider)
  const [json] = await ctx.config.store.get([codeKey(ctx, provider, address)])
  const stored = parseStored(json ?? null)
  if (!stored) return failed(ctx, provider)
  const maxAge = provider.maxAge ?? 600
  const limiter = ctx.config.rateLimit
  const over = await limiter.hit("email-code", `callback/${provider.id}`, stored.r, undefined, "window", {
    limit: options.maxAttempts,
    window: maxAge,
  })
  if (over || stored.x < Date.now()) return failed(ctx, provider)
  if (!constantTimeEqual(stored.h, hmac(ctx.config.secret[0]!, `${stored.r}\0${code}`))) return failed(ctx, provider)
  const invite = await store(ctx.config, "email").useVerificationToken({ identifier: address, token: stored.t })
  if (!invite || !(new Date(invite.expires).valueOf() >= Date.now())) return failed(ctx, provider)
  return complete(Object.freeze({ ...ctx, callbackUrl: stored.c }), invite)
}
