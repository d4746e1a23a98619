/**
 * `npm run load`: mixed traffic against the demo-like app (bench/load-app.ts, its own process), first with SQLite,
 * then with PostgreSQL. Each of `LOAD_CONNECTIONS` (100) connections loops through: the home page, GET /auth/csrf, a
 * credentials sign-in, GET /auth/session, a protected route, a magic-link request (local SMTP), a sign-out. Loopback
 * only, for `LOAD_SECONDS` (60) seconds; then the app's RSS (after a GC) is read, the same traffic runs for a further
 * `LOAD_SOAK_SECONDS` (600) seconds and the RSS is read again. Reports requests, errors (any unexpected status, socket
 * error or timeout; must be 0), p50/p99 latency and the RSS growth once warm (must be within 10%), with the RSS read
 * after every minute of the soak so a plateau and a steady climb look different. Exits 1 otherwise. The app's
 * database starts with `LOAD_SEED_TOKENS` rows (bench/load-app.ts says why).
 *
 * Short mode: `LOAD_SECONDS=5 LOAD_SOAK_SECONDS=5 npm run load`. `LOAD_DBS=sqlite` runs one database only.
 */
import { fork, type ChildProcess } from "node:child_process"
import { resolve } from "node:path"
import autocannon, { type Request as CannonRequest } from "autocannon"
import { LOAD_PASSWORD } from "./load-app"

const seconds = Number(process.env.LOAD_SECONDS ?? 60)
const soakSeconds = Number(process.env.LOAD_SOAK_SECONDS ?? 600)
const connections = Number(process.env.LOAD_CONNECTIONS ?? 100)
const databases = (process.env.LOAD_DBS ?? "sqlite,postgres").split(",").filter(Boolean)
const MAX_GROWTH = 0.1

interface Context {
  cookies: Record<string, string>
  csrf?: string
  user?: string
}

/** Unexpected answers by step, counted across connections. */
const unexpected = new Map<string, number>()

function fail(step: string): void {
  unexpected.set(step, (unexpected.get(step) ?? 0) + 1)
}

function keepCookies(context: Context, headers: Record<string, string | string[]>): void {
  const lines = ([] as string[]).concat(headers["set-cookie"] ?? [])
  for (const line of lines) {
    const [pair] = line.split(";")
    const eq = pair!.indexOf("=")
    const name = pair!.slice(0, eq)
    const value = pair!.slice(eq + 1)
    if (/Max-Age=0/i.test(line) || value === "") delete context.cookies[name]
    else context.cookies[name] = value
  }
}

const cookieHeader = (context: Context) =>
  Object.entries(context.cookies)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ")

let users = 0
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
const formHeaders = (context: Context) => ({
  "content-type": "application/x-www-form-urlencoded",
  cookie: cookieHeader(context),
})

/** One loop of mixed traffic; autocannon cycles each connection through it. */
function traffic(): CannonRequest[] {
  const expect =
    (step: string, status: number, check: (body: string, headers: Record<string, string | string[]>) => boolean) =>
    (got: number, body: string, context: object, headers?: Record<string, string | string[] | undefined>) => {
      // autocannon keeps the header names as the server sent them.
      const h = Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])) as Record<
        string,
        string | string[]
      >
      keepCookies(context as Context, h)
      if (got !== status || !check(body, h)) {
        fail(step)
        if (process.env.LOAD_DEBUG) console.log(step, got, body.slice(0, 200), h.location)
      }
    }
  const location = (headers: Record<string, string | string[]>) => String(headers.location ?? "")
  return [
    {
      method: "GET",
      path: "/",
      setupRequest: (req, context) => {
        const ctx = context as unknown as Context
        ctx.cookies = {}
        ctx.user ??= `u${users++ % 1000}`
        return req
      },
      onResponse: expect("home", 200, (body) => body.includes("Welcome")),
    },
    {
      method: "GET",
      path: "/auth/csrf",
      onResponse: (status, body, context, headers) => {
        expect("csrf", 200, () => true)(status, body, context, headers as Record<string, string | string[]>)
        if (status !== 200) return
        ;(context as Context).csrf = (JSON.parse(body) as { csrfToken: string }).csrfToken
      },
    },
    {
      method: "POST",
      path: "/auth/callback/credentials",
      setupRequest: (req, context) => {
        const ctx = context as unknown as Context
        return {
          ...req,
          headers: formHeaders(ctx),
          body: form({ csrfToken: ctx.csrf!, username: ctx.user!, password: LOAD_PASSWORD, callbackUrl: "/me" }),
        }
      },
      onResponse: expect("sign-in", 302, (_b, h) => location(h).endsWith("/me")),
    },
    {
      method: "GET",
      path: "/auth/session",
      setupRequest: (req, context) => ({ ...req, headers: { cookie: cookieHeader(context as unknown as Context) } }),
      onResponse: expect("session", 200, (body) => body.includes('"user"')),
    },
    {
      method: "GET",
      path: "/me",
      setupRequest: (req, context) => ({
        ...req,
        headers: { cookie: cookieHeader(context as unknown as Context), accept: "application/json" },
      }),
      onResponse: expect("protected", 200, (body) => body.includes('"user"')),
    },
    {
      method: "POST",
      path: "/auth/signin/nodemailer",
      setupRequest: (req, context) => {
        const ctx = context as unknown as Context
        return {
          ...req,
          headers: formHeaders(ctx),
          body: form({ csrfToken: ctx.csrf!, email: `${ctx.user}@load.test` }),
        }
      },
      onResponse: expect("magic-link", 302, (_b, h) => location(h).includes("/auth/verify-request")),
    },
    {
      method: "POST",
      path: "/auth/signout",
      setupRequest: (req, context) => {
        const ctx = context as unknown as Context
        return { ...req, headers: formHeaders(ctx), body: form({ csrfToken: ctx.csrf!, callbackUrl: "/" }) }
      },
      onResponse: expect("sign-out", 302, () => true),
    },
  ]
}

interface Phase {
  /** Unexpected answers by step. */
  steps: Record<string, number>
  requests: number
  errors: number
  timeouts: number
  unexpected: number
  p50: number
  p99: number
  rps: number
}

async function drive(port: number, duration: number): Promise<Phase> {
  unexpected.clear()
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration,
    timeout: 10,
    requests: traffic(),
  })
  const counted = [...unexpected.values()].reduce((a, b) => a + b, 0)
  return {
    steps: Object.fromEntries(unexpected),
    requests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    unexpected: counted,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: Math.round(result.requests.average),
  }
}

/** One phase out of consecutive slices: counts add up, latencies are the slices' worst, rates their mean. */
function combine(slices: Phase[]): Phase {
  const steps: Record<string, number> = {}
  for (const slice of slices) for (const [step, n] of Object.entries(slice.steps)) steps[step] = (steps[step] ?? 0) + n
  const sum = (key: "requests" | "errors" | "timeouts" | "unexpected") => slices.reduce((a, s) => a + s[key], 0)
  const requests = sum("requests")
  return {
    steps,
    requests,
    errors: sum("errors"),
    timeouts: sum("timeouts"),
    unexpected: sum("unexpected"),
    p50: Math.max(...slices.map((s) => s.p50)),
    p99: Math.max(...slices.map((s) => s.p99)),
    rps: Math.round(slices.reduce((a, s) => a + s.rps, 0) / Math.max(1, slices.length)),
  }
}

function startApp(db: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(resolve(__dirname, "load-app.ts"), [], {
    env: { ...process.env, LOAD_DB: db },
    execArgv: ["--expose-gc", "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  })
  return new Promise((resolvePort, reject) => {
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`load app exited with ${code}`)))
    child.once("message", (message) => resolvePort({ child, port: (message as { port: number }).port }))
  })
}

interface Memory {
  rss: number
  heapUsed: number
  external: number
}

function rssOf(child: ChildProcess): Promise<Memory> {
  return new Promise((resolveRss) => {
    child.once("message", (message) => resolveRss(message as Memory))
    child.send("rss")
  })
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

async function runDatabase(db: string): Promise<boolean> {
  const { child, port } = await startApp(db)
  try {
    const main = await drive(port, seconds)
    const warm = await rssOf(child)
    // The soak in slices of at most a minute, reading the RSS after each.
    const slices: Phase[] = []
    const series: number[] = []
    for (let left = soakSeconds; left > 0; left -= 60) {
      slices.push(await drive(port, Math.min(60, left)))
      series.push((await rssOf(child)).rss)
    }
    const soak = combine(slices)
    const after = await rssOf(child)
    const growth = (after.rss - warm.rss) / warm.rss
    const errors = main.errors + main.timeouts + main.unexpected + soak.errors + soak.timeouts + soak.unexpected
    const ok = errors === 0 && growth <= MAX_GROWTH
    console.log(
      [
        `${db}: ${connections} connections, ${seconds} s: ${main.requests.toLocaleString("en-US")} requests ` +
          `(${main.rps}/s), errors ${main.errors + main.timeouts + main.unexpected}, p50 ${main.p50} ms, p99 ${main.p99} ms`,
        `${db}: RSS warm ${mb(warm.rss)}, after a further ${soakSeconds} s (${soak.requests.toLocaleString("en-US")} ` +
          `requests, errors ${soak.errors + soak.timeouts + soak.unexpected}, worst minute p50 ${soak.p50} ms, ` +
          `p99 ${soak.p99} ms): ${mb(after.rss)} ` +
          `(${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)}%); JS heap ${mb(warm.heapUsed)} -> ${mb(after.heapUsed)}, ` +
          `external ${mb(warm.external)} -> ${mb(after.external)}`,
        `${db}: RSS after each minute of the soak: ${series.map((rss) => (rss / 1024 / 1024).toFixed(1)).join(", ")} MB`,
        `${db}: socket errors ${main.errors + soak.errors}, client timeouts (10 s) ${main.timeouts + soak.timeouts}, ` +
          `unexpected answers by step ${JSON.stringify(main.steps)} then ${JSON.stringify(soak.steps)}`,
        `${db}: ${ok ? "PASS" : "FAIL"} (errors must be 0, RSS growth within ${MAX_GROWTH * 100}%)`,
      ]
        .filter(Boolean)
        .join("\n"),
    )
    return ok
  } finally {
    child.removeAllListeners("exit")
    child.send("stop")
    await new Promise((resolveExit) => child.once("exit", resolveExit))
  }
}

async function main(): Promise<void> {
  console.log(`load: ${databases.join(", ")}; ${connections} connections; ${seconds} s + ${soakSeconds} s soak`)
  let ok = true
  for (const db of databases) {
    try {
      ok = (await runDatabase(db)) && ok
    } catch (error) {
      console.log(`!!! ${db} SKIPPED: ${(error as Error).message}`)
      ok = false
    }
  }
  // autocannon's agents keep handles open after a run: end explicitly once the report is printed.
  process.exit(ok ? 0 : 1)
}

void main()
