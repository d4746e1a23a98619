/**
 * `npm run bench:instructions`: instructions per request under `valgrind --tool=callgrind`, which do not move with the
 * machine's neighbours the way requests/s and CPU time do on a shared VM. For each route, this script runs itself as
 * a child (`node --single-threaded`, so no concurrent compiler or GC thread) under callgrind twice, sending
 * BENCH_INSTR_LOW and BENCH_INSTR_HIGH requests from an in-process client (10 in flight, keep-alive); the difference
 * of the two totals over the difference of the counts is the instructions per request of server and client together,
 * with start-up and most JIT warm-up cancelled. Prints each route's count and the bare route's over it (higher is
 * cheaper, like the requests/s ratios). Needs valgrind (`apt-get install valgrind`); takes a few minutes per route.
 * Repeated runs agreed within 15-25 thousand instructions per request here (2026-11-26).
 *
 * Environment: BENCH_INSTR_LOW (default 1200), BENCH_INSTR_HIGH (2200), BENCH_INSTR_ROUTES (bare,requireAuth,session).
 */
import { execFile } from "node:child_process"
import http from "node:http"
import type { AddressInfo } from "node:net"
import express, { type Express } from "express"
import { ExpressAuth, requireAuth } from "../lib"
import { encode } from "../lib/jwt"
import { COOKIE_NAME, SECRET, config } from "./servers"

const ROUTES = ["bare", "requireAuth", "session"] as const
type Route = (typeof ROUTES)[number]

/** The session JSON the bare route answers, the same size class as the others' answers. */
const SESSION = {
  user: { name: "Bench User", email: "bench@example.com", image: null },
  expires: "2026-12-31T00:00:00.000Z",
}

function appOf(route: Route): { app: Express; path: string } {
  const app = express()
  if (route === "bare") app.get("/", (_req, res) => void res.json(SESSION))
  if (route === "requireAuth") app.get("/", requireAuth(config), (_req, res) => void res.json(res.locals.session))
  if (route === "session") app.use("/auth", ExpressAuth(config))
  return { app, path: route === "session" ? "/auth/session" : "/" }
}

/** The child: serve `route` and send it `count` requests with a valid session cookie, then exit. */
async function child(route: Route, count: number): Promise<void> {
  const token = await encode({
    token: { name: "Bench User", email: "bench@example.com", sub: "u1" },
    secret: SECRET,
    salt: COOKIE_NAME,
  })
  const headers = { cookie: `${COOKIE_NAME}=${token}`, accept: "application/json" }
  const { app, path } = appOf(route)
  const server = app.listen(0, "127.0.0.1")
  await new Promise((resolve) => server.once("listening", resolve))
  const { port } = server.address() as AddressInfo
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 })
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, path, headers, agent }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${route} answered ${res.statusCode}`))
        res.resume()
        res.on("end", resolve)
      })
      req.on("error", reject)
      req.end()
    })
  let left = count
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (left-- > 0) await one()
    }),
  )
  process.exit(0)
}

/** Instructions callgrind counted for one child run. */
function instructions(route: Route, count: number): Promise<number> {
  const args = [
    "--tool=callgrind",
    "--callgrind-out-file=/dev/null",
    process.execPath,
    "--single-threaded",
    "--import",
    "tsx",
    __filename,
    "--child",
    route,
    String(count),
  ]
  return new Promise((resolve, reject) => {
    execFile("valgrind", args, { maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      const match = /Collected : (\d+)/.exec(stderr)
      if (error || !match)
        reject(new Error(`callgrind run of ${route} failed: ${error?.message ?? stderr.slice(-500)}`))
      else resolve(Number(match[1]))
    })
  })
}

function envCount(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`)
  return value
}

async function main(): Promise<void> {
  const low = envCount("BENCH_INSTR_LOW", 1200)
  const high = envCount("BENCH_INSTR_HIGH", 2200)
  if (high <= low) throw new Error("BENCH_INSTR_HIGH must be above BENCH_INSTR_LOW")
  const routes = (process.env.BENCH_INSTR_ROUTES?.split(",") ?? [...ROUTES]).map((r) => r.trim()) as Route[]
  for (const route of routes) if (!ROUTES.includes(route)) throw new Error(`unknown route ${route}`)
  console.log(`instructions per request under callgrind: (total at ${high} - total at ${low}) / ${high - low}`)
  const perRequest = new Map<Route, number>()
  for (const route of routes) {
    const [a, b] = [await instructions(route, low), await instructions(route, high)]
    const value = (b - a) / (high - low)
    perRequest.set(route, value)
    console.log(
      `${route.padEnd(14)} ${Math.round(value).toLocaleString("en-US").padStart(12)} instructions per request`,
    )
  }
  const bare = perRequest.get("bare")
  if (bare === undefined) return
  for (const [route, value] of perRequest) {
    if (route !== "bare") console.log(`bare / ${route}: ${(bare / value).toFixed(3)} (server and client together)`)
  }
}

const at = process.argv.indexOf("--child")
if (at !== -1) {
  child(process.argv[at + 1] as Route, Number(process.argv[at + 2])).catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
} else {
  main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
