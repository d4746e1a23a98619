/** The built-in pages (or redirects to the configured ones): sign-in, sign-out, error, verify-request. */
import { actionUrl, type RequestContext } from "../context"
import type { InternalProvider } from "../config/providers"
import {
  pageHeaders,
  renderErrorPage,
  renderSignInPage,
  renderSignOutPage,
  renderVerifyRequestPage,
  type PageProvider,
  type RenderedPage,
} from "../pages"
import type { AuthResult } from "../response"

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
export function signInPage(ctx: RequestContext): AuthResult {
  const custom = ctx.config.pages.signIn
  if (custom) return { redirect: withQuery(custom, { callbackUrl: ctx.callbackUrl, error: ctx.request.error }) }
  return page(
    renderSignInPage({
      providers: ctx.config.providers.map((p) => pageProvider(ctx, p)),
      csrfToken: ctx.csrfToken,
      callbackUrl: ctx.callbackUrl,
      email: ctx.request.query.email,
      error: ctx.request.error,
      theme: ctx.config.theme,
    }),
  )
}

/**
 * GET /signout: redirect to `pages.signOut`, or the confirmation page posting back to this URL.
 *
 * @example
 * ```ts
 * signOutPage(ctx)
 * ```
 */
export function signOutPage(ctx: RequestContext): AuthResult {
  if (ctx.config.pages.signOut) return { redirect: ctx.config.pages.signOut }
  const action = `${ctx.origin}${ctx.request.url.pathname}${ctx.request.url.search}`
  return page(renderSignOutPage({ csrfToken: ctx.csrfToken, action, theme: ctx.config.theme }))
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
export function verifyRequestPage(ctx: RequestContext): AuthResult {
  const custom = ctx.config.pages.verifyRequest
  if (custom) return { redirect: `${custom}${ctx.request.url.search}` }
  return page(renderVerifyRequestPage({ origin: ctx.origin, theme: ctx.config.theme }))
}
