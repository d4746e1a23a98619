/**
 * The demo's "Two-factor" page: turn on an authenticator app (a QR code rendered on this server, then the first code
 * and the backup codes shown once), and turn it off again with a code. Everything goes through the Gatehouse members
 * `twoFactorStatus`, `enableTotp`, `verifyTotpEnrolment` and `disableTotp`.
 */
import type express from "express"
import type { RequestHandler } from "express"
import type { GatehouseInstance } from "../../lib"
import { escape, renderPage, sendPage } from "./pages"

/** What the page needs from the app: the members, route protection and the account forms' token. */
export interface TwoFactorPageDeps {
  gatehouse: Pick<GatehouseInstance, "twoFactorStatus" | "enableTotp" | "verifyTotpEnrolment" | "disableTotp">
  requireAuth: () => RequestHandler
  /** Checks an account form's token (answers 403 itself and resolves to false when it fails). */
  checkForm: (req: express.Request, res: express.Response) => Promise<boolean>
  /** The hidden token input of an account form of this request's session. */
  tokenInput: (req: express.Request, res: express.Response) => Promise<string>
}

const PATH = "/account/two-factor"

const codeField = (label: string) =>
  `<label class="field-label" for="code">${label}</label>` +
  '<input class="field" id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required>'

function messageOf(error: unknown): string {
  const type = (error as { type?: unknown })?.type
  if (type === "TwoFactorInvalid") return "That code didn't work. Check it and try again."
  if (type === "SessionNotFresh") return "Sign in again first: changing two-factor settings needs a recent sign-in."
  if (type === "RateLimited") return "Too many attempts. Try again later."
  if (type === "NotFound") return "There is nothing to confirm: start again."
  return "That did not work."
}

/**
 * Mounts `GET /account/two-factor` and its three forms on `app`.
 *
 * @example
 * ```ts
 * mountTwoFactorPage(app, { gatehouse, requireAuth, checkForm, tokenInput })
 * ```
 */
export function mountTwoFactorPage(app: express.Express, deps: TwoFactorPageDeps): void {
  const { gatehouse, requireAuth, checkForm, tokenInput } = deps
  const show = (res: express.Response, body: string, status = 200) =>
    sendPage(res, renderPage({ title: "Two-factor sign-in", path: PATH, body }), { status })

  app.get(PATH, requireAuth(), async (req, res, next) => {
    try {
      const status = await gatehouse.twoFactorStatus(req, res)
      const token = await tokenInput(req, res)
      const body = status?.enabled
        ? `<p>Two-factor sign-in is <strong>on</strong>: after your password, email link or identity provider, ` +
          `Gatehouse asks for a code from your authenticator app. ${status.backupCodesLeft} backup codes left.</p>` +
          `<form class="login" method="post" action="${PATH}/disable">${token}${codeField("Code or backup code")}` +
          '<button class="button secondary">Turn off two-factor sign-in</button></form>'
        : "<p>Two-factor sign-in is <strong>off</strong>. Turn it on to be asked for a code from an authenticator " +
          "app after every sign-in.</p>" +
          `<form method="post" action="${PATH}/enable">${token}<button class="button">Set up an authenticator app</button></form>`
      show(res, body)
    } catch (error) {
      next(error)
    }
  })

  app.post(`${PATH}/enable`, requireAuth(), async (req, res, next) => {
    try {
      if (!(await checkForm(req, res))) return
      const { secret, qrSvg } = await gatehouse.enableTotp(req, res, { issuer: "Gatehouse demo" }).catch((e) => {
        show(res, `<div class="error" role="alert"><p>${escape(messageOf(e))}</p></div>`, 400)
        return { secret: undefined, qrSvg: null }
      })
      if (!secret) return
      const qr = qrSvg ? `<div class="qr" style="width:14rem;background:#fff">${qrSvg}</div>` : ""
      const body =
        "<p>Scan this code with your authenticator app, or type the secret in it.</p>" +
        qr +
        `<p>Secret: <code class="secret">${escape(secret)}</code></p>` +
        `<form class="login" method="post" action="${PATH}/confirm">${await tokenInput(req, res)}` +
        `${codeField("The 6-digit code your app shows")}<button class="button">Turn on</button></form>`
      show(res, body)
    } catch (error) {
      next(error)
    }
  })

  app.post(`${PATH}/confirm`, requireAuth(), async (req, res, next) => {
    try {
      if (!(await checkForm(req, res))) return
      const code = String((req.body as Record<string, unknown>).code ?? "")
      let backupCodes: string[]
      try {
        backupCodes = (await gatehouse.verifyTotpEnrolment(req, res, { code })).backupCodes
      } catch (error) {
        const message = escape(messageOf(error))
        show(res, `<div class="error" role="alert"><p>${message}</p></div><p><a href="${PATH}">Back</a></p>`, 400)
        return
      }
      const list = backupCodes.map((c) => `<li><code class="backup-code">${escape(c)}</code></li>`).join("")
      show(
        res,
        '<div class="notice" role="status"><p>Two-factor sign-in is on.</p></div>' +
          "<p>Keep these backup codes somewhere safe: each signs in once without your app. They are shown only " +
          `now.</p><ul>${list}</ul><p><a href="${PATH}">Done</a></p>`,
      )
    } catch (error) {
      next(error)
    }
  })

  app.post(`${PATH}/disable`, requireAuth(), async (req, res, next) => {
    try {
      if (!(await checkForm(req, res))) return
      const code = String((req.body as Record<string, unknown>).code ?? "")
      const done = await gatehouse.disableTotp(req, res, { code }).catch((e: unknown) => e)
      if (done !== true) {
        show(
          res,
          `<div class="error" role="alert"><p>${escape(messageOf(done))}</p></div><p><a href="${PATH}">Back</a></p>`,
          400,
        )
        return
      }
      show(res, `<div class="notice" role="status"><p>Two-factor sign-in is off.</p></div><p><a href="/">Home</a></p>`)
    } catch (error) {
      next(error)
    }
  })
}
