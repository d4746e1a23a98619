/**
 * `npm run bench`: requests/s of (a) a bare Express route, (b) the floor (cookie + raw `jose` decrypt with a
 * precomputed key), (c) a `requireAuth` route, (d) `GET /auth/session`, (f) the same without a cookie, (g) its floor and
 * (k) that floor with the base cookies, (h) the credentials sign-in, (i) its floor and (j) the bound of h/i on jose (one encrypt,
 * nothing checked), and (e) a `requireAuth` route with database sessions on PostgreSQL
 * (skipped when unreachable), alternated and repeated in one run; the SQL queries per session check of (e); the RSS
 * growth over many requests to (c) and to (a); the JWT helpers against `jose` with a cached key; the cold start of
 * the package against Express. A report: it always exits 0 unless the benchmark itself breaks.
 *
 * Environment: BENCH_QUICK=1 (smoke test), BENCH_DURATION (seconds per run), BENCH_ROUNDS, BENCH_AMOUNT (requests per
 * memory run), BENCH_CONNECTIONS, BENCH_LOADGEN=child|inprocess. See bench/README.md.
 */
import { cpus, loadavg } from "node:os"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { loadPackage } from "./package"
import { coldStart, jwtOps } from "./micro"
import { DATABASE_USER, startDatabaseCase, type DatabaseCase } from "./database"
import { runLoad, stopLoadgen, type LoadgenMode, type LoadResult } from "./loadgen"
import { COOKIE_NAME, SECRET, startServers, stopServers, type BenchServer, type CaseId } from "./servers"

interface Settings {
  quick: boolean
  duration: number
  warmup: number
  rounds: number
  amount: number
  connections: number
  pipelining: number
  loadgen: LoadgenMode
  /** Milliseconds per measured run of each JWT helper op, and the alternated rounds of them. */
  jwtMs: number
  jwtRounds: number
  /** Fresh processes per import in the cold-start measure. */
  coldRuns: number
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`)
  return value
}

function readSettings(): Settings {
  const quick = process.env.BENCH_QUICK === "1"
  const mode = process.env.BENCH_LOADGEN ?? "child"
  if (mode !== "child" && mode !== "inprocess") throw new Error(`BENCH_LOADGEN must be child or inprocess, got ${mode}`)
  // Short runs, many rounds: on a VM whose speed moves within seconds, two cases measured 0.5 s apart see nearly the
  // same machine, and the median of 30 per-round ratios is steadier than that of 5 (bench/README.md).
  const duration = envNumber("BENCH_DURATION", 0.5)
  return {
    quick,
    duration,
    warmup: quick ? 1 : 2,
    rounds: Math.round(envNumber("BENCH_ROUNDS", quick ? 3 : 30)),
    amount: Math.round(envNumber("BENCH_AMOUNT", quick ? 10_000 : 100_000)),
    connections: Math.round(envNumber("BENCH_CONNECTIONS", 10)),
    pipelining: 1,
    loadgen: mode,
    jwtMs: Math.round(envNumber("BENCH_JWT_MS", quick ? 300 : 500)),
    jwtRounds: Math.round(envNumber("BENCH_JWT_ROUNDS", quick ? 3 : 12)),
    coldRuns: Math.round(envNumber("BENCH_COLD_RUNS", quick ? 3 : 9)),
  }
}

/** `global.gc`, from `--expose-gc`, or obtained at run time when the flag was not given. */
function collector(): { gc: () => void; source: string } {
  const exposed = (globalThis as { gc?: () => void }).gc
  if (typeof exposed === "function") return { gc: exposed, source: "--expose-gc" }
  setFlagsFromString("--expose-gc")
  const gc = runInNewContext("gc") as unknown
  if (typeof gc === "function") return { gc: gc as () => void, source: "v8.setFlagsFromString" }
  return { gc: () => undefined, source: "unavailable (readings include garbage)" }
}

/** Requests sent to (e) while its SQL statements are counted. */
const QUERY_CHECK_REQUESTS = 1000

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

async function settledMemory(gc: () => void): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    gc()
    await tick()
  }
  return process.memoryUsage()
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The value at fraction `q` of the sorted values (nearest rank). */
const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((x, y) => x - y)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))]!
}

/** How a set of per-round values spread: min, the middle half (25th-75th percentile), max. */
const spread = (values: readonly number[], digits: number): string =>
  `${quantile(values, 0).toFixed(digits)} [${quantile(values, 0.25).toFixed(digits)}-` +
  `${quantile(values, 0.75).toFixed(digits)}] ${quantile(values, 1).toFixed(digits)}`

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const signedMb = (bytes: number) => `${bytes >= 0 ? "+" : ""}${mb(bytes)}`
const pad = (text: string, width: number) => text.padEnd(width)
const padLeft = (text: string, width: number) => text.padStart(width)

/** What each case must answer before it is measured (status 200 always). */
function expectation(id: CaseId, email: string): { body: string; sessionCookie: boolean | undefined } {
  switch (id) {
    case "a":
      return { body: '"ok":true', sessionCookie: undefined }
    case "e":
      return { body: DATABASE_USER.email, sessionCookie: undefined }
    // A fresh cookie: GET /auth/session answers from the decrypted payload and re-issues nothing (issue 16).
    case "d":
      return { body: email, sessionCookie: false }
    case "f":
    case "g":
    case "k":
      return { body: "null", sessionCookie: false }
    case "h":
    case "i":
    case "j":
      return { body: '"url"', sessionCookie: true }
    default:
      return { body: email, sessionCookie: undefined }
  }
}

/** Checks each server answers 200 with the expected body before anything is measured. */
async function verify(servers: readonly BenchServer[], cookie: string, email: string): Promise<void> {
  for (const { id, url, headers, method, body } of servers) {
    const response = await fetch(url, {
      method: method ?? "GET",
      headers: headers ?? { cookie, accept: "application/json" },
      ...(body !== undefined ? { body } : {}),
    })
    const text = await response.text()
    const expected = expectation(id, email)
    if (response.status !== 200 || !text.includes(expected.body)) {
      throw new Error(`case (${id}) ${url} answered ${response.status} ${text.slice(0, 200)}`)
    }
    const setsSession = response.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE_NAME}=`))
    if (expected.sessionCookie !== undefined && setsSession !== expected.sessionCookie) {
      throw new Error(`case (${id}) ${setsSession ? "set" : "did not set"} the session cookie`)
    }
  }
}

async function main(): Promise<void> {
  const settings = readSettings()
  const { gc, source: gcSource } = collector()
  const user = { sub: "user-1", name: "Bench User", email: "bench@example.com" }
  const { encode } = (await loadPackage()).jwt
  const jwe = await encode({ token: user, secret: SECRET, salt: COOKIE_NAME })
  const cookie = `${COOKIE_NAME}=${jwe}`
  const headers = { cookie, accept: "application/json" }

  const servers = await startServers()
  const database = await startDatabaseCase()
  const db: DatabaseCase | undefined = "skipped" in database ? undefined : database
  if (db) servers.push({ id: "e", label: db.label, url: db.url, server: db.server, headers: db.headers })
  const byId = new Map<CaseId, BenchServer>(servers.map((s) => [s.id, s]))
  const server = (id: CaseId): BenchServer => byId.get(id)!
  await verify(servers, cookie, user.email)

  console.log("Gatehouse benchmark")
  console.log(
    `node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  )
  console.log(
    `autocannon ${settings.loadgen === "child" ? "in a child process" : "in this process"}, ` +
      `${settings.connections} connections, pipelining ${settings.pipelining}, ` +
      `${settings.duration} s per run (warm-up ${settings.warmup} s), ${settings.rounds} rounds; ` +
      `${settings.amount} requests per memory run; GC: ${gcSource}${settings.quick ? "; QUICK" : ""}`,
  )
  if ("skipped" in database) {
    console.log(`!!! (e) database sessions SKIPPED: ${database.skipped}; start it with:`)
    console.log("!!!     pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start")
  }
  console.log()

  const load = (id: CaseId, extra: { duration?: number; amount?: number }) =>
    runLoad(settings.loadgen, {
      url: server(id).url,
      headers: server(id).headers ?? headers,
      ...(server(id).method ? { method: server(id).method } : {}),
      ...(server(id).body !== undefined ? { body: server(id).body } : {}),
      connections: settings.connections,
      pipelining: settings.pipelining,
      ...extra,
    })

  // Each target's two cases run back to back (c/a, d/c, d/b, f/g, h/i), so a change in the machine's speed between
  // runs touches a ratio as little as it can; alternate rounds reverse the order, so the neighbours stay.
  const http: CaseId[] = ["a", "c", "d", "b", "f", "g", "k", "h", "i", "j"]
  const all: CaseId[] = db ? [...http, "e"] : http
  // BENCH_CASES=f,g runs only those cases (and only the ratios, checks and memory runs they make up).
  const only = process.env.BENCH_CASES?.split(",").map((c) => c.trim())
  const order: CaseId[] = only ? all.filter((id) => only.includes(id)) : all
  const has = (id: CaseId) => order.includes(id)
  const runs = new Map<CaseId, LoadResult[]>(order.map((id) => [id, []]))
  // Server CPU (user + system, this process) per answered request of each timed run: in child mode the load generator
  // is another process, so this is what the servers spent, whatever the client's share of the cores.
  const cpu = new Map<CaseId, number[]>(order.map((id) => [id, []]))
  const measureCpu = settings.loadgen === "child"
  // Statements and requests of (e) over its timed runs, a cross-check of the dedicated count below.
  const timed = { queries: 0, requests: 0 }

  for (const id of order) await load(id, { duration: settings.warmup })
  for (let round = 1; round <= settings.rounds; round++) {
    // Alternate the order between rounds so no case always runs right after the same neighbour.
    const sequence = round % 2 === 1 ? order : [...order].reverse()
    for (const id of sequence) {
      const before = db?.queries() ?? 0
      const cpuBefore = process.cpuUsage()
      const result = await load(id, { duration: settings.duration })
      const spent = process.cpuUsage(cpuBefore)
      cpu.get(id)!.push((spent.user + spent.system) / Math.max(result.total, 1))
      if (id === "e") {
        timed.queries += db!.queries() - before
        timed.requests += result.total
      }
      runs.get(id)!.push(result)
    }
    const line = order.map((id) => `${id} ${Math.round(runs.get(id)!.at(-1)!.rps)}`).join(", ")
    process.stderr.write(`  round ${round}/${settings.rounds} (req/s): ${line}\n`)
  }

  // Every line with a target, for the table at the end (the targets of the performance issues, in one place).
  const summary: { name: string; value: string; target: string; pass: boolean }[] = []
  const medians = new Map<CaseId, number>()
  console.log(
    `${pad("case", 40)}${padLeft("median req/s", 14)}${padLeft("min", 9)}${padLeft("max", 9)}  non-2xx/errors  ` +
      `${measureCpu ? "server CPU µs/req  " : ""}runs: min [middle half] max`,
  )
  for (const id of order) {
    const results = runs.get(id)!
    const rps = results.map((r) => r.rps)
    const med = median(rps)
    medians.set(id, med)
    const bad = results.reduce((sum, r) => sum + r.non2xx, 0)
    const errors = results.reduce((sum, r) => sum + r.errors, 0)
    console.log(
      `${pad(`(${id}) ${server(id).label}`, 40)}${padLeft(Math.round(med).toString(), 14)}` +
        `${padLeft(Math.round(Math.min(...rps)).toString(), 9)}${padLeft(Math.round(Math.max(...rps)).toString(), 9)}` +
        `  ${pad(`${bad}/${errors}`, 14)}  ${measureCpu ? pad(Math.round(median(cpu.get(id)!)).toString(), 19) : ""}` +
        `${spread(rps, 0)}`,
    )
  }
  console.log()

  // The headline ratio is the median of the per-round ratios: the two cases of a target run back to back in one round,
  // so a change in background load between rounds cancels out. The ratio of the medians is printed beside it.
  const perRound = (x: CaseId, y: CaseId) => runs.get(x)!.map((r, i) => r.rps / runs.get(y)![i]!.rps)
  // The same ratio from server CPU per request: the floor's cost over the case's, round by round (higher is faster).
  const perRoundCpu = (x: CaseId, y: CaseId) => cpu.get(y)!.map((c, i) => c / cpu.get(x)![i]!)
  const verdict = (value: number, target: number | undefined) =>
    target === undefined ? "(no target)" : `target >= ${target.toFixed(2)}  ${value >= target ? "PASS" : "MISS"}`
  const ratios: { name: string; x: CaseId; y: CaseId; target?: number }[] = [
    { name: "c/a  requireAuth vs bare", x: "c", y: "a", target: 0.8 },
    { name: "c/b  requireAuth vs floor", x: "c", y: "b" },
    { name: "d/b  /auth/session vs floor", x: "d", y: "b", target: 0.9 },
    { name: "d/c  /auth/session vs requireAuth", x: "d", y: "c", target: 0.9 },
    { name: "f/g  anonymous /session vs floor", x: "f", y: "g", target: 0.9 },
    { name: "f/k  anonymous vs base-cookie floor", x: "f", y: "k" },
    { name: "h/i  credentials sign-in vs floor", x: "h", y: "i", target: 1.3 },
    { name: "j/i  one jose encrypt, no checks", x: "j", y: "i" },
    ...(db
      ? [
          { name: "e/a  DB-session route vs bare", x: "e" as const, y: "a" as const },
          { name: "e/c  DB-session vs JWT route", x: "e" as const, y: "c" as const },
        ]
      : []),
  ]
  const shown = ratios.filter((r) => has(r.x) && has(r.y))
  // "0.00 [0.00-0.00] 0.00" and a space before the next column.
  const roundsWidth = 24
  console.log(
    `${pad("ratio", 36)}${padLeft("median", 7)}   ${pad("target", 27)}${pad("per round", roundsWidth)}${pad("of medians", 12)}` +
      `${measureCpu ? "by server CPU: median, per round" : ""}`,
  )
  for (const r of shown) {
    const rounds = perRound(r.x, r.y)
    const value = median(rounds)
    if (r.target !== undefined)
      summary.push({ name: r.name, value: value.toFixed(3), target: `>= ${r.target}`, pass: value >= r.target })
    const ofMedians = medians.get(r.x)! / medians.get(r.y)!
    const byCpu = perRoundCpu(r.x, r.y)
    console.log(
      `${pad(r.name, 36)}${padLeft(value.toFixed(3), 7)}   ${pad(verdict(value, r.target), 27)}` +
        `${pad(spread(rounds, 2), roundsWidth)}${pad(ofMedians.toFixed(3), 12)}` +
        (measureCpu ? `${median(byCpu).toFixed(3)}  ${spread(byCpu, 2)}` : ""),
    )
  }
  console.log()

  if (db && has("e")) {
    // Exactly `amount` requests, nothing else touching the pool meanwhile: statements sent / requests answered.
    const before = db.queries()
    const checked = await load("e", { amount: QUERY_CHECK_REQUESTS })
    const perCheck = (db.queries() - before) / checked.total
    summary.push({
      name: "(e) SQL queries per session check",
      value: perCheck.toFixed(3),
      target: "<= 1",
      pass: perCheck <= 1,
    })
    console.log(
      `${pad("(e) SQL queries per session check", 40)}${perCheck.toFixed(3)}   target 1  ` +
        `${perCheck <= 1 ? "PASS" : "MISS"}   (${db.queries() - before} queries / ${checked.total} requests, ` +
        `${checked.non2xx} non-2xx; timed runs: ${(timed.queries / Math.max(timed.requests, 1)).toFixed(3)})`,
    )
    console.log()
  }

  // Memory: (a) first, then (c), each between GC'd readings of this process (the servers; in child mode the load
  // generator's memory is not in it).
  const memoryRun = async (id: CaseId) => {
    const before = await settledMemory(gc)
    const result = await load(id, { amount: settings.amount })
    const after = await settledMemory(gc)
    return { before, after, result }
  }
  if (has("a") && has("c")) {
    const bare = await memoryRun("a")
    const prot = await memoryRun("c")
    const growthA = bare.after.rss - bare.before.rss
    const growthC = prot.after.rss - prot.before.rss
    console.log(`memory over ${settings.amount} requests (RSS after GC; heapUsed in brackets)`)
    for (const [id, run, growth] of [
      ["a", bare, growthA],
      ["c", prot, growthC],
    ] as const) {
      const heap = run.after.heapUsed - run.before.heapUsed
      console.log(
        `${pad(`(${id}) ${server(id).label}`, 40)} ${padLeft(mb(run.before.rss), 9)} -> ${padLeft(mb(run.after.rss), 9)}` +
          `  growth ${padLeft(signedMb(growth), 9)}  [heap ${signedMb(heap)}]` +
          `  ${run.result.total} done, ${run.result.non2xx} non-2xx, ${run.result.errors} errors`,
      )
    }
    const excess = growthC - growthA
    summary.push({
      name: "memory: (c) growth - (a) growth",
      value: signedMb(excess),
      target: "<= 5.0 MB",
      pass: excess <= 5 * 1024 * 1024,
    })
    console.log(
      `${pad("(c) growth - (a) growth", 40)} ${signedMb(excess)}   target <= 5.0 MB  ${excess <= 5 * 1024 * 1024 ? "PASS" : "MISS"}`,
    )
  }
  console.log(
    `load average at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  )

  stopLoadgen()
  await stopServers(servers)
  await db?.stop()
  console.log()

  // JWT helpers in this process, nothing else running: Gatehouse against jose with a key derived once.
  console.log(`JWT helpers, ops/s (${settings.jwtRounds} alternated rounds of ${settings.jwtMs} ms)`)
  const jwtTargets: Record<string, number> = { decode: 3.0, encode: 3.0 }
  const ops = await jwtOps(settings.jwtMs, settings.jwtRounds)
  for (const op of ops) {
    const ratios = op.ours.map((v, i) => v / op.floor[i]!)
    const value = median(ratios)
    const [ours, floor] = op.labels
    const target = jwtTargets[op.name]
    if (target !== undefined)
      summary.push({
        name: `JWT ${op.name} vs jose`,
        value: value.toFixed(3),
        target: `>= ${target}`,
        pass: value >= target,
      })
    console.log(
      `${pad(`${op.name}: ${ours} ${Math.round(median(op.ours))} / ${floor} ${Math.round(median(op.floor))}`, 60)}` +
        `${padLeft(value.toFixed(3), 7)}   ${pad(verdict(value, target), 27)}` +
        `rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`,
    )
  }
  console.log()

  const cold = await coldStart(settings.coldRuns)
  const ex = median(cold.express)
  const gh = median(cold.gatehouse)
  const extra = gh - ex
  console.log(`cold start, median of ${settings.coldRuns} fresh processes (import time, process start-up excluded)`)
  console.log(
    `${pad(`import("gatehouse-auth") ${gh.toFixed(1)} ms - import("express") ${ex.toFixed(1)} ms`, 60)}` +
      `${padLeft(`${extra >= 0 ? "+" : ""}${extra.toFixed(1)} ms`, 9)}   target <= +60 ms  ${extra <= 60 ? "PASS" : "MISS"}`,
  )
  summary.push({
    name: "cold start: gatehouse-auth - express",
    value: `${extra >= 0 ? "+" : ""}${extra.toFixed(1)} ms`,
    target: "<= +60 ms",
    pass: extra <= 60,
  })
  summary.push({
    name: "entries or drivers loaded by the main entry",
    value: String(cold.eagerModules.length),
    target: "0",
    pass: cold.eagerModules.length === 0,
  })
  console.log(
    `${pad("provider/adapter entries or drivers loaded by the main entry", 60)}` +
      `${padLeft(String(cold.eagerModules.length), 9)}   target 0  ${cold.eagerModules.length === 0 ? "PASS" : "MISS"}` +
      (cold.eagerModules.length ? `  ${cold.eagerModules.join(", ")}` : ""),
  )
  console.log()

  // The targets in one table, in the order of bench/README.md; a line not measured in this run (BENCH_CASES) is absent.
  const passed = summary.filter((line) => line.pass).length
  console.log(`targets: ${passed} of ${summary.length} PASS`)
  for (const line of summary) {
    console.log(
      `${pad(line.name, 44)}${padLeft(line.value, 10)}   ${pad(line.target, 12)}${line.pass ? "PASS" : "MISS"}`,
    )
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
