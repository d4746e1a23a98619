/**
 * `npm run bench:count`: user-space instructions per request of (a) a bare Express route, (c) a `requireAuth` route
 * and (d) `GET /auth/session`, each server under `valgrind --tool=callgrind` with V8 on one thread. Instructions do not
 * depend on how fast the machine is at the moment, so a change can be judged on a VM whose requests/s move between
 * rounds (docs/performance.md, "Session 14" and "Session 15"); a count still moves by about ±10k between runs (how many
 * requests one event-loop turn reads depends on the client's timing), so steps smaller than that are not told apart.
 * The ratios printed are instruction ratios, not the targets of `npm run bench`, which stay in requests/s.
 *
 * Needs valgrind (`apt-get install valgrind`); takes a few minutes (each case warms up with 15,000 requests, then
 * 8,000 are counted). `--serve <id>` is the server side, started by this script under callgrind.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { COOKIE_NAME, SECRET, startServers, type CaseId } from "./servers"
import { loadPackage } from "./package"

const WARM_UP = 15_000
const COUNTED = 8_000
const CONNECTIONS = 10
const CASES: { id: CaseId; label: string }[] = [
  { id: "a", label: "bare Express route" },
  { id: "c", label: "requireAuth(config) route" },
  { id: "d", label: "ExpressAuth GET /auth/session" },
]

interface Served {
  url: string
  pid: number
}

/** The server side: every bench server in this process (as in `npm run bench`), the chosen one's URL on stdout. */
async function serve(id: CaseId): Promise<void> {
  const servers = await startServers()
  const chosen = servers.find((server) => server.id === id)
  if (!chosen) throw new Error(`no bench case ${id}`)
  const served: Served = { url: chosen.url, pid: process.pid }
  process.stdout.write(`${JSON.stringify(served)}\n`)
}

/** Starts case `id` under callgrind, instrumentation off, and resolves once it listens. */
function startCounted(id: CaseId, dir: string): Promise<{ child: ChildProcess; served: Served }> {
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      `--callgrind-out-file=${join(dir, `${id}.%p`)}`,
      process.execPath,
      "--single-threaded",
      "--predictable-gc-schedule",
      "--import",
      "tsx",
      __filename,
      "--serve",
      id,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  )
  return new Promise((resolve, reject) => {
    let out = ""
    let err = ""
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()))
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split("\n").find((l) => l.startsWith("{"))
      if (line) resolve({ child, served: JSON.parse(line) as Served })
    })
    child.once("exit", (code) =>
      reject(new Error(`case ${id} exited (${code}) before listening:\n${err.slice(-2000)}`)),
    )
  })
}

/** Sends `count` GET requests on `CONNECTIONS` keep-alive sockets, one at a time on each; every answer must be 200. */
async function drive(agent: Agent, url: string, headers: Record<string, string>, count: number): Promise<void> {
  let left = count
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { agent, headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`))
        res.resume()
        res.once("end", resolve)
      })
      req.once("error", reject)
      req.end()
    })
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (left-- > 0) await one()
    }),
  )
}

/** Counts case `id`: instructions per request over `COUNTED` requests after `WARM_UP`, on the same sockets. */
async function count(id: CaseId, headers: Record<string, string>): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-count-"))
  const { child, served } = await startCounted(id, dir)
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  try {
    await drive(agent, served.url, headers, WARM_UP)
    execFileSync("callgrind_control", ["-i", "on", String(served.pid)], { stdio: "ignore" })
    await drive(agent, served.url, headers, COUNTED)
    execFileSync("callgrind_control", ["-d", String(served.pid)], { stdio: "ignore" })
    const dump = readdirSync(dir).find((name) => name.endsWith(".1"))
    if (!dump) throw new Error(`case ${id}: callgrind wrote no dump`)
    const summary = /^summary: (\d+)/m.exec(readFileSync(join(dir, dump), "utf8"))
    if (!summary) throw new Error(`case ${id}: the dump has no summary line`)
    return Number(summary[1]) / COUNTED
  } finally {
    agent.destroy()
    child.kill()
    rmSync(dir, { recursive: true, force: true })
  }
}

function hasValgrind(): boolean {
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

async function main(): Promise<void> {
  if (!hasValgrind()) {
    console.error("bench:count needs valgrind (apt-get install valgrind)")
    process.exitCode = 1
    return
  }
  const { encode } = (await loadPackage()).jwt
  const jwe = await encode({
    token: { sub: "user-1", name: "Bench User", email: "bench@example.com" },
    secret: SECRET,
    salt: COOKIE_NAME,
  })
  const headers = { cookie: `${COOKIE_NAME}=${jwe}`, accept: "application/json" }
  console.log(`Gatehouse instruction counts (callgrind; ${WARM_UP} requests of warm-up, ${COUNTED} counted)`)
  const counts = new Map<CaseId, number>()
  for (const { id, label } of CASES) {
    const perRequest = await count(id, headers)
    counts.set(id, perRequest)
    console.log(`(${id}) ${label.padEnd(32)} ${Math.round(perRequest / 1000)}k instructions per request`)
  }
  const ratio = (fast: CaseId, slow: CaseId) => (counts.get(fast)! / counts.get(slow)!).toFixed(3)
  console.log(`a/c  bare / requireAuth (requests/s target of npm run bench: c/a >= 0.8)     ${ratio("a", "c")}`)
  console.log(`c/d  requireAuth / GET /auth/session (npm run bench: d/c >= 0.9)          ${ratio("c", "d")}`)
}

const serveAt = process.argv.indexOf("--serve")
const run = serveAt === -1 ? main() : serve(process.argv[serveAt + 1] as CaseId)
run.catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
