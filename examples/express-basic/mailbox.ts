/** The demo's development mailbox: sign-in emails are kept in memory, logged, and listed on a page. No SMTP needed. */
import { Router } from "express"
import Email from "../../lib/providers/email"
import { signInMessage } from "../../lib/providers/internal/email-message"
import type { EmailConfig, SendVerificationRequestParams } from "../../lib/providers/types"

/** One message the mailbox received. */
export interface DevMailMessage {
  to: string
  subject: string
  url: string
  text: string
  sentAt: Date
}

export interface DevMailboxOptions {
  /** How many messages are kept (the oldest are dropped). Default 20. */
  limit?: number
  /** Where the "Sign-in link for …" line goes. Default `console.log`. */
  log?: (line: string) => void
}

export interface DevMailbox {
  /** An `Email` provider (id `email`) whose messages land here instead of being sent. */
  provider: EmailConfig
  /** `GET /`: the messages as an HTML page, newest first. Mount it at `/dev/mailbox`. */
  router: Router
  /** The kept messages, newest first. */
  messages(): readonly DevMailMessage[]
}

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(messages: readonly DevMailMessage[]): string {
  const items = messages
    .map(
      (m) => `<li><p><strong>${escape(m.subject)}</strong> to <code>${escape(m.to)}</code>
<time datetime="${escape(m.sentAt.toISOString())}">${escape(m.sentAt.toISOString())}</time></p>
<p><a href="${escape(m.url)}">Sign in as ${escape(m.to)}</a></p><pre>${escape(m.text)}</pre></li>`,
    )
    .join("\n")
  const body = items ? `<ol>${items}</ol>` : "<p>No messages yet. Sign in with Email to receive one.</p>"
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Development mailbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:3rem auto;padding:0 1rem}pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:.5rem}</style>
</head><body><h1>Development mailbox</h1>
<p>Sign-in emails of this demo land here instead of being sent. Never expose this page in production.</p>
${body}</body></html>`
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
  const inbox: DevMailMessage[] = []

  const sendVerificationRequest = ({ identifier, url, theme }: SendVerificationRequestParams) => {
    const { subject, text } = signInMessage({ url, theme })
    inbox.unshift({ to: identifier, subject, url, text, sentAt: new Date() })
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
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
      })
      .type("html")
      .send(page(inbox))
  })

  return {
    provider: Email({ id: "email", name: "Email", sendVerificationRequest }),
    router,
    messages: () => [...inbox],
  }
}
