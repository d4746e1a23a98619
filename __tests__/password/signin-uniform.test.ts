// passwords.md section 14, P3: a wrong password, an unknown address and a user without a password answer alike and
// cost alike (the dummy hash).
import type request from "supertest"
import Credentials from "../../lib/providers/credentials"
import { passwordApp, seedUser, type PasswordApp } from "./harness"

let app: PasswordApp
afterEach(async () => app.close())

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Status, headers but Date/Set-Cookie/connection, body, and the Set-Cookie names with their attributes. */
function shapeOf(response: request.Response) {
  const headers = { ...response.headers }
  for (const name of ["date", "set-cookie", "connection", "keep-alive"]) delete headers[name]
  const cookies = ((response.headers["set-cookie"] as unknown as string[] | undefined) ?? []).map((line) =>
    line
      .split(";")
      .map((part, i) => (i === 0 ? part.split("=")[0] : part.trim()))
      .join(";"),
  )
  return { status: response.status, headers, body: response.text, cookies }
}

describe("P3 wrong password vs unknown address vs a user without a password", () => {
  it("gives identical answers in comparable time", async () => {
    app = await passwordApp({
      extraProviders: [Credentials({ credentials: { id: {} }, authorize: () => null })],
    })
    await seedUser(app, "known@example.test", "the right password")
    await app.adapter.createUser({ id: "oauth-only", email: "oauth@example.test", emailVerified: new Date() })
    const tries: Record<"wrong" | "unknown" | "none", number[]> = { wrong: [], unknown: [], none: [] }
    const shapes: Record<string, unknown> = {}
    const attempt = async (kind: keyof typeof tries, email: string) => {
      const browser = app.browser()
      const csrfToken = await browser.csrf()
      const started = process.hrtime.bigint()
      const response = await browser.form("/auth/callback/password", {
        csrfToken,
        email,
        password: "a wrong password",
      })
      tries[kind].push(Number(process.hrtime.bigint() - started) / 1e6)
      shapes[kind] = shapeOf(response)
      expect(response.headers.location).toMatch(/\/auth\/signin\?error=CredentialsSignin&code=credentials$/)
    }
    for (let i = 0; i < 20; i++) {
      await attempt("wrong", "known@example.test")
      await attempt("unknown", `nobody-${i}@example.test`)
      if (i % 2 === 0) await attempt("none", "oauth@example.test")
    }
    expect(shapes.unknown).toEqual(shapes.wrong)
    expect(shapes.none).toEqual(shapes.wrong)
    const reference = median(tries.wrong)
    const tolerance = Math.max(25, reference / 2)
    expect(Math.abs(median(tries.unknown) - reference)).toBeLessThanOrEqual(tolerance)
    expect(Math.abs(median(tries.none) - reference)).toBeLessThanOrEqual(tolerance)
  })
})
