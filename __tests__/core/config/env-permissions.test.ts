// A runtime that refuses some environment reads (Deno with `--allow-env` scoped to named variables): a refused
// variable counts as unset, the typo check is skipped with one debug line, and construction succeeds. The real Deno
// run is in __tests__/packaging/runtimes.ts.
import { resolveConfig } from "../../../lib/core/kernel/config/resolve"
import { permittedEnv } from "../../../lib/core/kernel/config/env"
import type { Env } from "../../../lib/core/kernel/config/env"
import Credentials from "../../../lib/providers/credentials"
import { SECRET } from "../helpers"

class NotCapable extends Error {
  override name = "NotCapable"
}

/** An environment that behaves as Deno's `process.env` under `--allow-env=<allowed>`: other reads throw, listing throws. */
function scopedEnv(values: Env, allowed: readonly string[]): Env {
  const check = (name: string | symbol) => {
    if (typeof name !== "string" || !allowed.includes(name))
      throw new NotCapable(`Requires env access to "${String(name)}"`)
  }
  return new Proxy({} as Env, {
    get: (_, name) => (check(name), values[name as string]),
    has: (_, name) => (check(name), name in values),
    getOwnPropertyDescriptor: (_, name) => {
      check(name)
      const value = values[name as string]
      return value === undefined ? undefined : { value, enumerable: true, configurable: true, writable: true }
    },
    ownKeys: () => {
      throw new NotCapable("Requires env access")
    },
  })
}

const allowed = ["AUTH_SECRET", "AUTH_URL", "AUTH_TRUST_HOST", "NODE_ENV"]

describe("permittedEnv", () => {
  it("the scoped environment throws as Deno's does (control)", () => {
    const env = scopedEnv({ AUTH_SECRET: SECRET }, allowed)
    expect(() => env.AUTH_SECRET_1).toThrow(NotCapable)
    expect(() => Object.keys(env)).toThrow(NotCapable)
  })

  it("reads a permitted variable, and a refused one as unset", () => {
    const env = permittedEnv(scopedEnv({ AUTH_SECRET: SECRET, AUTH_SECRET_1: "older" }, allowed))
    expect(env.AUTH_SECRET).toBe(SECRET)
    expect(env.AUTH_SECRET_1).toBeUndefined()
    expect("AUTH_SECRET" in env).toBe(true)
    expect("AUTH_SECRET_1" in env).toBe(false)
    expect(() => Object.keys(env)).toThrow(NotCapable)
  })

  it("over a plain environment, answers and lists as the environment does", () => {
    const env = permittedEnv({ AUTH_URL: "https://app.example", NODE_ENV: undefined })
    expect(env.AUTH_URL).toBe("https://app.example")
    expect(Object.entries(env)).toEqual([["AUTH_URL", "https://app.example"]])
  })
})

describe("construction with a scoped environment", () => {
  it("takes the secret and trusted host from the permitted variables (production, where both are required) and skips the typo check once, at debug level", () => {
    const debug: Array<[string, unknown]> = []
    const warn = jest.fn()
    const logger = {
      error: jest.fn(),
      warn,
      debug: (message: string, meta?: unknown) => void debug.push([message, meta]),
    }
    const env = permittedEnv(
      scopedEnv({ AUTH_SECRET: SECRET, AUTH_TRUST_HOST: "true", NODE_ENV: "production", AUTH_SECERT: "typo" }, allowed),
    )
    const config = { providers: [Credentials({ authorize: () => null })], logger, debug: true }
    const first = resolveConfig({ ...config }, { env })
    resolveConfig({ ...config }, { env })
    expect(first.secret).toEqual([SECRET])
    expect(debug.filter(([message]) => message === "env_typo_check_skipped")).toEqual([
      ["env_typo_check_skipped", { reason: "NotCapable" }],
    ])
    expect(warn.mock.calls.filter(([code]) => code === "env-variable-typo")).toEqual([])
  })
})
