/**
 * The email-and-password example: sign-up with a confirmation link, sign-in, "forgot password", and an account page
 * that changes the password with the `changePassword` server function. Users live in memory (or `$DEMO_DB`, a SQLite
 * file); the emails land in a development mailbox at `/dev/mailbox`. Run it with `npx tsx examples/password/server.ts`.
 */
import express from "express"
import { Gatehouse, type AuthConfig } from "../../lib"
import Password from "../../lib/providers/password"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import { createDevMailbox } from "../express-basic/mailbox"
import { escape, sendPage } from "../express-basic/pages"

/** A plain page of this example: a title, a small navigation, the body (already escaped HTML). */
function renderPage(p: { title: string; body: string }): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(p.title)}</title></head><body>` +
    '<nav><a href="/">Home</a> · <a href="/account">Account</a> · <a href="/dev/mailbox">Dev mailbox</a></nav>' +
    `<main><h1>${escape(p.title)}</h1>${p.body}</main></body></html>`
  )
}

/** The example's emails land here instead of being sent. */
export const mailbox = createDevMailbox()

/** The example's config: SQLite (`:memory:` unless `$DEMO_DB`), the Password provider with the mailbox's hooks. */
export function passwordConfig(file = process.env.DEMO_DB ?? ":memory:"): AuthConfig {
  return {
    adapter: mailbox.watch(SQLiteAdapter(file)),
    trustHost: true,
    providers: [Password({ ...mailbox.passwordHooks, requireEmailVerification: true, minLength: 10 })],
  }
}

/** The fixed notices of the account page, by the `done`/`error` query value (never the value itself). */
const notices: ReadonlyMap<unknown, string> = new Map([
  ["changed", "Your password was changed. Your other sessions were signed out."],
  ["PasswordIncorrect", "The current password is not right."],
  ["PasswordPolicy", "Choose a new password of at least 10 characters that is not your email address."],
])

/**
 * Builds the example app.
 *
 * @example
 * ```ts
 * createApp().listen(3000)
 * ```
 */
export function createApp(config: AuthConfig = passwordConfig()): express.Express {
  const { handlers, auth, changePassword } = Gatehouse(config)
  const app = express()
  app.use(express.urlencoded({ extended: false }))
  app.use("/auth", handlers)
  app.use("/dev/mailbox", mailbox.router)

  app.get(
    "/",
    auth((req, res) => {
      const who = req.auth?.user?.email
      const body = who
        ? `<p>Signed in as <strong>${escape(who)}</strong>.</p><p><a class="button" href="/account">Account</a></p>`
        : '<p>You are not signed in.</p><p><a class="button" href="/auth/signin">Sign in</a> ' +
          '<a href="/auth/signup">Create an account</a></p><p class="muted">Emails land in the ' +
          '<a href="/dev/mailbox">dev mailbox</a>.</p>'
      sendPage(res, renderPage({ title: "Email and password example", body }))
    }),
  )

  app.get(
    "/account",
    auth((req, res) => {
      if (!req.auth) return void res.redirect(303, "/auth/signin?callbackUrl=%2Faccount")
      const notice = notices.get(req.query.done) ?? notices.get(req.query.error)
      const body =
        (notice ? `<div class="notice" role="status"><p>${escape(notice)}</p></div>` : "") +
        '<form method="post" action="/account/password">' +
        '<label class="field-label" for="current">Current password</label>' +
        '<input class="field" id="current" name="currentPassword" type="password" autocomplete="current-password" required>' +
        '<label class="field-label" for="next">New password</label>' +
        '<input class="field" id="next" name="newPassword" type="password" autocomplete="new-password" required>' +
        '<button class="button">Change password</button></form>'
      sendPage(res, renderPage({ title: "Account", body }))
    }),
  )

  // A same-origin form post: the origin guard of the server function passes on the browser's `Sec-Fetch-Site`.
  app.post("/account/password", async (req, res, next) => {
    try {
      await changePassword(req, res, { currentPassword: req.body.currentPassword, newPassword: req.body.newPassword })
      res.redirect(303, "/account?done=changed")
    } catch (error) {
      const type = (error as { type?: string }).type
      if (type === "SessionRequired" || type === "SessionNotFresh") {
        return void res.redirect(303, "/auth/signin?callbackUrl=%2Faccount")
      }
      if (type === "PasswordIncorrect" || type === "PasswordPolicy")
        return void res.redirect(303, `/account?error=${type}`)
      next(error)
    }
  })
  return app
}

/** The example app on an in-memory database, as the tests import it. */
export const app = createApp()
