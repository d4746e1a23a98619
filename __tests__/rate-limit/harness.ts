// A small Express app with a credentials provider and the limiter on, and helpers to post sign-ins through it.
import express from "express"
import request from "supertest"
import type { Express } from "express"
import { Gatehouse } from "../../lib/express"
import type { AuthConfig, RateLimitOptions } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { testLogger, type TestLogger } from "../core/helpers"

export const SECRET = "rate-limit-test-secret-0123456789abcdef"

/** The people `authorize` knows: email → password. */
const PASSWORDS: Record<string, string> = { "ada@example.com": "right", "bob@example.com": "right" }

export interface LimitedApp {
  app: Express
  config: AuthConfig & { logger: TestLogger }
  /** Every `authorize` call, with the email it was for. */
  authorized: string[]
  /** Every `events.rateLimited` message. */
  limited: Array<{ rule: string; key: string; ip?: string }>
}

/** An Express 5 app serving Gatehouse at /auth with the limiter enabled (unless `rateLimit` says otherwise). */
export function limitedApp(
  options: {
    rateLimit?: RateLimitOptions
    trustProxy?: boolean | number
    config?: Partial<AuthConfig>
    /** Another Express (the tests pass Express 4); default Express 5. */
    express?: typeof express
  } = {},
): LimitedApp {
  const authorized: string[] = []
  const limited: LimitedApp["limited"] = []
  const config = {
    secret: SECRET,
    trustHost: true,
    logger: testLogger(),
    providers: [
      Credentials({
        credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
        authorize: async (c) => {
          const email = String(c.email)
          authorized.push(email)
          return PASSWORDS[email] !== undefined && PASSWORDS[email] === c.password ? { id: email, email } : null
        },
      }),
    ],
    events: { rateLimited: (message: LimitedApp["limited"][number]) => void limited.push(message) },
    rateLimit: { enabled: true, ...options.rateLimit },
    ...options.config,
  } as AuthConfig & { logger: TestLogger }
  const app = (options.express ?? express)()
  if (options.trustProxy !== undefined) app.set("trust proxy", options.trustProxy)
  app.use("/auth", Gatehouse(config).handlers)
  return { app, config, authorized, limited }
}

export interface Csrf {
  cookie: string
  token: string
}

/** A CSRF token and its cookie from GET /auth/csrf. */
export async function csrfOf(app: Express): Promise<Csrf> {
  const response = await request(app).get("/auth/csrf")
  const cookie = ([] as string[])
    .concat(response.headers["set-cookie"] ?? [])
    .map((line) => line.split(";")[0]!)
    .join("; ")
  return { cookie, token: (response.body as { csrfToken: string }).csrfToken }
}

/** POST a credentials sign-in (form-encoded) with the CSRF pair; `headers` adds e.g. `X-Forwarded-For`. */
export function postSignIn(
  app: Express,
  csrf: Csrf,
  fields: { email: string; password: string },
  options: { path?: string; headers?: Record<string, string> } = {},
): request.Test {
  const test = request(app)
    .post(options.path ?? "/auth/callback/credentials")
    .set("Cookie", csrf.cookie)
    .type("form")
  for (const [name, value] of Object.entries(options.headers ?? {})) test.set(name, value)
  return test.send({ ...fields, csrfToken: csrf.token })
}

/** The sign-in page URL of a refusal, without its `retry` value. */
export function limitedLocation(location: string | undefined): { url: string; retry: number } {
  const url = new URL(String(location))
  const retry = Number(url.searchParams.get("retry"))
  url.searchParams.delete("retry")
  return { url: url.toString(), retry }
}
