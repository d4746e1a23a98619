// Gates the database-backed suites: skipped with one loud line when a service is unreachable, failing under CI=true.
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"

/** A short random suffix for per-suite schema names and key prefixes. */
export function randomSuffix(): string {
  return randomBytes(6).toString("hex")
}

const probe = `
const net = require("node:net")
const s = net.connect({ host: process.argv[1], port: Number(process.argv[2]) })
s.setTimeout(1500, () => process.exit(1))
s.on("connect", () => process.exit(0))
s.on("error", () => process.exit(1))`

/** Whether a TCP connection to the URL's host and port succeeds (checked synchronously, so `describe` can branch). */
export function reachable(url: string, defaultPort: number): boolean {
  const { hostname, port } = new URL(url)
  const host = hostname.replace(/^\[|\]$/g, "")
  const result = spawnSync(process.execPath, ["-e", probe, host, port || String(defaultPort)], { timeout: 5000 })
  return result.status === 0
}

type Service = { name: "PostgreSQL" | "Redis"; url: string; defaultPort: number; start: string }

export const POSTGRES: Service = {
  name: "PostgreSQL",
  url: DATABASE_URL,
  defaultPort: 5432,
  start: "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
}

export const REDIS: Service = {
  name: "Redis",
  url: REDIS_URL,
  defaultPort: 6379,
  start: 'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no',
}

/**
 * `describe` when the service answers. Otherwise: outside CI, `describe.skip` plus one loud console line; with
 * `CI=true`, a suite whose single test fails with the reason.
 */
export function describeWithService(service: Service, title: string, body: () => void): void {
  if (reachable(service.url, service.defaultPort)) {
    describe(title, body)
    return
  }
  const reason = `${service.name} is unreachable at ${new URL(service.url).host}; start it with: ${service.start}`
  if (process.env.CI === "true") {
    describe(title, () => {
      it(`needs ${service.name}`, () => {
        throw new Error(reason)
      })
    })
    return
  }
  // Straight to stderr: jest drops console output of suites whose tests are all skipped when it runs several files.
  process.stderr.write(`\n!!! SKIPPING "${title}": ${reason} (set CI=true to fail instead) !!!\n`)
  describe.skip(title, body)
}
