/** Builds the same small app on Express 4 and Express 5 for the integration tests. */
import express5 from "express"
import express4 from "express4"
import type { Express } from "express"
import request from "supertest"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"

export const versions = [
  ["Express 4", express4 as unknown as typeof express5],
  ["Express 5", express5],
] as const

export type ExpressFactory = typeof express5

export const SECRET = "express-test-secret-0123456789abcdef"

export function authConfig(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: (c) =>
          c.username === "ada" && c.password === "pw" ? { id: "u1", name: "Ada", email: "ada@x.test" } : null,
      }),
    ],
    ...overrides,
  }
}

/** Cookie header value from a supertest response's Set-Cookie, merged over `jar`. */
export function cookieJar(
  jar: Record<string, string>,
  setCookie: string[] | string | undefined,
): Record<string, string> {
  const next = { ...jar }
  const list = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]
  for (const line of list) {
    const [pair] = line.split(";")
    const eq = pair!.indexOf("=")
    const name = pair!.slice(0, eq)
    const value = pair!.slice(eq + 1)
    if (/Max-Age=0/i.test(line) || value === "") delete next[name]
    else next[name] = value
  }
  return next
}

export function cookieHeader(jar: Record<string, string>): string {
  return Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ")
}

/** Signs in through `<base>/callback/credentials` and returns the cookie jar. */
export async function signIn(app: Express, base = "/auth"): Promise<Record<string, string>> {
  const csrf = await request(app).get(`${base}/csrf`)
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const res = await request(app)
    .post(`${base}/callback/credentials`)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, username: "ada", password: "pw" })
  if (res.status !== 302) throw new Error(`sign-in failed: ${res.status}`)
  jar = cookieJar(jar, res.headers["set-cookie"])
  return jar
}
