/** The demo's development mailbox: sign-in emails are kept in memory, logged, and listed on a page. No SMTP needed. */
import { Router } from "express"
import type { Adapter } from "../../lib/storage/adapter"
import Email from "../../lib/providers/email"
import { signInMessage, twoFactorMessage } from "../../lib/providers/internal/email-message"
import type { EmailConfig, SendVerificationRequestParams } from "../../lib/providers/types"
import type { PasswordOptions } from "../../lib/providers/password"
import { demoCsp, escape, renderPage, timeElement } from "./pages"

/** One message the mailbox received. */
export interface DevMailMessage {
  to: string
  subject: string
  url: string
  text: string
  sentAt: Date
  /** When the link stops working. */
  expires: Date
  /** The one-time code of the message (a sign-in code next to the link, or a second-factor code). */
  code?: string
  /** When the link was used (its token consumed), if it was. */
  usedAt?: Date
  /** What following the link does ("Sign in as …", "Confirm …", "Reset the password of …"); no link when absent. */
  action?: string
}

export interface DevMailboxOptions {
  /** How many messages are kept (the oldest are dropped). Default 20. */
  limit?: number
  /** Where the "Sign-in link for …" line goes. Default `console.log`. */
  log?: (line: string) => void
  /** The clock, in epoch milliseconds (tests inject one). Default `Date.now`. */
  now?: () => number
}

/** The part of an adapter the mailbox watches: consuming a sign-in token marks its message used. */
type TokenConsumer = Pick<Adapter, "useVerificationToken">

export interface DevMailbox {
  /** An `Email` provider (id `email`) whose messages land here instead of being sent. */
  provider: EmailConfig
  /** The four email hooks of the `Password` provider, landing here too. */
  passwordHooks: Pick<
    PasswordOptions,
    "sendVerificationRequest" | "sendPasswordReset" | "sendAccountExists" | "sendPasswordChanged"
  >
  /** `GET /`: the messages as an HTML page, newest first. Mount it at `/dev/mailbox`. */
  router: Router
  /** The kept messages, newest first. */
  messages(): readonly DevMailMessage[]
  /**
   * Wraps an adapter so that a consumed sign-in token marks its message "used" (matched by address and expiry: the
   * mailbox never sees the stored hash). Everything else is the adapter itself.
   */
  watch<A extends TokenConsumer>(adapter: A): A
}

type LinkState = "valid" | "used" | "expired"

function stateOf(message: DevMailMessage, now: number): LinkState {
  if (message.usedAt) return "used"
  return message.expires.valueOf() <= now ? "expired" : "valid"
}

const badgeText: Record<LinkState, string> = { valid: "Valid", used: "Used", expired: "Expired" }

function item(m: DevMailMessage, now: number): string {
  const state = stateOf(m, now)
  const when =
    state === "used"
      ? `used ${timeElement(m.usedAt!, now)}`
      : state === "expired"
        ? `expired ${timeElement(m.expires, now)}`
        : `expires ${timeElement(m.expires, now)}`
  // A used or expired link is shown as text: following it would only end on an error page.
  const action = m.action ?? `Sign in as ${m.to}`
  const link = !m.url
    ? ""
    : state === "valid"
      ? `<a href="${escape(m.url)}">${escape(action)}</a>`
      : `<span class="muted">${escape(action)} (no longer works)</span>`
  return (
    `<li class="message ${state}"><p><strong>${escape(m.subject)}</strong>` +
    `<span class="badge ${state}">${badgeText[state]}</span></p>` +
    `<p class="muted">To <code>${escape(m.to)}</code>, sent ${timeElement(m.sentAt, now)}; ${when}.</p>` +
    (m.code ? `<p>Code: <strong class="code">${escape(m.code)}</strong></p>` : "") +
    `<p>${link}</p><details><summary>Message text</summary><pre>${escape(m.text)}</pre></details></li>`
  )
}

function page(messages: readonly DevMailMessage[], now: number): string {
  const list = messages.length
    ? `<ol class="list">${messages.map((m) => item(m, now)).join("")}</ol>`
    : '<p class="muted">No messages yet. Sign in with Email on the <a href="/auth/signin?callbackUrl=%2F">sign-in page</a> to ' +
      "receive one.</p>"
  return renderPage({
    title: "Development mailbox",
    path: "/dev/mailbox",
    body:
      '<p class="muted">Sign-in emails of this demo land here instead of being sent. Never expose this page in ' +
      "production.</p>" +
      list +
      '<p class="back"><a href="/">Back to the demo</a></p>',
  })
}

/**
 * Creates the development mailbox. Every sign-in link it receives is readable by anyone who can open the page, so the
 * router answers 404 when `NODE_ENV` is `production`; mount it only in development anyway.
 *
 * @example
 * ```ts
 * const mailbox = createDevMailbox()
 * app.use("/auth", ExpressAuth({ providers: [mailbox.provider], adapter: MemoryAdapter() }))
 * app.use("/dev/mailbox", mailbox.router)
 * ```
 */
export function createDevMailbox(options: DevMailboxOptions = {}): DevMailbox {
  const limit = Math.max(1, options.limit ?? 20)
  const log = options.log ?? ((line: string) => console.log(line))
  const now = options.now ?? Date.now
  const inbox: DevMailMessage[] = []

  const sendVerificationRequest = (params: SendVerificationRequestParams) => {
    const { identifier, url, theme, expires, code, purpose } = params
    const { subject, text } =
      purpose === "two-factor" && code ? twoFactorMessage({ code, url }) : signInMessage({ url, theme, code })
    inbox.unshift({
      to: identifier,
      subject,
      url,
      text,
      sentAt: new Date(now()),
      expires: new Date(expires),
      ...(code ? { code } : {}),
    })
    inbox.length = Math.min(inbox.length, limit)
    log(`Sign-in link for ${identifier}: ${url}`)
  }

  const router = Router()
  router.get("/", (_req, res, next) => {
    if (process.env.NODE_ENV === "production") {
      next()
      return
    }
    res
      .set({
        "Cache-Control": "no-store",
        // The page holds live sign-in links: do not leak them to the next site in a Referer.
        "Referrer-Policy": "no-referrer",
        "Content-Security-Policy": demoCsp(),
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
      })
      .type("html")
      .send(page(inbox, now()))
  })

  /** Keeps one message (newest first, at most `limit`). */
  const keep = (message: DevMailMessage) => {
    inbox.unshift(message)
    inbox.length = Math.min(inbox.length, limit)
    log(`${message.subject} for ${message.to}${message.url ? `: ${message.url}` : ""}`)
  }
  const far = () => new Date(now() + 365 * 86_400_000)
  const passwordHooks: DevMailbox["passwordHooks"] = {
    sendVerificationRequest: ({ identifier, url, expires }) =>
      keep({
        to: identifier,
        subject: "Confirm your email address",
        url,
        text: url,
        sentAt: new Date(now()),
        expires,
        action: `Confirm ${identifier}`,
      }),
    sendPasswordReset: ({ identifier, url, expires }) =>
      keep({
        to: identifier,
        subject: "Reset your password",
        url,
        text: url,
        sentAt: new Date(now()),
        expires,
        action: `Choose a new password for ${identifier}`,
      }),
    sendAccountExists: ({ identifier, resetUrl }) =>
      keep({
        to: identifier,
        subject: "You already have an account",
        url: "",
        text: `Sign in, or reset your password: ${resetUrl}`,
        sentAt: new Date(now()),
        expires: far(),
      }),
    sendPasswordChanged: ({ identifier }) =>
      keep({
        to: identifier,
        subject: "Your password was changed",
        url: "",
        text: "The password of your account was just changed.",
        sentAt: new Date(now()),
        expires: far(),
      }),
  }

  const markUsed = (stored: string, expires: Date) => {
    // Password links are stored under `gatehouse:<kind>:<address>`.
    const identifier = stored.replace(/^gatehouse:(verify-email|password-reset):/, "")
    const at = new Date(expires).valueOf()
    const message = inbox.find((m) => m.to === identifier && m.expires.valueOf() === at && !m.usedAt)
    // A token consumed after it expired signed nobody in: the message stays "expired".
    if (message && at > now()) message.usedAt = new Date(now())
  }

  return {
    // `code: true`: each sign-in email also carries a 6-digit code, typed on the "check your email" page.
    provider: Email({ id: "email", name: "Email", code: true, sendVerificationRequest }),
    passwordHooks,
    router,
    messages: () => [...inbox],
    watch: <A extends TokenConsumer>(adapter: A): A => {
      const use = adapter.useVerificationToken
      if (!use) return adapter
      return {
        ...adapter,
        useVerificationToken: async (params: { identifier: string; token: string }) => {
          const consumed = await use(params)
          if (consumed) markUsed(consumed.identifier, consumed.expires)
          return consumed
        },
      }
    },
  }
}
