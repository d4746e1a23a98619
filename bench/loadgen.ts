/**
 * Drives load with autocannon, either in a child process (the default: the load generator gets its own event loop
 * and its own core) or in this process (`BENCH_LOADGEN=inprocess`).
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import autocannon from "autocannon"

export type LoadgenMode = "child" | "inprocess"

export interface LoadOptions {
  url: string
  headers: Record<string, string>
  /** HTTP method (default GET). */
  method?: "GET" | "POST"
  /** Request body, sent with every request. */
  body?: string
  connections: number
  pipelining: number
  /** Seconds to run; ignored when `amount` is set. */
  duration?: number
  /** Number of requests to send, then stop. */
  amount?: number
}

export interface LoadResult {
  /** Completed requests per second over the whole run. */
  rps: number
  total: number
  seconds: number
  non2xx: number
  errors: number
  /** 99th percentile latency in milliseconds (autocannon's histogram). */
  p99: number
}

/** The fields of autocannon's result (programmatic or `--json`) the benchmark reads. */
interface AutocannonSummary {
  requests: { total: number }
  duration: number
  non2xx: number
  errors: number
  latency?: { p99?: number }
}

function isSummary(value: unknown): value is AutocannonSummary {
  if (value === null || typeof value !== "object") return false
  const v = value as Record<string, unknown>
  const requests = v.requests as Record<string, unknown> | undefined
  return (
    typeof requests === "object" &&
    requests !== null &&
    typeof requests.total === "number" &&
    typeof v.duration === "number" &&
    typeof v.non2xx === "number" &&
    typeof v.errors === "number"
  )
}

function toResult(summary: AutocannonSummary): LoadResult {
  const seconds = summary.duration
  const total = summary.requests.total
  const p99 = summary.latency?.p99 ?? Number.NaN
  return { rps: seconds > 0 ? total / seconds : 0, total, seconds, non2xx: summary.non2xx, errors: summary.errors, p99 }
}

// `npm run bench` runs from the package root; resolving from there works whether tsx loads this file as CJS or ESM.
const CLI = resolve(process.cwd(), "node_modules", "autocannon", "autocannon.js")

function runChild(options: LoadOptions): Promise<LoadResult> {
  if (!existsSync(CLI))
    return Promise.reject(new Error(`autocannon CLI not found at ${CLI}; run from the project root`))
  const args = [CLI, "--json", "--no-progress", "-c", String(options.connections), "-p", String(options.pipelining)]
  if (options.method) args.push("-m", options.method)
  if (options.body !== undefined) args.push("-b", options.body)
  if (options.amount !== undefined) args.push("-a", String(options.amount))
  else args.push("-d", String(options.duration ?? 5))
  for (const [name, value] of Object.entries(options.headers)) args.push("-H", `${name}=${value}`)
  args.push(options.url)

  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => {
      if (code !== 0) {
        reject(new Error(`autocannon exited with ${code}: ${stderr.trim()}`))
        return
      }
      try {
        const parsed: unknown = JSON.parse(stdout)
        if (!isSummary(parsed)) throw new Error("unexpected autocannon JSON")
        resolvePromise(toResult(parsed))
      } catch (error) {
        reject(new Error(`could not read autocannon output (${String(error)}): ${stdout.slice(0, 200)}`))
      }
    })
  })
}

async function runInProcess(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    headers: options.headers,
    ...(options.method ? { method: options.method } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    connections: options.connections,
    pipelining: options.pipelining,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.duration ?? 5 }),
  })
  return toResult(result)
}

/** Runs one load test against `options.url`. */
export function runLoad(mode: LoadgenMode, options: LoadOptions): Promise<LoadResult> {
  return mode === "child" ? runChild(options) : runInProcess(options)
}
