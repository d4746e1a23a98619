/**
 * The demo's "Your account" page: what you can sign in with (`listAccounts`), your recent activity from the audit
 * trail (`listMyAuditEvents`), and linking the local identity provider to this account (`linkAccount`). While an
 * admin impersonates you, it says so and offers the way back (`stopImpersonating`).
 */
import type express from "express"
import type { RequestHandler } from "express"
import type { GatehouseInstance } from "../../lib"
import { escape, renderPage, sendPage, timeElement } from "./pages"
import { signInMethodLabel } from "./sign-in-methods"

/** What the page needs from the app: the members, route protection and the account forms' token. */
export interface ProfilePageDeps {
  gatehouse: Pick<GatehouseInstance, "listAccounts" | "listMyAuditEvents" | "linkAccount" | "stopImpersonating">
  requireAuth: () => RequestHandler
  /** The OpenID provider users can link (`local-idp`). */
  linkProvider: string
  /** Checks an account form's token (answers 403 itself and resolves to false when it fails). */
  checkForm: (req: express.Request, res: express.Response) => Promise<boolean>
  /** The hidden token input of an account form of this request's session. */
  tokenInput: (req: express.Request, res: express.Response) => Promise<string>
}

export const PROFILE_PATH = "/account/profile"

/** Fixed words for the audit event types the page shows (anything else is shown by its type). */
const activity: Readonly<Record<string, string>> = {
  signin: "Signed in",
  signout: "Signed out",
  "session.revoked": "Sessions signed out",
  "account.linked": "Linked a sign-in provider",
  "account.unlinked": "Unlinked a sign-in provider",
  "passkey.added": "Added a passkey",
  "twofactor.enabled": "Turned on two-factor sign-in",
  "twofactor.disabled": "Turned off two-factor sign-in",
  "impersonation.started": "An admin began acting as you",
  "impersonation.stopped": "An admin stopped acting as you",
}

/** The fixed notices of the page, by the `linked` / `error` query values (never the values themselves). */
function noticeOf(query: express.Request["query"], provider: string): string {
  if (query.linked === provider) return "The local identity provider is linked: you can sign in with it now."
  if (query.error === "OAuthAccountNotLinked") return "That identity is already linked to another account."
  if (query.error === "SessionNotFresh") return "Sign in again first: linking needs a recent sign-in."
  if (query.error === "ImpersonationRestricted") return "Nothing can be linked while an admin acts as this user."
  if (typeof query.error === "string") return "Linking did not work."
  return ""
}

/**
 * Mounts `GET /account/profile`, its link form and the "stop impersonating" form on `app`.
 *
 * @example
 * ```ts
 * mountProfilePage(app, { gatehouse, requireAuth, linkProvider: "local-idp", checkForm, tokenInput })
 * ```
 */
export function mountProfilePage(app: express.Express, deps: ProfilePageDeps): void {
  const { gatehouse, requireAuth, linkProvider, checkForm, tokenInput } = deps

  app.get(PROFILE_PATH, requireAuth(), async (req, res, next) => {
    try {
      const overview = await gatehouse.listAccounts(req, res)
      const recent = await gatehouse.listMyAuditEvents(req, res, { limit: 10 })
      const token = await tokenInput(req, res)
      const methods = [
        ...(overview?.accounts ?? []).map((a) => escape(signInMethodLabel(a.provider))),
        ...(overview?.passkeys.length ? [`${overview.passkeys.length} passkey(s)`] : []),
        ...(overview?.password ? ["an email and password"] : []),
        ...(overview?.emailSignIn ? ["an email link"] : []),
      ]
      const linked = overview?.accounts.some((a) => a.provider === linkProvider) ?? false
      const rows = (recent?.events ?? [])
        .map(
          (e) =>
            `<li>${escape(activity[e.type] ?? e.type)}${e.outcome === "failure" ? " (refused)" : ""}` +
            `${e.byAdmin ? " <strong>by an admin</strong>" : ""}, ${timeElement(e.at * 1000, Date.now())}</li>`,
        )
        .join("")
      const notice = noticeOf(req.query, linkProvider)
      const body = `${notice ? `<div class="notice" role="status"><p>${escape(notice)}</p></div>` : ""}
<h2>How you can sign in</h2>
<p>${methods.length ? methods.join(", ") : "Only the way you signed in this time."} Two-factor sign-in is
<strong>${overview?.twoFactor.enabled ? "on" : "off"}</strong>.</p>
${
  linked
    ? '<p class="muted">The local identity provider is linked to this account.</p>'
    : `<form method="post" action="${PROFILE_PATH}/link">${token}<button class="button">Link the local identity provider</button></form>`
}
<h2>Recent activity</h2>
${rows ? `<ul class="activity">${rows}</ul>` : '<p class="muted">Nothing recorded yet.</p>'}`
      sendPage(res, renderPage({ title: "Your account", path: PROFILE_PATH, body }))
    } catch (error) {
      next(error)
    }
  })

  // The demo's form token has checked the origin already, so the members skip their own guard (`csrf: false`).
  app.post(`${PROFILE_PATH}/link`, requireAuth(), async (req, res, next) => {
    if (!(await checkForm(req, res))) return
    try {
      const url = await gatehouse.linkAccount(req, res, linkProvider, { redirectTo: PROFILE_PATH, csrf: false })
      res.redirect(303, url)
    } catch (error) {
      const type = (error as { type?: unknown })?.type
      if (typeof type === "string") return void res.redirect(303, `${PROFILE_PATH}?error=${encodeURIComponent(type)}`)
      next(error)
    }
  })

  app.post("/account/stop-impersonating", requireAuth(), async (req, res, next) => {
    if (!(await checkForm(req, res))) return
    try {
      await gatehouse.stopImpersonating(req, res, { csrf: false })
      res.redirect(303, "/")
    } catch (error) {
      next(error)
    }
  })
}
