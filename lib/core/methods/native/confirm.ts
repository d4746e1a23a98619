/**
 * `GET`/`POST <base>/native` (tokens.md T2.3, T2.5): the confirm page against silent issuance, then the one-time code
 * back to the app. The browser session is read through the one door (cookies only: a bearer never confirms).
 */
import { createHash, randomBytes } from "node:crypto"
import type { RequestContext } from "../../kernel/context"
import { checkSealer } from "../../kernel/checks"
import { jsonHeaders, type AuthResult } from "../../kernel/response"
import { pageHeaders } from "../../kernel/pages"
import { escapeHtml } from "../../kernel/pages/escape"
import { csrfInput, renderDocument } from "../../kernel/pages/layout"
import { sessionContext } from "../../session/context"
import { principalForChange } from "../../session/for-change"
import { signedInUser } from "../../session/principal"
import { appRedirect, openContext, type NativeContext } from "./context"
import { nativeRefusalHeaders } from "./start"

/** What a code stands for, sealed in the store under the code's hash. */
export interface CodeRecord {
  u: string
  s: string
  ru: string
  cc: string
  p: string
  at?: number
  user: { id: string; name?: string | null; email?: string | null; image?: string | null }
}

export const codeBinding = { purpose: "nativeCode" as const, provider: "gatehouse", salt: "gatehouse.native-code" }

/** `base64url(SHA-256(code))`: the only form in which a code is stored. */
export const codeHash = (code: string) => createHash("sha256").update(code).digest("base64url")

/** The refusal an impersonation session gets here. */
const APP_REFUSED = "An impersonation session cannot sign in an app"

const refusal = (ctx: RequestContext, code: string): AuthResult => ({
  status: 302,
  headers: nativeRefusalHeaders(ctx.config, ctx.origin, code),
})

/** Where the app continues, as the confirm page names it (escaped by the caller). */
function destination(ru: string): string {
  const url = new URL(ru)
  if (url.protocol === "https:") return url.host
  if (url.protocol === "http:") return `a program on this computer (port ${url.port || "80"})`
  return `It will open ${url.protocol}`
}

function confirmPage(ctx: RequestContext, native: NativeContext, who: string, sealed: string): AuthResult {
  const name = ctx.config.native!.name
  const where = destination(native.ru)
  const content =
    '<main class="card">' +
    `<h1>Sign in to ${escapeHtml(name)}?</h1>` +
    `<p>You are signed in as ${escapeHtml(who)}. ${escapeHtml(name)} will be signed in to your account on this device.</p>` +
    `<p>${escapeHtml(where.startsWith("It will open") ? where : `It will continue at ${where}.`)}</p>` +
    `<form method="post" action="${escapeHtml(`${ctx.config.basePath}/native`)}">` +
    csrfInput(ctx.csrfToken) +
    `<input type="hidden" name="ctx" value="${escapeHtml(sealed)}">` +
    '<button type="submit" name="action" value="allow" autofocus>Continue</button>' +
    '<button type="submit" name="action" value="deny">Cancel</button>' +
    "</form></main>"
  const html = renderDocument({ title: `Sign in to ${name}`, theme: ctx.config.theme, content })
  return { status: 200, headers: { ...pageHeaders, "Cache-Control": "no-store" }, body: html }
}

/** Mints a code for the signed-in user and answers the redirect to the app. */
async function allow(ctx: RequestContext, native: NativeContext): Promise<AuthResult> {
  const slice = sessionContext(ctx)
  const door = await principalForChange(slice, APP_REFUSED)
  const user = await signedInUser(slice)
  if (!door.ok) return refusal(ctx, "invalid_context")
  const principal = door.principal
  const token = principal.strategy === "jwt" ? principal.token : undefined
  const id = user?.id ?? principal.userId
  if (id === undefined) return refusal(ctx, "invalid_context")
  const code = randomBytes(32).toString("base64url")
  const record: CodeRecord = {
    u: String(id),
    s: String(id),
    ru: native.ru,
    cc: native.cc,
    p: native.p,
    ...(principal.authTime !== undefined ? { at: principal.authTime } : {}),
    user: {
      id: String(id),
      name: user?.name ?? token?.name ?? null,
      email: user?.email ?? token?.email ?? null,
      image: user?.image ?? token?.picture ?? null,
    },
  }
  const ttl = ctx.config.native!.codeTtl
  const sealed = await checkSealer(ctx.config.secret).seal({ ...codeBinding, maxAge: ttl }, record)
  await ctx.config.store.set(`native-code:${codeHash(code)}`, sealed, ttl)
  return {
    status: 302,
    headers: { Location: appRedirect(native.ru, { code, state: native.st, iss: issuerOf(ctx) }), ...noStore },
  }
}

const noStore = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" }

/** The issuer named in the app redirect (RFC 9207): `<origin><base>`, the default access-token issuer. */
export const issuerOf = (ctx: RequestContext) =>
  ctx.config.accessTokens?.issuer ?? `${ctx.config.authUrl?.origin ?? ctx.origin}${ctx.config.basePath}`

/**
 * Handles `GET` and `POST <base>/native`.
 *
 * @example
 * ```ts
 * const result = await nativeAction(ctx)
 * ```
 */
export async function nativeAction(ctx: RequestContext): Promise<AuthResult> {
  if (!ctx.config.native) return { status: 400, headers: { ...jsonHeaders }, body: "Bad request." }
  const raw = ctx.request.method === "POST" ? ctx.request.body?.ctx : ctx.request.query.ctx
  const native = await openContext(ctx.config, raw)
  if (!native) return refusal(ctx, "invalid_context")
  // An app session minted here would carry neither `impersonatedBy` nor the impersonation's cap (accounts.md §3.5).
  const door = await principalForChange(sessionContext(ctx), APP_REFUSED)
  if (!door.ok) {
    const page = ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`
    const back = `${ctx.origin}${ctx.config.basePath}/native?ctx=${encodeURIComponent(raw as string)}`
    return { redirect: `${ctx.origin}${page}?${new URLSearchParams({ callbackUrl: back })}` }
  }
  if (ctx.request.method === "GET") {
    if (!ctx.config.native.confirm) return allow(ctx, native)
    const user = await signedInUser(sessionContext(ctx))
    const principal = door.principal
    const token = principal.strategy === "jwt" ? principal.token : undefined
    const who = user?.email ?? user?.name ?? token?.email ?? token?.name ?? "your account"
    return confirmPage(ctx, native, String(who), raw as string)
  }
  const action = ctx.request.body?.action
  if (action === "deny") {
    const location = appRedirect(native.ru, { error: "access_denied", state: native.st, iss: issuerOf(ctx) })
    return { status: 302, headers: { Location: location, ...noStore } }
  }
  if (action === "allow") return allow(ctx, native)
  return { status: 400, headers: { ...jsonHeaders }, body: "Bad request." }
}
