/**
 * The account routes (accounts.md §2.7): the JSON routes behind `features.accountRoutes` (GET the overview and the
 * activity feed; POST unlink, email, delete) and the three mail-link routes, always on (GET a confirmation page,
 * POST the change). CSRF is checked by the router from the route table before this runs.
 */
import { AuthError, InvalidRequest, SessionRequired, UnknownAction } from "../../../errors"
import type { RequestContext } from "../../kernel/context"
import { pageHeaders, renderConfirmAccountPage, type AccountLinkPage } from "../../kernel/pages"
import { jsonHeaders, noCacheHeaders, type AuthResult } from "../../kernel/response"
import { sessionContext } from "../../session/context"
import { listMyAuditEvents } from "./activity"
import { confirmDelete, deleteAccount } from "./delete"
import { cancelEmailChange, changeEmail, verifyEmailChange } from "./email-change"
import { listAccounts } from "./overview"
import { unlinkAccount } from "./unlink"

const json = (status: number, body: unknown): AuthResult => ({
  status,
  headers: { ...jsonHeaders, ...noCacheHeaders },
  body,
})

const LINK_PAGES: ReadonlySet<string> = new Set<AccountLinkPage>(["verify-email", "cancel-email", "confirm-delete"])

/** A `limit` query parameter: digits only (numbers are not coerced from other strings), else `InvalidRequest`. */
function queryLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^[0-9]{1,3}$/.test(value)) throw new InvalidRequest("Invalid limit", { cause: { field: "limit" } })
  return Number(value)
}

/** The mail-link routes: GET shows the page (changes nothing), POST acts and redirects. */
async function linkRoute(ctx: RequestContext, page: AccountLinkPage): Promise<AuthResult> {
  const base = `${ctx.origin}${ctx.config.basePath}`
  if (ctx.request.method === "GET") {
    const token = typeof ctx.request.query.token === "string" ? ctx.request.query.token : ""
    const rendered = renderConfirmAccountPage({
      page,
      action: `${base}/account/${page}`,
      csrfToken: ctx.csrfToken,
      token,
      theme: ctx.config.theme,
    })
    return { status: rendered.status, headers: { ...pageHeaders, ...noCacheHeaders }, body: rendered.html }
  }
  const sctx = sessionContext(ctx)
  const token = ctx.request.body?.token
  const errorAt = (error: string) => ({ redirect: `${base}/error?error=${encodeURIComponent(error)}` })
  if (page === "verify-email") {
    const { error, to } = await verifyEmailChange(sctx, token)
    return error ? errorAt(error) : { redirect: await ctx.config.callbacks.redirect({ url: to!, baseUrl: ctx.origin }) }
  }
  if (page === "cancel-email") {
    const { error } = await cancelEmailChange(sctx, token)
    return error ? errorAt(error) : { redirect: `${base}/signin?info=EmailChangeCancelled` }
  }
  const { error, to } = await confirmDelete(sctx, token)
  return error ? errorAt(error) : { redirect: await ctx.config.callbacks.redirect({ url: to!, baseUrl: ctx.origin }) }
}

/** The JSON routes (the flag is on). */
async function jsonRoute(ctx: RequestContext, sub: string | undefined): Promise<AuthResult> {
  const sctx = sessionContext(ctx)
  const { method } = ctx.request
  const body = ctx.request.body ?? {}
  if (method === "GET" && sub === undefined) {
    const overview = await listAccounts(sctx)
    return overview ? json(200, overview) : json(401, { error: "Unauthorized" })
  }
  if (method === "GET" && sub === "activity") {
    const feed = await listMyAuditEvents(sctx, { limit: queryLimit(ctx.request.query.limit as string | undefined) })
    return feed ? json(200, feed) : json(401, { error: "Unauthorized" })
  }
  if (method !== "POST") throw new UnknownAction("Cannot handle action: account")
  const redirectTo = ctx.request.body?.callbackUrl !== undefined ? ctx.callbackUrl : undefined
  switch (sub) {
    case "unlink":
      await unlinkAccount(sctx, body.provider, body.providerAccountId)
      return json(200, { ok: true })
    case "email":
      await changeEmail(sctx, { email: body.email, origin: ctx.origin, redirectTo })
      return json(200, { ok: true })
    case "delete": {
      const result = await deleteAccount(sctx, { origin: ctx.origin, redirectTo })
      return "pending" in result ? json(202, { ok: true, pending: true }) : json(200, { ok: true, deleted: true })
    }
  }
  throw new UnknownAction("Cannot handle action: account")
}

/**
 * Answers `<base>/account[/<sub>]`.
 *
 * @example
 * ```ts
 * const result = await accountAction(ctx)
 * ```
 */
export async function accountAction(ctx: RequestContext): Promise<AuthResult> {
  const sub = ctx.request.providerId
  if (sub !== undefined && LINK_PAGES.has(sub)) return linkRoute(ctx, sub as AccountLinkPage)
  // The JSON routes are opt-in: off, they are not Gatehouse's, like any unknown action.
  if (!ctx.config.accounts.routes.account) return { status: 400, headers: { ...jsonHeaders }, body: "Bad request." }
  try {
    return await jsonRoute(ctx, sub)
  } catch (error) {
    return accountJsonError(error)
  }
}

/**
 * The JSON answer of the account routes to a thrown error: 401 `Unauthorized` without a session, the error's status
 * and type for a coded one; anything else is rethrown (the pipeline answers it).
 *
 * @example
 * ```ts
 * try { ... } catch (error) { return accountJsonError(error) }
 * ```
 */
export function accountJsonError(error: unknown): AuthResult {
  if (error instanceof SessionRequired) return json(401, { error: "Unauthorized" })
  if (error instanceof AuthError && error.status !== undefined && !(error instanceof UnknownAction)) {
    return {
      ...json(error.status, { error: error.type }),
      headers: { ...jsonHeaders, ...noCacheHeaders, ...error.headers },
    }
  }
  throw error
}

/** The answer of an account JSON route while `features.accountRoutes` is off: not one of Gatehouse's routes. */
export const accountRoutesOff = (): AuthResult => ({ status: 400, headers: { ...jsonHeaders }, body: "Bad request." })
