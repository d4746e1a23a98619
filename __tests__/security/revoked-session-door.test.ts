// A session that was ended (revoked JWT, deleted database row) can do nothing: every reader of "who is signed in"
// goes through the one door, so a copied cookie cannot list or add passkeys, manage sessions, refresh tokens or name
// its former user at sign-out. One test per path, per strategy and per way the session was ended.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { NotFound } from "../../lib/errors"
import { Gatehouse } from "../../lib/web"
import type { JWT } from "../../lib/core/kernel/types"
import { Client, newAuthenticator, passkeyConfig, RP_ORIGIN, SESSION_COOKIE } from "../core/webauthn/harness"
import { Browser as EmailBrowser, emailConfig } from "../core/email/harness"
import Email from "../../lib/providers/email"
import type { SendVerificationRequestParams } from "../../lib/providers/types"

type Strategy = "jwt" | "database"
type Ending = "revokeUserSessions" | "revokeAllSessions" | "revokeSession"

const cases: [Strategy, Ending][] = [
  ["jwt", "revokeUserSessions"],
  ["jwt", "revokeAllSessions"],
  ["jwt", "revokeSession"],
  ["database", "revokeUserSessions"],
  ["database", "revokeAllSessions"],
  ["database", "revokeSession"],
]

const requestWith = (cookies: Record<string, string>, path = "/account"): Request =>
  new Request(`${RP_ORIGIN}${path}`, {
    headers: {
      cookie: Object.entries(cookies)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
        .join("; "),
    },
  })

/** A user with one passkey, signed in on a device; `stolen` is a copy of that device's cookies. */
async function victim(strategy: Strategy) {
  const adapter = MemoryAdapter()
  const signOuts: { token?: JWT | null; session?: unknown }[] = []
  const { config } = passkeyConfig(adapter, {
    config: {
      session: { strategy },
      features: { sessionRoutes: true, passkeyRoutes: true },
      events: { signOut: (message) => void signOuts.push(message as { token?: JWT | null }) },
    },
  })
  const web = Gatehouse(config)
  const device = new Client(config)
  const passkey = newAuthenticator()
  const registered = await device.register(passkey, "email=victim%40example.com")
  expect(registered.status).toBe(302)
  const user = await adapter.getUserByEmail("victim@example.com")
  expect(user).not.toBeNull()
  const stolen = { ...device.cookies }
  expect(stolen[SESSION_COOKIE]).toBeTruthy()
  expect(await web.auth(requestWith(stolen))).not.toBeNull()
  return { adapter, config, web, device, passkey, userId: user!.id, stolen, signOuts }
}

/** Ends the session the stolen cookie belongs to, the way `ending` does. */
async function end(v: Awaited<ReturnType<typeof victim>>, ending: Ending): Promise<void> {
  const own = requestWith(v.device.cookies)
  if (ending === "revokeUserSessions") {
    await v.web.revokeUserSessions(v.userId)
  } else if (ending === "revokeAllSessions") {
    expect(await v.web.revokeAllSessions(own)).toBe(true)
  } else {
    const [current] = (await v.web.listSessions(own)) ?? []
    expect(current?.current).toBe(true)
    expect(await v.web.revokeSession(own, current!.id)).toBe(true)
  }
  expect(await v.web.auth(requestWith(v.stolen))).toBeNull()
}

describe.each(cases)("%s session ended by %s: the copied cookie", (strategy, ending) => {
  it("lists no passkeys, renames and deletes none (NotFound), and the user's passkey stays", async () => {
    const v = await victim(strategy)
    await end(v, ending)
    const stolen = requestWith(v.stolen)
    expect(await v.web.listAuthenticators(stolen)).toBeNull()
    await expect(v.web.renameAuthenticator(stolen, v.passkey.id, "mine now")).rejects.toBeInstanceOf(NotFound)
    await expect(v.web.deleteAuthenticator(stolen, v.passkey.id)).rejects.toBeInstanceOf(NotFound)
    const stored = await v.adapter.listAuthenticatorsByUserId(v.userId)
    expect(stored.map((a) => [a.name ?? null])).toEqual([[stored[0]!.name ?? null]])
    expect(stored[0]!.name).not.toBe("mine now")
  })

  it("GET /auth/passkeys answers null, and POST /auth/passkeys/delete changes nothing", async () => {
    const v = await victim(strategy)
    await end(v, ending)
    const thief = new Client(v.config)
    thief.cookies = { ...v.stolen }
    const listed = await thief.request("/auth/passkeys")
    expect(await listed.json()).toBeNull()
    const csrfToken = await thief.csrfToken()
    const deleted = await thief.request("/auth/passkeys/delete", { body: { csrfToken, id: v.passkey.id } })
    expect(deleted.status).toBe(404)
    expect(await v.adapter.listAuthenticatorsByUserId(v.userId)).toHaveLength(1)
  })

  it("gets no registration options for the user, and cannot attach a new passkey to them", async () => {
    const v = await victim(strategy)
    await end(v, ending)
    const thief = new Client(v.config)
    thief.cookies = { ...v.stolen }
    const options = await thief.options("action=register")
    // Without a signed-in user and without an email there is no one to register for.
    expect(options.body.options?.user).toBeUndefined()
    expect(options.status).not.toBe(200)
    expect(await v.adapter.listAuthenticatorsByUserId(v.userId)).toHaveLength(1)
  })

  it("cannot finish a passkey registration that was started before the session ended", async () => {
    const v = await victim(strategy)
    const thief = new Client(v.config)
    thief.cookies = { ...v.stolen }
    const started = await thief.options("action=register")
    expect(started.status).toBe(200)
    const options = started.body.options as { challenge: string; rp: { id: string }; user: { id: string } }
    await end(v, ending)
    const answer = await thief.callback("register", newAuthenticator().register(options))
    expect(answer.status).toBe(302)
    expect(answer.headers.get("location")).toContain("error=")
    expect(await v.adapter.listAuthenticatorsByUserId(v.userId)).toHaveLength(1)
  })

  it("authentication options list none of the user's passkeys (a signed-in request would get them)", async () => {
    const v = await victim(strategy)
    const live = new Client(v.config)
    live.cookies = { ...v.stolen }
    const before = await live.options("action=authenticate")
    const allowed = (body: typeof before.body) =>
      ((body.options as { allowCredentials?: { id: string }[] }).allowCredentials ?? []).map((c) => c.id)
    expect(allowed(before.body)).toEqual([v.passkey.id])
    await end(v, ending)
    const thief = new Client(v.config)
    thief.cookies = { ...v.stolen }
    const after = await thief.options("action=authenticate")
    expect(after.status).toBe(200)
    expect(allowed(after.body)).toEqual([])
  })

  it("lists and revokes no sessions, is not fresh, and has no access token", async () => {
    const v = await victim(strategy)
    await end(v, ending)
    const stolen = requestWith(v.stolen)
    expect(await v.web.listSessions(stolen)).toBeNull()
    expect(await v.web.revokeSession(stolen, "jwt")).toBe(false)
    expect(await v.web.revokeOtherSessions(stolen)).toBe(false)
    expect(await v.web.revokeAllSessions(stolen)).toBe(false)
    expect(await v.web.isSessionFresh(stolen)).toBe(false)
    expect(await v.web.getAccessToken(stolen)).toBeNull()
    const thief = new Client(v.config)
    thief.cookies = { ...v.stolen }
    expect(await (await thief.request("/auth/sessions")).json()).toBeNull()
  })

  it("signs out no one: the signOut event names no user and the cookie is cleared", async () => {
    const v = await victim(strategy)
    await end(v, ending)
    v.signOuts.length = 0
    const thief = new Client(v.config)
    thief.cookies = { ...v.stolen }
    const csrfToken = await thief.csrfToken()
    const out = await thief.request("/auth/signout", { body: { csrfToken } })
    expect(out.status).toBe(302)
    expect(thief.cookies[SESSION_COOKIE]).toBeUndefined()
    // A JWT that was ended names no one; a database row that was deleted is not there to name.
    expect(v.signOuts).toEqual([strategy === "jwt" ? { token: null } : { session: null }])
  })
})

describe("the door is the only reader", () => {
  it("a live session still does all of it (control: the tests above can pass only because the session ended)", async () => {
    for (const strategy of ["jwt", "database"] as const) {
      const v = await victim(strategy)
      const own = requestWith(v.stolen)
      expect(await v.web.listAuthenticators(own)).toHaveLength(1)
      expect((await v.web.listSessions(own))?.length).toBe(1)
      expect(await v.web.isSessionFresh(own)).toBe(true)
      const thief = new Client(v.config)
      thief.cookies = { ...v.stolen }
      expect((await thief.options("action=register")).status).toBe(200)
    }
  })
})

describe.each(["jwt", "database"] as const)("an email link opened with an ended %s session", (strategy) => {
  it("signs in the address's own user and changes nothing of the ended session's user", async () => {
    const sent: SendVerificationRequestParams[] = []
    const provider = Email({ sendVerificationRequest: (params) => void sent.push(params) })
    const { config, adapter } = emailConfig([provider], { session: { strategy } })
    const web = Gatehouse(config)
    const browser = new EmailBrowser(config)
    await browser.requestLink("ada@example.test", { provider: "email" })
    await browser.openLink(sent[0]!.url)
    const ada = (await adapter.getUserByEmail("ada@example.test"))!
    expect((await browser.session())?.user?.email).toBe("ada@example.test")
    // Ada signs out everywhere; the browser keeps its (now ended) cookie and opens Bea's link.
    await web.revokeUserSessions(ada.id)
    expect(await browser.session()).toBeNull()
    await browser.requestLink("bea@example.test", { provider: "email" })
    await browser.openLink(sent[1]!.url)
    expect((await browser.session())?.user?.email).toBe("bea@example.test")
    const bea = (await adapter.getUserByEmail("bea@example.test"))!
    expect(bea.id).not.toBe(ada.id)
    // Ada's account still stands on its own: the ended session linked nothing to Bea, nor Bea to Ada.
    expect(await adapter.getUserByEmail("ada@example.test")).toMatchObject({ id: ada.id })
  })
})
