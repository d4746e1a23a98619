// The test gates name the fix: a PostgreSQL that answers but lacks the database or refuses the login, the Redis port
// of REDIS_URL, and CHROMIUM_PATH for the browser.
import { DATABASE_URL, POSTGRES, postgresProblem, randomSuffix, reachable, serviceProblem } from "./services"

import type * as Services from "./services"
import type * as Browser from "../fixtures/browser"

function withEnv<T>(env: Record<string, string>, load: () => T): T {
  const saved = { ...process.env }
  Object.assign(process.env, env)
  try {
    let loaded: T | undefined
    jest.isolateModules(() => {
      loaded = load()
    })
    return loaded as T
  } finally {
    process.env = saved
  }
}

const postgresUp = reachable(DATABASE_URL, 5432)
const itWithPostgres = postgresUp ? it : it.skip
if (!postgresUp) process.stderr.write(`\n!!! SKIPPING the PostgreSQL gate checks: ${serviceProblem(POSTGRES)} !!!\n`)

describe("the PostgreSQL gate", () => {
  itWithPostgres("accepts the configured database", () => {
    expect(postgresProblem(DATABASE_URL)).toBeUndefined()
  })

  itWithPostgres("a missing database: names it and the command that creates it", () => {
    const url = new URL(DATABASE_URL)
    const database = `gatehouse_missing_${randomSuffix()}`
    url.pathname = `/${database}`
    const problem = postgresProblem(url.href)
    expect(problem).toContain(`database "${database}" does not exist`)
    expect(problem).toContain(`-c 'create database ${database}'`)
  })

  itWithPostgres("a refused login: names trust auth and DATABASE_URL", () => {
    const url = new URL(DATABASE_URL)
    url.username = `nobody_${randomSuffix()}`
    const problem = postgresProblem(url.href)
    expect(problem).toContain(`PostgreSQL refused user "${url.username}"`)
    expect(problem).toContain("host all all 127.0.0.1/32 trust")
    expect(problem).toContain("DATABASE_URL")
  })

  it("an unreachable port: the start hint", () => {
    const problem = serviceProblem({ ...POSTGRES, url: "postgres://postgres@127.0.0.1:1/test" })
    expect(problem).toMatch(/^PostgreSQL is unreachable at 127\.0\.0\.1:1; start it with: /)
  })
})

describe("the Redis gate", () => {
  it("its start hint uses REDIS_URL's port", () => {
    const services = withEnv({ REDIS_URL: "redis://127.0.0.1:1" }, () =>
      jest.requireActual<typeof Services>("./services"),
    )
    expect(services.REDIS.url).toBe("redis://127.0.0.1:1")
    expect(services.serviceProblem(services.REDIS)).toContain(
      "redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 1 ",
    )
  })
})

describe("the browser gate", () => {
  it("CHROMIUM_PATH overrides the browser path", () => {
    const browser = withEnv({ CHROMIUM_PATH: "/nonexistent/chromium" }, () =>
      jest.requireActual<typeof Browser>("../fixtures/browser"),
    )
    expect(browser.CHROMIUM_PATH).toBe("/nonexistent/chromium")
    expect(browser.chromiumAvailable()).toBe(false)
  })
})
