// Rules of passwords.md sections 2.6, 8.2 and 10: capped sign-in input, email failures only logged, and the
// per-address email limit that runs silently with the limiter off.
import { passwordApp, seedUser, type PasswordApp } from "./harness"

let app: PasswordApp
afterEach(async () => app.close())

describe("section 2.6: sign-in input is capped", () => {
  it("a password longer than 4 × maxLength is the one failure answer", async () => {
    app = await passwordApp()
    await seedUser(app, "cap@example.test", "cap password 1")
    const long = await app.browser().signIn("cap@example.test", "x".repeat(4 * 128 + 1))
    expect(long.headers.location).toContain("error=CredentialsSignin&code=credentials")
  })
})

describe("section 8.2: a throwing email hook", () => {
  it("is logged without the address or token, and the answer does not change", async () => {
    const errors: Error[] = []
    app = await passwordApp({
      password: {
        sendPasswordReset: () => {
          throw new Error("SMTP down")
        },
      },
      config: { logger: { error: (e: Error) => void errors.push(e), warn() {}, debug() {} } },
    })
    await seedUser(app, "mailfail@example.test", "mail password 1")
    const browser = app.browser()
    const answer = await browser.form("/auth/forgot-password", { email: "mailfail@example.test" })
    expect(answer.headers.location).toBe(`${browser.origin}/auth/verify-request?provider=password&type=reset`)
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 5))
    expect(errors.map((e) => e.message)).toEqual(["password-email-failed"])
    expect(errors[0]!.message).not.toContain("mailfail@example.test")
  })
})

describe("section 10: password-email-address with the limiter off", () => {
  it("answers the fourth request as usual and sends nothing", async () => {
    app = await passwordApp()
    const browser = app.browser()
    const answers = []
    for (let i = 0; i < 4; i++) {
      answers.push((await browser.form("/auth/resend-verification", { email: "quiet@example.test" })).headers.location)
    }
    await seedUser(app, "quiet2@example.test", "quiet password 1", { verified: false })
    for (let i = 0; i < 3; i++) await browser.form("/auth/resend-verification", { email: "quiet2@example.test" })
    const fourth = await browser.form("/auth/resend-verification", { email: "quiet2@example.test" })
    expect(new Set([...answers, fourth.headers.location]).size).toBe(1)
    await new Promise((r) => setTimeout(r, 50))
    // The sign-up mail and two resends: the third resend is the fourth email of the window.
    expect(app.mail.verify.filter((m) => m.identifier === "quiet2@example.test")).toHaveLength(3)
  })
})
