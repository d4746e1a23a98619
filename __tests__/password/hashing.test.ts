// passwords.md section 14, P10, P11, P12: the stored hash, transparent re-hash, imported bcrypt hashes; and the
// hasher's own rules (PHC parsing, parameter ranges, hashPassword/verifyPassword).
import { scryptSync } from "node:crypto"
import { hashPassword, verifyPassword } from "../../lib/providers/password"
import { parseScrypt, scryptVerify } from "../../lib/password/hash"
import { passwordApp, seedUser, type PasswordApp } from "./harness"

let app: PasswordApp | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

const PHC_DEFAULT = /^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/

describe("P10 the stored hash with the default parameters", () => {
  it("is a PHC scrypt string any conforming reader verifies; two users get different salts", async () => {
    app = await passwordApp({ password: { scrypt: undefined } })
    const password = "ｐａｓｓ word 10"
    const a = await seedUser(app, "a@example.test", password)
    const b = await seedUser(app, "b@example.test", password)
    const row = await app.adapter.getPasswordAccount(a)
    expect(row).toMatchObject({ type: "password", provider: "password", providerAccountId: a, userId: a })
    expect(row!.passwordHash).toMatch(PHC_DEFAULT)
    expect(row!.passwordHash).not.toContain("pass")
    const [, , , salt, key] = row!.passwordHash.split("$")
    const derived = scryptSync(password.normalize("NFKC"), Buffer.from(salt!, "base64"), 32, {
      N: 2 ** 17,
      r: 8,
      p: 1,
      maxmem: 256 * 2 ** 17 * 8,
    })
    expect(derived.toString("base64").replace(/=+$/, "")).toBe(key)
    const other = await app.adapter.getPasswordAccount(b)
    expect(other!.passwordHash.split("$")[3]).not.toBe(salt)
  })
})

describe("P11 transparent re-hash", () => {
  it("replaces an ln=14 hash with ln=15 at sign-in, without a passwordChanged event", async () => {
    app = await passwordApp({ password: { scrypt: { ln: 15, r: 8, p: 1 } } })
    const id = await seedUser(app, "c@example.test", "rehash me please")
    await app.adapter.setPasswordHash(id, await hashPassword("rehash me please", { scrypt: { ln: 14 } }))
    expect((await app.adapter.getPasswordAccount(id))!.passwordHash).toMatch(/^\$scrypt\$ln=14,/)
    expect((await app.browser().signIn("c@example.test", "rehash me please")).headers.location).not.toContain("error")
    const upgraded = (await app.adapter.getPasswordAccount(id))!.passwordHash
    expect(upgraded).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/)
    await expect(verifyPassword("rehash me please", upgraded)).resolves.toBe(true)
    expect((await app.browser().signIn("c@example.test", "rehash me please")).headers.location).not.toContain("error")
    expect(app.events.passwordChanged).not.toHaveBeenCalled()
  })
})

describe("P12 imported bcrypt hashes", () => {
  // A bcrypt hash of "hunter2 imported" (cost 10), as Passport-local or an Auth.js credentials app stored it.
  const BCRYPT = "$2b$10$abcdefghijklmnopqrstuu8Ov7Y9QJmZ0rT7b0m2x7Yw0i6Gd8cJq"

  it("never matches without a verify hook", async () => {
    app = await passwordApp()
    const id = await seedUser(app, "d@example.test", "whatever password")
    await app.adapter.setPasswordHash(id, BCRYPT)
    const response = await app.browser().signIn("d@example.test", "hunter2 imported")
    expect(response.headers.location).toContain("error=CredentialsSignin")
  })

  it("signs in through the hook, then stores scrypt; later sign-ins need no hook", async () => {
    const seen: Array<{ raw: string; hash: string; password: string }> = []
    let accept = true
    app = await passwordApp({
      password: {
        verify: async (input) => {
          seen.push(input)
          return accept && input.hash === BCRYPT && input.raw === "hunter2 imported"
        },
      },
    })
    const id = await seedUser(app, "e@example.test", "whatever password")
    await app.adapter.setPasswordHash(id, BCRYPT)
    expect((await app.browser().signIn("e@example.test", "hunter2 imported")).headers.location).not.toContain("error")
    expect(seen).toEqual([{ raw: "hunter2 imported", hash: BCRYPT, password: "hunter2 imported" }])
    expect((await app.adapter.getPasswordAccount(id))!.passwordHash).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$/)
    accept = false
    expect((await app.browser().signIn("e@example.test", "hunter2 imported")).headers.location).not.toContain("error")
  })
})

describe("the built-in hasher", () => {
  it("parses strictly and refuses out-of-range stored parameters without computing", async () => {
    const good = await hashPassword("strict parsing", { scrypt: { ln: 10 } })
    expect(parseScrypt(good)).not.toBeNull()
    await expect(scryptVerify("strict parsing", good)).resolves.toBe(true)
    await expect(scryptVerify("strict parsing!", good)).resolves.toBe(false)
    for (const bad of [
      good.replace("ln=10", "ln=30"),
      good.replace("ln=10", "ln=9"),
      good.replace("r=8", "r=64"),
      `${good}=`,
      good.replace("$scrypt$", "$scrypt$v=1$"),
      good.slice(0, -1),
    ]) {
      const started = process.hrtime.bigint()
      await expect(scryptVerify("strict parsing", bad)).resolves.toBe(false)
      // No 2^30 scrypt was attempted (that would take seconds and gigabytes).
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500)
    }
  })

  it("hashPassword refuses an empty password; verifyPassword refuses other formats", async () => {
    await expect(hashPassword("")).rejects.toThrow()
    await expect(verifyPassword("x", "$2b$10$abc")).resolves.toBe(false)
  })
})
