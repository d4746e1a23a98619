// The per-account credentials limit (`credentials-account`, 10 failures per 15 minutes) is keyed on the fields the
// provider names as identifiers, every one of them counted. RL-06: a junk `email=` on a username form opened a fresh
// counter per guess. RL-07: an identifier sent as a JSON array, or padded with an invisible character, escaped it.
// Through a real Express app; the attacker has many addresses (a new X-Forwarded-For per guess behind a trusted proxy),
// so only the account rule can stop the guesses.
import express from "express"
import request from "supertest"
import { Gatehouse } from "../../lib/express"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import type { CredentialInput } from "../../lib/providers/types"
import { csrfOf, type Csrf } from "../rate-limit/harness"

const SECRET = "rate-limit-identifiers-secret-0123456789abcdef"

function appWith(credentials: Record<string, CredentialInput>) {
  const tried: unknown[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    rateLimit: { enabled: true },
    providers: [
      Credentials({
        credentials,
        authorize: (fields) => {
          tried.push(fields)
          return null
        },
      }),
    ],
  }
  const gh = Gatehouse(config)
  const app = express()
  app.set("trust proxy", true)
  app.use("/auth", gh.handlers)
  return { app, tried, gh }
}

let ip = 0
/** A form POST from a new address each time. */
function guess(app: express.Express, csrf: Csrf, fields: Record<string, string>) {
  ip += 1
  return request(app)
    .post("/auth/callback/credentials")
    .set("Cookie", csrf.cookie)
    .set("X-Forwarded-For", `203.0.113.${ip % 250}, 198.51.${Math.floor(ip / 250)}.1`)
    .type("form")
    .send({ ...fields, csrfToken: csrf.token })
}

function refused(response: request.Response): boolean {
  return /error=RateLimited/.test(String(response.headers.location))
}

const usernameForm = { username: { label: "Username" }, password: { label: "Password", type: "password" } }

describe("RL-06", () => {
  it("a junk email field on a username form does not open a fresh counter: 10 of 25 guesses reach authorize", async () => {
    const { app, tried } = appWith(usernameForm)
    const csrf = await csrfOf(app)
    const answers = []
    for (let i = 0; i < 25; i += 1) {
      answers.push(await guess(app, csrf, { username: "ada", email: `junk${i}@example.com`, password: `guess-${i}` }))
    }
    expect(tried).toHaveLength(10)
    expect(answers.slice(0, 10).every((a) => /error=CredentialsSignin/.test(String(a.headers.location)))).toBe(true)
    expect(answers.slice(10).every(refused)).toBe(true)
  })

  it("the control: without the extra field the same 10", async () => {
    const { app, tried } = appWith(usernameForm)
    const csrf = await csrfOf(app)
    for (let i = 0; i < 25; i += 1) await guess(app, csrf, { username: "ada", password: `guess-${i}` })
    expect(tried).toHaveLength(10)
  })

  it("with several identifier fields every one is counted: varying the other does not help", async () => {
    const { app, tried } = appWith({ email: {}, username: {}, password: { type: "password" } })
    const csrf = await csrfOf(app)
    for (let i = 0; i < 25; i += 1) {
      await guess(app, csrf, { username: "ada", email: `other${i}@example.com`, password: `guess-${i}` })
    }
    expect(tried).toHaveLength(10)
  })

  it("a field named by autocomplete is the identifier; undeclared username/email fields are not", async () => {
    const { app, tried } = appWith({ login: { autocomplete: "username" }, password: { type: "password" } })
    const csrf = await csrfOf(app)
    for (let i = 0; i < 25; i += 1) {
      await guess(app, csrf, { login: "ada", username: `u${i}`, email: `e${i}@example.com`, password: `guess-${i}` })
    }
    expect(tried).toHaveLength(10)
  })

  it("an extra field cannot lock someone else's account: a junk email is not counted on a username form", async () => {
    const { app, tried } = appWith(usernameForm)
    const csrf = await csrfOf(app)
    for (let i = 0; i < 12; i += 1) {
      await guess(app, csrf, { username: `user${i}`, email: "victim@example.com", password: "x" })
    }
    // Counted on the email field, the 11th and 12th would have been refused.
    expect(tried).toHaveLength(12)
  })

  it("a password field declared without a type is not an identifier: one shared wrong password locks nobody", async () => {
    const { app, tried } = appWith({ email: {}, password: {} })
    const csrf = await csrfOf(app)
    for (let i = 0; i < 15; i += 1) await guess(app, csrf, { email: `user${i}@example.com`, password: "123456" })
    expect(tried).toHaveLength(15)
  })
})

describe("RL-07", () => {
  it.each([
    ["an array", ["ada"]],
    ["a number", 7],
    ["an object", { $ne: "" }],
    ["null", null],
    ["true", true],
  ])(
    "an identifier sent as %s is refused with 400 InvalidRequest before the limiter and authorize",
    async (_l, value) => {
      const { app, tried } = appWith(usernameForm)
      const csrf = await csrfOf(app)
      const response = await request(app)
        .post("/auth/callback/credentials")
        .set("Cookie", csrf.cookie)
        .send({ username: value, password: "x", csrfToken: csrf.token })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: "InvalidRequest" })
      expect(([] as string[]).concat(response.headers["set-cookie"] ?? []).join()).not.toMatch(/session-token=[^;]/)
      expect(tried).toEqual([])
    },
  )

  it("the refusal changes nothing: 10 string guesses still reach authorize after 20 array ones", async () => {
    const { app, tried } = appWith(usernameForm)
    const csrf = await csrfOf(app)
    for (let i = 0; i < 20; i += 1) {
      await request(app)
        .post("/auth/callback/credentials")
        .set("Cookie", csrf.cookie)
        .set("X-Forwarded-For", `192.0.2.${i}`)
        .send({ username: ["ada", String(i)], password: "x", csrfToken: csrf.token })
    }
    for (let i = 0; i < 11; i += 1) await guess(app, csrf, { username: "ada", password: `guess-${i}` })
    expect(tried).toHaveLength(10)
  })

  it("zero-width, soft-hyphen, fullwidth and case variants are one account", async () => {
    const { app, tried } = appWith(usernameForm)
    const csrf = await csrfOf(app)
    const variants = [
      "ada",
      "ada\u200B",
      "\u200Bada",
      "a\u200Dda",
      "ad\u00ADa",
      "\uFEFFada",
      "ＡＤＡ",
      " Ada ",
      "ada\u2028",
      "a\u034Fda",
      "ada",
      "ada\u200C",
    ]
    const answers = []
    for (const [i, username] of variants.entries()) {
      answers.push(await guess(app, csrf, { username, password: `guess-${i}` }))
    }
    expect(tried).toHaveLength(10)
    expect(answers.slice(10).every(refused)).toBe(true)
  })

  it("resetRateLimit finds the account under the same normalisation", async () => {
    const { app, tried, gh } = appWith(usernameForm)
    const csrf = await csrfOf(app)
    for (let i = 0; i < 11; i += 1) await guess(app, csrf, { username: "ada\u200B", password: `guess-${i}` })
    expect(tried).toHaveLength(10)
    expect(refused(await guess(app, csrf, { username: "ada", password: "still" }))).toBe(true)
    await gh.resetRateLimit({ identifier: "ＡＤＡ" })
    await guess(app, csrf, { username: "ada\u200B", password: "again" })
    expect(tried).toHaveLength(11)
  })
})
