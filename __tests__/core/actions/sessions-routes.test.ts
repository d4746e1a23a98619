// The optional session routes (features.sessionRoutes): GET /auth/sessions and POST /auth/sessions/revoke, with CSRF,
// 404 for ids the user does not own, and the routes absent by default.
import { Auth } from "../../../lib/core"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import { credentialsConfig, csrf, makeRequest, setCookies, signIn } from "../helpers"

const NAME = "__Secure-authjs.session-token"

function setup(sessionRoutes = true) {
  const adapter = MemoryAdapter()
  const signOut = jest.fn()
  const config = credentialsConfig({
    adapter,
    session: { strategy: "database" },
    features: { sessionRoutes },
    events: { signOut },
  })
  return { adapter, config, signOut }
}

async function list(config: ReturnType<typeof setup>["config"], cookies: Record<string, string>) {
  const response = await Auth(makeRequest("/auth/sessions", { cookies }), config)
  return { response, body: (await response.json()) as Array<{ id: string; current: boolean }> | null }
}

async function revoke(config: ReturnType<typeof setup>["config"], cookies: Record<string, string>, id: string) {
  const pair = await csrf(config)
  return Auth(
    makeRequest("/auth/sessions/revoke", {
      cookies: { ...cookies, ...pair.cookies },
      body: { csrfToken: pair.token, id },
    }),
    config,
  )
}

describe("session routes", () => {
  it("are absent unless features.sessionRoutes is on", async () => {
    const { config } = setup(false)
    const cookies = await signIn(config)
    const response = await Auth(makeRequest("/auth/sessions", { cookies }), config)
    expect(response.status).toBe(400)
    expect(await response.text()).not.toContain("current")
  })

  it("GET /sessions lists the user's sessions without tokens; null without a session", async () => {
    const { config } = setup()
    const a = await signIn(config)
    const b = await signIn(config)
    const { response, body } = await list(config, a)
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toContain("no-store")
    expect(body).toHaveLength(2)
    expect(body!.filter((s) => s.current)).toHaveLength(1)
    const text = JSON.stringify(body)
    expect(text).not.toContain(a[NAME]!)
    expect(text).not.toContain(b[NAME]!)
    expect((await list(config, {})).body).toBeNull()
  })

  it("POST /sessions/revoke: another id → 200 and gone; unknown → 404; without CSRF → 403; others, all", async () => {
    const { config, adapter, signOut } = setup()
    const a = await signIn(config)
    const b = await signIn(config)
    const c = await signIn(config)
    const userId = "user-1"
    const { body } = await list(config, a)
    const other = body!.find((s) => !s.current)!

    const unknown = await revoke(config, a, "B".repeat(22))
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ error: "NotFound" })
    expect(await adapter.listSessionsByUserId(userId)).toHaveLength(3)

    const noCsrf = await Auth(makeRequest("/auth/sessions/revoke", { cookies: a, body: { id: other.id } }), config)
    expect(noCsrf.status).toBe(403)
    expect(await adapter.listSessionsByUserId(userId)).toHaveLength(3)

    const one = await revoke(config, a, other.id)
    expect(one.status).toBe(200)
    expect(await one.json()).toEqual({ ok: true })
    expect(await adapter.listSessionsByUserId(userId)).toHaveLength(2)

    const others = await revoke(config, a, "others")
    expect(await others.json()).toEqual({ ok: true })
    expect(await adapter.listSessionsByUserId(userId)).toHaveLength(1)
    for (const jar of [b, c])
      expect(await (await Auth(makeRequest("/auth/session", { cookies: jar }), config)).json()).toBeNull()

    const all = await revoke(config, a, "all")
    expect(await all.json()).toEqual({ ok: true })
    expect(setCookies(all).get(NAME)).toMatchObject({ value: "", maxAge: 0 })
    expect(await adapter.listSessionsByUserId(userId)).toHaveLength(0)
    expect(signOut).toHaveBeenCalledTimes(3)

    const anonymous = await revoke(config, {}, "all")
    expect(anonymous.status).toBe(401)
  })
})
