/**
 * `npm run test:failover`: a Redis Cluster of 3 masters + 3 replicas (started here on 127.0.0.1:7101-7106) under a
 * mixed load for FAILOVER_DURATION seconds (default 60) through the Fetch flavour with database sessions on the Redis
 * adapter: sign-ins, session reads, sign-outs, reads of signed-out sessions, and single-use races (a magic-link token
 * used twice at once, a store `consume` twice at once). A quarter in, one master is failed over by `CLUSTER FAILOVER`
 * on its replica; at 60 %, another master's process is killed. Reports how long requests answered 5xx after each
 * event, and fails (exit 1) when an acknowledged sign-in is lost, a signed-out session is served again, or a
 * single-use value is used twice. The client uses the settings docs/guide/deploying.md recommends.
 */
import { randomUUID } from "node:crypto"
import { Cluster, type ClusterOptions } from "ioredis"
import { Gatehouse } from "../../lib/web"
import Credentials from "../../lib/providers/credentials"
import { RedisAdapter } from "../../lib/storage/redis/adapter"
import { startCluster } from "./cluster"

const DURATION_S = Number(process.env.FAILOVER_DURATION ?? 60)
const WORKERS = Number(process.env.FAILOVER_WORKERS ?? 8)
const FIRST_PORT = Number(process.env.FAILOVER_PORT ?? 7101)
const origin = "http://app.test"

/** The ioredis `Cluster` options for failover (docs/guide/deploying.md). */
export const clusterOptions: ClusterOptions = {
  scaleReads: "master",
  enableOfflineQueue: true,
  retryDelayOnFailover: 200,
  retryDelayOnClusterDown: 200,
  retryDelayOnTryAgain: 200,
  slotsRefreshTimeout: 2000,
  clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
  redisOptions: { connectTimeout: 2000, maxRetriesPerRequest: 20 },
}

interface Browser {
  cookies: Map<string, string>
}
const header = (b: Browser) => [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
function take(b: Browser, response: Response): Response {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";")
    const [name, ...value] = pair!.split("=")
    if (/max-age=0/i.test(line) || value.join("=") === "") b.cookies.delete(name!.trim())
    else b.cookies.set(name!.trim(), value.join("="))
  }
  return response
}

async function main(): Promise<void> {
  process.stdout.write(`starting a 3+3 Redis Cluster on 127.0.0.1:${FIRST_PORT}-${FIRST_PORT + 5}\n`)
  const cluster = await startCluster(FIRST_PORT)
  const client = new Cluster([{ host: "127.0.0.1", port: FIRST_PORT }], clusterOptions)
  client.on("error", () => undefined)
  // Each write a failover must not lose waits for one replica: an acknowledged sign-in, sign-out or single use survives.
  const adapter = RedisAdapter(client, { prefix: "failover:", waitForReplicas: { replicas: 1, timeoutMs: 500 } })
  const { handle } = Gatehouse({
    secret: "failover-secret-of-at-least-thirty-two-chars",
    trustHost: true,
    adapter,
    session: { strategy: "database" },
    rateLimit: { enabled: false },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: async ({ username }) => ({ id: `user-${String(username)}`, email: `${String(username)}@f.test` }),
      }),
    ],
  })
  for (let i = 0; i < WORKERS * 4; i++) {
    await adapter.createUser({ id: `user-u${i}`, email: `u${i}@f.test`, emailVerified: null })
  }

  const start = Date.now()
  const live: Browser[] = []
  const revoked: Browser[] = []
  /** Browsers whose sign-out has been sent: a read of theirs may rightly answer null from then on. */
  const leaving = new Set<Browser>()
  /** [when a request started, how long it took] for every request, to report the slowest around each event. */
  const timings: Array<[number, number]> = []
  const errors: number[] = []
  /** When a signed-in session read as signed out while it was not being signed out (a read that failed closed). */
  const closed: number[] = []
  const violations: string[] = []
  let requests = 0
  const send = async (b: Browser, path: string, form?: Record<string, string>): Promise<Response> => {
    // An API client: an outage answers 503 (a browser would get the error page).
    const init: RequestInit = { headers: { cookie: header(b), accept: "application/json" } }
    if (form) {
      init.method = "POST"
      init.headers = {
        cookie: header(b),
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      }
      init.body = new URLSearchParams(form)
    }
    requests++
    const started = Date.now()
    const response = take(b, (await handle(new Request(origin + path, init)))!)
    timings.push([started, Date.now() - started])
    if (response.status >= 500) errors.push(Date.now())
    return response
  }
  const csrf = async (b: Browser) => {
    const response = await send(b, "/auth/csrf")
    return response.status === 200 ? ((await response.json()) as { csrfToken: string }).csrfToken : undefined
  }
  const read = async (b: Browser) => {
    const response = await send(b, "/auth/session")
    return response.status === 200 ? ((await response.json()) as { user?: { id?: string } } | null) : "error"
  }

  const ops = {
    async signIn(n: number) {
      const b: Browser = { cookies: new Map() }
      const token = await csrf(b)
      if (!token) return
      const response = await send(b, "/auth/callback/credentials", {
        csrfToken: token,
        username: `u${n % (WORKERS * 4)}`,
      })
      if (response.status === 302 && [...b.cookies.keys()].some((k) => k.endsWith("session-token"))) live.push(b)
    },
    async readLive() {
      const b = live[Math.floor(Math.random() * live.length)]
      if (!b || leaving.has(b)) return
      const session = await read(b)
      // Failing closed while a master is away: counted with the errors; the final check tells whether it was lost.
      if (session === null && !leaving.has(b)) closed.push(Date.now())
    },
    async signOut() {
      const b = live.pop()
      if (!b) return
      const token = await csrf(b)
      if (!token) return void live.push(b)
      const copy: Browser = { cookies: new Map(b.cookies) }
      leaving.add(b)
      const response = await send(b, "/auth/signout", { csrfToken: token })
      if (response.status === 302) revoked.push(copy)
      else {
        leaving.delete(b)
        live.push(b)
      }
    },
    async readRevoked() {
      const b = revoked[Math.floor(Math.random() * revoked.length)]
      if (!b) return
      const session = await read(b)
      if (session !== null && session !== "error") violations.push("a signed-out session was served again")
    },
    async singleUse() {
      const identifier = `${randomUUID()}@f.test`
      const expires = new Date(Date.now() + 60_000)
      try {
        await adapter.createVerificationToken({ identifier, token: "t", expires })
        const used = await Promise.all([1, 2].map(() => adapter.useVerificationToken({ identifier, token: "t" })))
        if (used.filter(Boolean).length > 1) violations.push("a verification token was used twice")
        const key = `once:${randomUUID()}`
        const won = await Promise.all([1, 2].map(() => adapter.store.consume(key, 60)))
        if (won.filter(Boolean).length > 1) violations.push("a consumed key was consumed twice")
      } catch {
        errors.push(Date.now())
      }
    },
  }

  const end = start + DURATION_S * 1000
  const events: Array<{ name: string; at: number }> = []
  const schedule = (fraction: number, name: string, act: () => void) =>
    setTimeout(
      () => {
        events.push({ name, at: Date.now() })
        act()
        process.stdout.write(`${((Date.now() - start) / 1000).toFixed(1)} s: ${name}\n`)
      },
      DURATION_S * 1000 * fraction,
    )
  schedule(0.25, "CLUSTER FAILOVER on a replica", () => {
    const replica = cluster.roles().find((node) => node.role === "slave")!
    void client
      .nodes("all")
      .find((node) => node.options.port === replica.port)
      ?.cluster("FAILOVER")
  })
  schedule(0.6, "kill -9 of a master", () => {
    const master = cluster.roles().find((node) => node.role === "master")!
    cluster.kill(master.port)
    process.stdout.write(`killed the master on port ${master.port}\n`)
  })

  let n = 0
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (Date.now() < end) {
        const pick = Math.random()
        const op =
          pick < 0.2
            ? ops.signIn(n++)
            : pick < 0.6
              ? ops.readLive()
              : pick < 0.7
                ? ops.signOut()
                : pick < 0.9
                  ? ops.readRevoked()
                  : ops.singleUse()
        await op.catch(() => errors.push(Date.now()))
      }
    }),
  )
  // After the load: every acknowledged sign-in still reads as signed in, every sign-out as signed out.
  const lost = (await Promise.all(live.map(read))).filter((s) => s === null).length
  const back = (await Promise.all(revoked.map(read))).filter((s) => s !== null && s !== "error").length
  if (lost > 0) violations.push(`${lost} acknowledged sign-ins lost`)
  if (back > 0) violations.push(`${back} signed-out sessions served again`)

  process.stdout.write(
    `\n${requests} requests in ${DURATION_S} s, ${live.length} signed in, ${revoked.length} signed out\n`,
  )
  for (const [i, event] of events.entries()) {
    const until = events[i + 1]?.at ?? end
    const window = errors.filter((t) => t >= event.at && t < until)
    const span = window.length === 0 ? 0 : window[window.length - 1]! - event.at
    const slowest = Math.max(0, ...timings.filter(([t]) => t >= event.at && t < until).map(([, ms]) => ms))
    const failedClosed = closed.filter((t) => t >= event.at && t < until).length
    process.stdout.write(
      `${event.name}: ${window.length} errors (5xx or failed calls), the last ${span} ms after it; ` +
        `${failedClosed} reads failed closed; slowest request ${slowest} ms\n`,
    )
  }
  const first = events[0]?.at ?? end
  const before = errors.filter((t) => t < first).length
  const slowestBefore = Math.max(0, ...timings.filter(([t]) => t < first).map(([, ms]) => ms))
  process.stdout.write(`before any failover: ${before} errors; slowest request ${slowestBefore} ms\n`)
  for (const v of new Set(violations))
    process.stdout.write(`VIOLATION: ${v} (${violations.filter((x) => x === v).length}x)\n`)
  process.stdout.write(violations.length === 0 ? "PASS\n" : "FAIL\n")
  client.disconnect()
  cluster.stop()
  process.exit(violations.length === 0 ? 0 : 1)
}

void main()
