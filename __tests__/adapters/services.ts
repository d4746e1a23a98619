// Gates the database-backed suites: skipped with one loud line when a service is unreachable, failing under CI=true.
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
/** A seed node of the tests' Redis Cluster: 3 masters + 3 replicas on 127.0.0.1:7001-7006 (started by .ci/redis-cluster). */
export const REDIS_CLUSTER_URL = process.env.REDIS_CLUSTER_URL ?? "redis://127.0.0.1:7001"
/** PgBouncer in transaction pooling mode in front of the PostgreSQL of DATABASE_URL (started by .ci/pgbouncer). */
export const PGBOUNCER_URL = process.env.PGBOUNCER_URL ?? "postgres://postgres@127.0.0.1:6432/test"

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

type Service = {
  name: "PostgreSQL" | "Redis" | "PgBouncer" | "Redis Cluster"
  url: string
  defaultPort: number
  /** How to start it, for the skip line. */
  start: string
  /** After the TCP probe: why the service cannot be used as the tests need it, or undefined when it can. */
  problem?: (url: string) => string | undefined
}

const pgProbe = `
const { Client } = require("pg")
const client = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 })
client.connect().then(() => client.query("select 1")).then(
  () => { client.end(); process.exit(0) },
  (error) => { process.stdout.write(String(error.code || "") + " " + error.message); process.exit(1) },
)`

/**
 * Connects to PostgreSQL as the tests do and names the fix when that fails although the port answers: a missing
 * database (`create database test`) or a refused login (trust auth for 127.0.0.1, or a password in DATABASE_URL).
 */
export function postgresProblem(url: string): string | undefined {
  const result = spawnSync(process.execPath, ["-e", pgProbe, url], { timeout: 8000, encoding: "utf8" })
  if (result.status === 0) return undefined
  const { hostname, port, pathname, username } = new URL(url)
  const database = decodeURIComponent(pathname.slice(1)) || "postgres"
  const user = decodeURIComponent(username) || "postgres"
  const code = result.stdout.split(" ")[0]
  const psql = `psql -h ${hostname} -p ${port || 5432} -U ${user}`
  if (code === "3D000") {
    return `PostgreSQL answers, but database "${database}" does not exist; create it with: ${psql} -d postgres -c 'create database ${database}'`
  }
  if (code === "28P01" || code === "28000") {
    return (
      `PostgreSQL refused user "${user}" (${result.stdout.slice(code.length + 1)}); allow it with trust auth for ` +
      `127.0.0.1 in pg_hba.conf ("host all all 127.0.0.1/32 trust", then reload), or put the password in DATABASE_URL`
    )
  }
  return `PostgreSQL answers at ${hostname}:${port || 5432} but cannot be used: ${result.stdout || result.stderr || "timeout"}`
}

export const POSTGRES: Service = {
  name: "PostgreSQL",
  url: DATABASE_URL,
  defaultPort: 5432,
  start:
    "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start (Debian), brew services start postgresql (macOS)",
  problem: postgresProblem,
}

export const PGBOUNCER: Service = {
  name: "PgBouncer",
  url: PGBOUNCER_URL,
  defaultPort: 6432,
  start: "bash .ci/pgbouncer (Debian's pgbouncer package, transaction pooling, in front of 127.0.0.1:5432)",
  problem: (url) => (serviceProblem(POSTGRES) === undefined ? postgresProblem(url) : "PostgreSQL is not usable"),
}

const clusterProbe = `
const net = require("node:net")
const s = net.connect({ host: process.argv[1], port: Number(process.argv[2]) }, () => s.write("CLUSTER INFO\\r\\n"))
let text = ""
s.setTimeout(1500, () => process.exit(1))
s.on("data", (d) => { text += d; if (text.includes("cluster_state:")) { process.stdout.write(/cluster_state:(\\w+)/.exec(text)[1]); process.exit(0) } })
s.on("error", () => process.exit(1))`

export const REDIS_CLUSTER: Service = {
  name: "Redis Cluster",
  url: REDIS_CLUSTER_URL,
  defaultPort: 7001,
  start: "bash .ci/redis-cluster (3 masters + 3 replicas on 127.0.0.1:7001-7006)",
  problem(url) {
    const { hostname, port } = new URL(url)
    const result = spawnSync(process.execPath, ["-e", clusterProbe, hostname, port || "7001"], {
      timeout: 5000,
      encoding: "utf8",
    })
    return result.stdout === "ok"
      ? undefined
      : `the node at ${hostname}:${port} is not in a healthy cluster (${result.stdout || "no answer"})`
  },
}

/** How to start a Redis on the host and port of `url`. */
export function redisStart(url: string): string {
  const port = new URL(url).port || "6379"
  return `redis-server --daemonize yes --bind 127.0.0.1 -::1 --port ${port} --save "" --appendonly no`
}

export const REDIS: Service = {
  name: "Redis",
  url: REDIS_URL,
  defaultPort: 6379,
  start: redisStart(REDIS_URL),
}

/** Why `service` cannot be used by the suites, or undefined when it can. */
export function serviceProblem(service: Service): string | undefined {
  if (!reachable(service.url, service.defaultPort)) {
    return `${service.name} is unreachable at ${new URL(service.url).host}; start it with: ${service.start}`
  }
  return service.problem?.(service.url)
}

/**
 * `describe` when `reason` is undefined (what the suite needs is there). Otherwise: outside CI, `describe.skip` plus
 * one loud line; with `CI=true`, a suite whose single test fails with the reason.
 */
export function describeUnless(reason: string | undefined, needs: string, title: string, body: () => void): void {
  if (reason === undefined) {
    describe(title, body)
    return
  }
  if (process.env.CI === "true") {
    describe(title, () => {
      it(`needs ${needs}`, () => {
        throw new Error(reason)
      })
    })
    return
  }
  // Straight to stderr: jest drops console output of suites whose tests are all skipped when it runs several files.
  process.stderr.write(`\n!!! SKIPPING "${title}": ${reason} (set CI=true to fail instead) !!!\n`)
  describe.skip(title, body)
}

/** {@link describeUnless} for a database service: runs when it answers and can be used. */
export function describeWithService(service: Service, title: string, body: () => void): void {
  describeUnless(serviceProblem(service), service.name, title, body)
}
