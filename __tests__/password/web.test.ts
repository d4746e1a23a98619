// The Password provider in the Fetch flavour (`gatehouse-auth/web`): the routes through `handle`, and the server
// functions `(request, input)` with their cookies queued for `applyCookies`.
import { Gatehouse } from "../../lib/web"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Password from "../../lib/providers/password"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"

const APP = "http://localhost:3000"

describe("the Fetch flavour", () => {
  it("serves sign-up and sign-in, and runs signUp/changePassword as server functions", async () => {
    const mails: Array<{ url: string; identifier: string }> = []
    const adapter = MemoryAdapter()
    const gatehouse = Gatehouse({
      secret: "web-password-secret-0123456789abcdef",
      trustHost: true,
      basePath: "/auth",
      adapter,
      session: { strategy: "jwt" },
      logger: { error() {}, warn() {}, debug() {} },
      providers: [
        Password({
          sendVerificationRequest: (p) => void mails.push(p),
          sendPasswordReset: () => undefined,
          sendAccountExists: () => undefined,
          requireEmailVerification: false,
          autoSignIn: false,
          scrypt: { ln: 12, r: 8, p: 1 },
        }),
      ],
    } as AuthConfig)
    const csrf = await gatehouse.handle(new Request(`${APP}/auth/csrf`))
    const cookie = csrf!.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ")
    const { csrfToken } = (await csrf!.json()) as { csrfToken: string }

    const signUp = await gatehouse.handle(
      new Request(`${APP}/auth/signup`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ csrfToken, email: "web@example.test", password: "web password 1" }),
      }),
    )
    expect(signUp!.status).toBe(200)
    expect(await signUp!.json()).toEqual({ ok: true })

    // A same-origin POST of the app calls the server function.
    const appRequest = (body: Record<string, unknown> = {}, extra: Record<string, string> = {}) =>
      new Request(`${APP}/account`, {
        method: "POST",
        headers: { origin: APP, "content-type": "application/json", ...extra },
        body: JSON.stringify(body),
      })
    await expect(
      gatehouse.signUp(appRequest(), { email: "fn@example.test", password: "web password 2" }),
    ).resolves.toEqual({ ok: true })
    expect(await adapter.getUserByEmail("fn@example.test")).not.toBeNull()
    await expect(
      gatehouse.signUp(appRequest({}, { origin: "https://evil.example" }), {
        email: "evil@example.test",
        password: "web password 3",
      }),
    ).rejects.toMatchObject({ type: "MissingCSRF" })
    expect(await adapter.getUserByEmail("evil@example.test")).toBeNull()

    const signIn = await gatehouse.handle(
      new Request(`${APP}/auth/callback/password`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ csrfToken, email: "web@example.test", password: "web password 1" }),
      }),
    )
    expect(signIn!.status).toBe(302)
    const session = signIn!.headers
      .getSetCookie()
      .find((c) => c.startsWith("authjs.session-token="))!
      .split(";")[0]!
    const changing = appRequest({}, { cookie: session })
    await expect(
      gatehouse.changePassword(changing, { currentPassword: "web password 1", newPassword: "web password 4" }),
    ).resolves.toEqual({ ok: true })
    // The re-issued session cookie is queued for the app's response.
    const answered = gatehouse.applyCookies(changing, new Response("ok"))
    expect(answered.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true)
    await expect(
      gatehouse.changePassword(appRequest(), { currentPassword: "x", newPassword: "web password 5" }),
    ).rejects.toMatchObject({ type: "SessionRequired", status: 401 })
  })
})
