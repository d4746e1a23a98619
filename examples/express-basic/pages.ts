/**
 * The demo's own pages (home, protected page, sessions, dev mailbox): the built-in pages' stylesheet and colour
 * schemes, a navigation bar, and the headers they are sent with. Every value put into a page goes through `escape`.
 */
import { randomBytes } from "node:crypto"
import type { Response } from "express"
import { escapeHtml } from "../../lib/core/kernel/pages/escape"
import { pageCss } from "../../lib/core/kernel/pages/styles"

/** Escapes text for HTML text and double-quoted attributes (the built-in pages' escaper). */
export const escape = escapeHtml

// The demo's additions to the built-in stylesheet, in its colour variables, so they follow light and dark mode.
// Badge and banner colours are chosen for at least 4.5:1 text contrast in both schemes.
const demoCss = [
  ".__next-auth-theme-auto{--demo-ok-bg:#ecfdf5;--demo-ok-fg:#065f46;--demo-ok-border:#6ee7b7;" +
    "--demo-warn-bg:#fffbeb;--demo-warn-fg:#92400e;--demo-neutral-bg:#eef0f3;--demo-link:#1d4ed8}",
  "@media (prefers-color-scheme:dark){.__next-auth-theme-auto{--demo-ok-bg:#0f2e24;--demo-ok-fg:#a7f3d0;" +
    "--demo-ok-border:#166534;--demo-warn-bg:#3a2a0c;--demo-warn-fg:#fde68a;--demo-neutral-bg:#2a3038;" +
    "--demo-link:#93c5fd}}",
  ".page.demo{justify-content:flex-start;padding-top:1.25rem}",
  ".demo-nav{display:flex;flex-wrap:wrap;gap:.35rem 1.25rem;width:100%;max-width:40rem;font-size:.95rem}",
  ".demo-nav a,.card.wide a:not(.button){color:var(--demo-link)}",
  ".demo-nav a[aria-current=page]{color:var(--gh-fg);font-weight:650;text-decoration:none}",
  ".card.wide{max-width:40rem}",
  ".card.wide p{color:var(--gh-fg)}",
  ".card .muted,.card p.muted{color:var(--gh-muted)}",
  ".card h2{margin:1.25rem 0 .5rem;font-size:1.05rem}",
  ".actions{display:flex;flex-wrap:wrap;gap:.6rem;margin:.75rem 0}",
  ".actions form{margin:0}",
  ".actions .button,.inline .button{width:auto}",
  ".button.secondary{color:var(--gh-fg);background:var(--gh-card-bg);border-color:var(--gh-border)}",
  ".notice{margin-bottom:1.25rem;padding:.75rem 1rem;color:var(--demo-ok-fg);background:var(--demo-ok-bg);" +
    "border:1px solid var(--demo-ok-border);border-radius:.5rem}",
  ".notice p,.card.wide .notice p{margin:0;color:inherit}",
  ".badge{display:inline-block;margin-left:.4rem;padding:.05rem .5rem;font-size:.8rem;font-weight:600;" +
    "border-radius:999px;vertical-align:.1em}",
  ".badge.valid,.badge.current{color:var(--demo-ok-fg);background:var(--demo-ok-bg)}",
  ".badge.used{color:var(--gh-fg);background:var(--demo-neutral-bg)}",
  ".badge.expired{color:var(--demo-warn-fg);background:var(--demo-warn-bg)}",
  ".list{margin:0;padding:0;list-style:none}",
  ".list>li{padding:.85rem 0;border-top:1px solid var(--gh-border)}",
  ".list>li:first-child{border-top:0}",
  ".list p{margin:0 0 .35rem}",
  ".list .inline{margin-top:.4rem}",
  ".login{display:flex;flex-direction:column;margin-top:.5rem}",
  "pre{margin:.5rem 0 0;padding:.6rem .75rem;white-space:pre-wrap;word-break:break-all;font-size:.85rem;" +
    "color:var(--gh-fg);background:var(--gh-page-bg);border:1px solid var(--gh-border);border-radius:.5rem}",
  "code{font-size:.9em}",
].join("")

const navigation: readonly (readonly [string, string])[] = [
  ["/", "Home"],
  ["/protected", "Protected page"],
  ["/account/profile", "Your account"],
  ["/account/sessions", "Your sessions"],
  ["/account/two-factor", "Two-factor"],
  ["/api/me", "API: /api/me"],
  ["/dev/mailbox", "Dev mailbox"],
]

/** The Content-Security-Policy of the demo's pages; `nonce` allows the one inline script of a page. */
export function demoCsp(nonce?: string): string {
  return (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; " +
    // A federated sign-out posts to the app, which redirects to the identity provider (another origin).
    "form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'" +
    // The passkey button's module script, the client module it imports from this origin, and its fetches.
    (nonce ? `; script-src 'nonce-${nonce}' 'self'; connect-src 'self'` : "")
  )
}

/** A fresh script nonce (128 bits). */
export function newNonce(): string {
  return randomBytes(16).toString("base64")
}

/**
 * Renders a demo page: the built-in pages' head and colour scheme, the navigation (the current `path` marked) and a
 * wide card holding `body` (already escaped HTML).
 *
 * @example
 * ```ts
 * sendPage(res, renderPage({ title: "Home", path: "/", body: "<p>Hello</p>" }))
 * ```
 */
export function renderPage(p: { title: string; path?: string; body: string }): string {
  const nav = navigation
    .map(([href, label]) => `<a href="${href}"${href === p.path ? ' aria-current="page"' : ""}>${escape(label)}</a>`)
    .join("")
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${p.title === "Gatehouse demo" ? "" : `${escape(p.title)} · `}Gatehouse demo</title><style>${pageCss}${demoCss}</style></head>` +
    '<body class="__next-auth-theme-auto"><div class="page demo">' +
    `<nav class="demo-nav" aria-label="Demo">${nav}</nav>` +
    `<main class="card wide"><h1>${escape(p.title)}</h1>${p.body}</main>` +
    "</div></body></html>"
  )
}

/** Sends a demo page with its security headers (`nonce`: the page's inline script, if it has one). */
export function sendPage(res: Response, html: string, options: { status?: number; nonce?: string } = {}): void {
  res
    .status(options.status ?? 200)
    .set({
      "Content-Security-Policy": demoCsp(options.nonce),
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
    })
    .type("html")
    .send(html)
}

const units: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ["year", 365 * 86400],
  ["month", 30 * 86400],
  ["week", 7 * 86400],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
]
const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" })

/**
 * A time relative to `now` in words: "just now" within 45 seconds, else "2 minutes ago", "in 10 minutes",
 * "yesterday", ... (English, whole units, rounded down).
 *
 * @example
 * ```ts
 * relativeTime(Date.now() - 120_000, Date.now()) // "2 minutes ago"
 * ```
 */
export function relativeTime(at: Date | number, now: number): string {
  const seconds = Math.round((new Date(at).valueOf() - now) / 1000)
  const size = Math.abs(seconds)
  if (size < 45) return "just now"
  for (const [unit, length] of units) {
    if (size >= length) return relative.format(Math.sign(seconds) * Math.floor(size / length), unit)
  }
  return relative.format(Math.sign(seconds), "minute")
}

/** A `<time>` element: the relative time as text, the exact time as `datetime` and tooltip. */
export function timeElement(at: Date | number, now: number): string {
  const iso = new Date(at).toISOString()
  return `<time datetime="${escape(iso)}" title="${escape(iso)}">${escape(relativeTime(at, now))}</time>`
}
