/** The built-in pages (or redirects to the configured ones): sign-in, sign-out, error, verify-request. */
import { actionUrl, type RequestContext } from "../../kernel/context"
import type { InternalProvider } from "../../kernel/config/providers"
import {
  pageHeaders,
  renderErrorPage,
  renderSignInPage,
  renderSignOutPage,
  renderVerifyRequestPage,
  type PageProvider,
  type RenderedPage,
} from "../../kernel/pages"
import type { AuthResult } from "../../kernel/response"
import { sessionContext } from "../../session/context"
import { currentPrincipal } from "../../session/principal"
import { randomBytes } from "node:crypto"
import { withScriptNonce } from "../../kernel/pages/csp"
import { sentToAddress } from "../../methods/email/email"
import { emailCodeOptions } from "../../kernel/config/validate"
import { forgetRejectedFields, refilledFields } from "../../methods/credentials/callback"

function page(rendered: RenderedPage): AuthResult {
  return { status: rendered.status, headers: { ...pageHeaders }, body: rendered.html }
}

function withQuery(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v)
  const qs = query.toString()
  if (!qs) return path
  return `${path}${path.includes("?") ? "&" : "?"}${qs}`
}

function pageProvider(ctx: RequestContext, p: InternalProvider): PageProvider {
  return {
    id: p.id,
    name: p.name,
    type: p.type,
    signinUrl: actionUrl(ctx, "signin", p.id),
    callbackUrl: actionUrl(ctx, "callback", p.id),
    style: p.type === "oauth" || p.type === "oidc" ? p.style : undefined,
    credentials: p.type === "credentials" ? p.credentials : undefined,
    ...(p.type === "webauthn"
      ? {
          formFields: p.formFields,
          webauthnOptionsUrl: actionUrl(ctx, "webauthn-options", p.id),
          enableConditionalUI: p.enableConditionalUI,
        }
      : {}),
  }
}

/**
 * GET /signin: redirect to `pages.signIn` (with `callbackUrl` and `error`), or the built-in page.
 *
 * @example
 * ```ts
 * signInPage(ctx)
 * ```
 */
export async function signInPage(ctx: RequestContext): Promise<AuthResult> {
  const custom = ctx.config.pages.signIn
  if (custom) {
    const query = { callbackUrl: ctx.callbackUrl, error: ctx.request.error, retry: ctx.request.query.retry }
    return { redirect: withQuery(custom, query) }
  }
  // What a rejected attempt left is shown at most once, on the page its error sends the browser to; any showing of the
  // page ends it (the providers below read it first when the error says so).
  forgetRejectedFields(ctx)
  // A passkey form needs the inline script: a fresh nonce per response, allowed by the CSP of this response only.
  const nonce = ctx.config.providers.some((p) => p.type === "webauthn") ? randomBytes(16).toString("base64") : undefined
  const result = page(
    renderSignInPage({
      nonce,
      providers: await Promise.all(
        ctx.config.providers.map(async (p) => {
          const shown = pageProvider(ctx, p)
          // After a rejected credentials sign-in, the form comes back with what was typed (never the password).
          if (p.type === "credentials" && ctx.request.error === "CredentialsSignin") {
            shown.values = await refilledFields(ctx, p)
          }
          // The Password form and its "send the link again" form get the address back the same way.
          if (p.type === "password" && /^(CredentialsSignin|EmailNotVerified)$/.test(ctx.request.error ?? "")) {
            shown.values = await refilledFields(ctx, { id: p.id, credentials: { email: { type: "email" } } })
          }
          return shown
        }),
      ),
      csrfToken: ctx.csrfToken,
      callbackUrl: ctx.callbackUrl,
      siteName: new URL(ctx.origin).host,
      email: ctx.request.query.email,
      error: ctx.request.error,
      retry: ctx.request.query.retry,
      theme: ctx.config.theme,
      ...(ctx.request.query.reset === "1" ? { notice: "reset" as const } : {}),
      ...(ctx.request.query.verified === "1" ? { notice: "verified" as const } : {}),
    }),
  )
  if (nonce) result.headers = { ...result.headers, "Content-Security-Policy": withScriptNonce(nonce) }
  return result
}

/**
 * GET /signout: redirect to `pages.signOut`, or the confirmation page posting back to this URL.
 *
 * @example
 * ```ts
 * signOutPage(ctx)
 * ```
 */
export async function signOutPage(ctx: RequestContext): Promise<AuthResult> {
  if (ctx.config.pages.signOut) return { redirect: ctx.config.pages.signOut }
  const action = `${ctx.origin}${ctx.request.url.pathname}${ctx.request.url.search}`
  const signedIn = (await currentPrincipal(sessionContext(ctx))).ok
  return page(
    renderSignOutPage({
      csrfToken: ctx.csrfToken,
      action,
      theme: ctx.config.theme,
      signedIn,
      returnTo: await signOutReturnTo(ctx),
      signinUrl: actionUrl(ctx, "signin"),
      origin: ctx.origin,
    }),
  )
}

/**
 * Where sign-out returns to: an explicit `callbackUrl` query value, else the same-origin page the visitor came from
 * (`Referer`, never one of the auth pages), else the site's root; all through the `redirect` callback. The
 * callback-url cookie left by an earlier sign-in is not used: it names where that sign-in was going, not this page.
 */
async function signOutReturnTo(ctx: RequestContext): Promise<string> {
  const { config, origin } = ctx
  if (ctx.request.query.callbackUrl) return ctx.callbackUrl
  const referer = ctx.request.headers.get("referer")
  let candidate = origin
  if (referer && URL.canParse(referer)) {
    const url = new URL(referer)
    const authPage = config.basePath !== "" && `${url.pathname}/`.startsWith(`${config.basePath}/`)
    if (url.origin === origin && !authPage) candidate = url.href
  }
  return config.callbacks.redirect({ url: candidate, baseUrl: origin })
}

/**
 * GET /error: redirect to `pages.error` with the (encoded) error, or the built-in error page with its status.
 *
 * @example
 * ```ts
 * errorPage(ctx)
 * ```
 */
export function errorPage(ctx: RequestContext): AuthResult {
  const error = ctx.request.error
  if (ctx.config.pages.error) return { redirect: withQuery(ctx.config.pages.error, { error }) }
  return page(
    renderErrorPage({
      error,
      origin: ctx.origin,
      signinUrl: actionUrl(ctx, "signin"),
      theme: ctx.config.theme,
    }),
  )
}

/**
 * GET /verify-request: redirect to `pages.verifyRequest` (keeping the query), or the "check your email" page.
 *
 * @example
 * ```ts
 * verifyRequestPage(ctx)
 * ```
 */
export async function verifyRequestPage(ctx: RequestContext): Promise<AuthResult> {
  const custom = ctx.config.pages.verifyRequest
  if (custom) return { redirect: `${custom}${ctx.request.url.search}` }
  // The provider named in the query (as the email action redirects) tells how long its links live.
  const id = ctx.request.query.provider
  const provider = typeof id === "string" ? ctx.config.providerById.get(id) : undefined
  const maxAge = provider?.type === "email" ? (provider.maxAge ?? 10 * 60) : undefined
  const address = provider?.type === "email" ? await sentToAddress(ctx, provider.id) : undefined
  if (provider?.type === "password") {
    const type = ctx.request.query.type
    const kind = type === "reset" || type === "verify" ? type : "signup"
    const seconds = kind === "reset" ? provider.reset.maxAge : provider.emailVerification.maxAge
    const shown = await sentToAddress(ctx, provider.id)
    return page(
      renderVerifyRequestPage({ origin: ctx.origin, theme: ctx.config.theme, maxAge: seconds, address: shown, kind }),
    )
  }
  const codes = provider?.type === "email" ? emailCodeOptions(provider) : null
  const code = codes
    ? {
        action: actionUrl(ctx, "callback", provider!.id),
        csrfToken: ctx.csrfToken,
        length: codes.length,
        withAddress: address === undefined,
        error: ctx.request.query.error,
      }
    : undefined
  return page(renderVerifyRequestPage({ origin: ctx.origin, theme: ctx.config.theme, maxAge, address, code }))
}
