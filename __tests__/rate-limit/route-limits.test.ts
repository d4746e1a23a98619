// The rules of a route row that apply to one request (lib/core/pipeline/rate-limit.ts): the router awaits the limiter
// only when this list is not empty, so a rule left out here would never be counted.
import { routeLimits } from "../../lib/core/pipeline/rate-limit"
import type { RequestContext } from "../../lib/core/kernel/context"

function ctxOf(
  action: string,
  method: "GET" | "POST",
  provider?: { type: string; security?: { par?: boolean } },
  providerId?: string,
): RequestContext {
  return { request: { action, method, providerId }, provider } as unknown as RequestContext
}

describe("routeLimits", () => {
  it("a session read counts against nothing; a session update against its own rule", () => {
    expect(routeLimits(ctxOf("session", "GET"))).toEqual([])
    expect(routeLimits(ctxOf("session", "POST"))).toEqual(["session-update"])
  })

  it("a callback POST counts by its provider's type", () => {
    expect(routeLimits(ctxOf("callback", "POST", { type: "credentials" }))).toEqual(["credentials-ip"])
    expect(routeLimits(ctxOf("callback", "POST", { type: "webauthn" }))).toEqual(["webauthn-verify"])
    expect(routeLimits(ctxOf("callback", "POST", { type: "password" }))).toEqual(["credentials-ip"])
    expect(routeLimits(ctxOf("callback", "POST", { type: "oauth" }))).toEqual([])
    expect(routeLimits(ctxOf("callback", "GET", { type: "credentials" }))).toEqual([])
  })

  it("a sign-in POST counts the PAR rule only for a provider that pushes", () => {
    expect(routeLimits(ctxOf("signin", "POST", { type: "oidc", security: { par: true } }))).toEqual(["oauth-par-ip"])
    expect(routeLimits(ctxOf("signin", "POST", { type: "oidc" }))).toEqual([])
    expect(routeLimits(ctxOf("signin", "POST", { type: "email" }))).toEqual(["email-send-ip"])
  })

  it("account link POSTs count by segment; GET passkey options count on GET", () => {
    expect(routeLimits(ctxOf("account", "POST", undefined, "verify-email"))).toEqual(["account-link-confirm"])
    expect(routeLimits(ctxOf("account", "POST", undefined, "profile"))).toEqual([])
    expect(routeLimits(ctxOf("webauthn-options", "GET", { type: "webauthn" }))).toEqual(["webauthn-options"])
  })
})
