// passwords.md section 14, P17, and the construction rules of section 1: adapters, ids, options, email hooks.
import express from "express"
import request from "supertest"
import { Gatehouse } from "../../lib/express"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { MissingAdapter, MissingAdapterMethods } from "../../lib/errors"
import Password from "../../lib/providers/password"
import Nodemailer from "../../lib/providers/nodemailer"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter } from "../../lib/storage/adapter"

const hooks = {
  sendVerificationRequest: () => undefined,
  sendPasswordReset: () => undefined,
  sendAccountExists: () => undefined,
}
const build = (config: Partial<AuthConfig>) =>
  Gatehouse({
    secret: "s".repeat(40),
    trustHost: true,
    logger: { error() {}, warn() {}, debug() {} },
    ...config,
  } as AuthConfig)

/** An Auth.js-shaped adapter: the memory adapter without the password methods. */
function authjsAdapter(): Adapter {
  const { getPasswordAccount: _g, setPasswordHash: _s, ...rest } = MemoryAdapter()
  return rest
}

describe("P17 adapters without the password methods, and no adapter", () => {
  it("throws MissingAdapterMethods naming getPasswordAccount and setPasswordHash", () => {
    let thrown: unknown
    try {
      build({ adapter: authjsAdapter(), providers: [Password(hooks)] })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(MissingAdapterMethods)
    expect((thrown as Error).message).toContain("getPasswordAccount, setPasswordHash")
    expect((thrown as Error).message).toContain("the Password provider needs them")
  })

  it("throws MissingAdapter without an adapter", () => {
    expect(() => build({ providers: [Password(hooks)] })).toThrow(MissingAdapter)
    expect(() => build({ providers: [Password(hooks)] })).toThrow("the Password provider stores users: set `adapter`")
  })
})

describe("construction", () => {
  const adapter = MemoryAdapter()
  it("refuses an id option, a second Password provider, and lengths out of range", () => {
    expect(() => Password({ id: "pw" } as never)).toThrow("always `password`")
    expect(() => build({ adapter, providers: [Password(hooks), Password(hooks)] })).toThrow("Duplicate provider id")
    for (const options of [
      { minLength: 7 },
      { maxLength: 63 },
      { maxLength: 1025 },
      { minLength: 100, maxLength: 64 },
    ]) {
      expect(() => build({ adapter, providers: [Password({ ...hooks, ...options })] })).toThrow("Password:")
    }
    expect(() => build({ adapter, providers: [Password({ ...hooks, scrypt: { ln: 23 } })] })).toThrow("scrypt")
    expect(() => build({ adapter, providers: [Password({ ...hooks, hash: async (p) => p })] })).toThrow("`verify`")
  })

  it("names the missing email hooks, and takes a Nodemailer provider's server", () => {
    expect(() => build({ adapter, providers: [Password({ sendPasswordReset: () => undefined })] })).toThrow(
      "sendVerificationRequest, sendAccountExists",
    )
    expect(() =>
      build({ adapter, providers: [Password(), Nodemailer({ server: "smtp://127.0.0.1:1", from: "a@b.test" })] }),
    ).not.toThrow()
  })

  it("accepts plain-http breach endpoints only on loopback", () => {
    const withEndpoint = (endpoint: string) => () =>
      build({ adapter, providers: [Password({ ...hooks, breachCheck: { endpoint } })] })
    expect(withEndpoint("http://127.0.0.1:9/range/")).not.toThrow()
    expect(withEndpoint("http://pwned.example/range/")).toThrow("breachCheck.endpoint")
  })

  it("warns once about weak scrypt parameters", () => {
    const warn = jest.fn()
    build({
      adapter,
      logger: { error() {}, warn, debug() {} },
      providers: [Password({ ...hooks, scrypt: { ln: 12 } })],
    } as Partial<AuthConfig>)
    expect(warn).toHaveBeenCalledWith("password-hash-weak", expect.any(String))
  })

  it("without the provider, the routes answer 400 and the server functions name the missing option", async () => {
    const instance = build({ adapter, providers: [] })
    const app = express()
    app.use("/auth", instance.handlers)
    app.post("/fn", (req, res) => {
      instance.signUp(req, res, { email: "a@b.test", password: "x", csrf: false }).then(
        () => res.json({ ok: true }),
        (error: Error) => res.status(500).json({ message: error.message, type: (error as { type?: string }).type }),
      )
    })
    const thrown = await request(app).post("/fn")
    expect(thrown.body.type).toBe("InvalidConfig")
    expect(thrown.body.message).toContain("add Password() to `providers`")
    const route = await request(app).post("/auth/signup").type("form").send({ email: "a@b.test" })
    expect(route.status).toBe(400)
    expect(route.text).toContain("Bad request.")
  })
})
