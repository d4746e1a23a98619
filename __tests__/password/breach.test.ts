// passwords.md section 14, P19: the breached-password check against a local server speaking the range protocol.
import { createHash } from "node:crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"
import { passwordApp, type PasswordApp } from "./harness"

const LISTED = "password123456"
const sha1 = (value: string) => createHash("sha1").update(value).digest("hex").toUpperCase()

let range: Server
let seen: Array<{ url: string; padding?: string; agent?: string }>
let hang = false
beforeAll(async () => {
  range = createServer((req: IncomingMessage, res) => {
    seen.push({ url: req.url!, padding: req.headers["add-padding"] as string, agent: req.headers["user-agent"] })
    if (hang) return // never answers
    const prefix = req.url!.split("/").pop()!
    const listed = sha1(LISTED)
    const lines = ["0018A45C4D1DEF81644B54AB7F969B88D65:0", "00D4F6E8FA6EECAD2A3AA415EEC418D38EC:2"]
    if (listed.startsWith(prefix)) lines.push(`${listed.slice(5)}:42`)
    res.writeHead(200, { "content-type": "text/plain" }).end(lines.join("\r\n"))
  })
  await new Promise<void>((resolve) => range.listen(0, "127.0.0.1", resolve))
})
afterAll(async () => {
  range.closeAllConnections()
  await new Promise((resolve) => range.close(resolve))
})
beforeEach(() => {
  seen = []
  hang = false
})

let app: PasswordApp
afterEach(async () => app.close())
const endpoint = () => `http://127.0.0.1:${(range.address() as { port: number }).port}/range/`

describe("P19 breach check", () => {
  it("refuses a listed password; only 5 hex characters leave, with Add-Padding", async () => {
    app = await passwordApp({ password: { breachCheck: { endpoint: endpoint(), timeout: 1000 } } })
    const listed = await app.browser().json("/auth/signup", { email: "a@example.test", password: LISTED })
    expect(listed.status).toBe(400)
    expect(listed.body).toEqual({ error: "PasswordPolicy", code: "breached" })
    expect(await app.adapter.getUserByEmail("a@example.test")).toBeNull()
    expect(seen).toEqual([{ url: `/range/${sha1(LISTED).slice(0, 5)}`, padding: "true", agent: "gatehouse-auth" }])
    expect(seen[0]!.url).toMatch(/^\/range\/[0-9A-F]{5}$/)
    const clean = await app.browser().json("/auth/signup", { email: "b@example.test", password: "not listed anywhere" })
    expect(clean.body).toEqual({ ok: true })
  })

  it("accepts the password when the server hangs (fail-open, timeout 300 ms)", async () => {
    hang = true
    app = await passwordApp({ password: { breachCheck: { endpoint: endpoint(), timeout: 300 } } })
    const started = Date.now()
    const response = await app.browser().json("/auth/signup", { email: "c@example.test", password: LISTED })
    expect(response.body).toEqual({ ok: true })
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it("refuses with breach_check_failed (503) when failing closed", async () => {
    hang = true
    app = await passwordApp({ password: { breachCheck: { endpoint: endpoint(), timeout: 300, failClosed: true } } })
    const response = await app.browser().json("/auth/signup", { email: "d@example.test", password: "any password 1" })
    expect(response.status).toBe(503)
    expect(response.body).toEqual({ error: "PasswordPolicy", code: "breach_check_failed" })
  })

  it("the function form refuses what it flags", async () => {
    app = await passwordApp({ password: { breachCheck: (password) => password.includes("flagged") } })
    const flagged = await app.browser().json("/auth/signup", { email: "e@example.test", password: "flagged password" })
    expect(flagged.body).toEqual({ error: "PasswordPolicy", code: "breached" })
    const fine = await app.browser().json("/auth/signup", { email: "f@example.test", password: "fine password" })
    expect(fine.body).toEqual({ ok: true })
  })
})
