/**
 * Drives load with autocannon, either in a child process (the default: the load generator gets its own event loop
 * and its own core; one process for every run, bench/loadgen-worker.ts) or in this process (`BENCH_LOADGEN=inprocess`).
 */
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { createInterface } from "node:readline"
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

// The load generator process: started on the first run and kept for every later one, so a run pays no process start-up
// (about 0.4 s of node and autocannon loading on a 2-core VM) and runs can be short enough to alternate two cases
// many times. It keeps the benchmark alive only while a run is pending.
// `npm run bench` runs from the package root; resolving from there works whether tsx loads this file as CJS or ESM.
const WORKER = resolve(process.cwd(), "bench", "loadgen-worker.ts")

interface Worker {
  child: ChildProcess
  pending: Map<number, { resolve: (result: LoadResult) => void; reject: (error: Error) => void }>
  nextId: number
}

let worker: Worker | undefined

function startWorker(): Worker {
  if (!existsSync(WORKER)) throw new Error(`load generator not found at ${WORKER}; run from the project root`)
  const child = spawn(process.execPath, ["--import", "tsx", WORKER], { stdio: ["pipe", "pipe", "pipe"] })
  const started: Worker = { child, pending: new Map(), nextId: 1 }
  let stderr = ""
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  createInterface({ input: child.stdout! }).on("line", (line) => {
    let message: { id: number; summary?: unknown; error?: string }
    try {
      message = JSON.parse(line) as typeof message
    } catch {
      return // not an answer (a warning the runtime printed): answers are whole JSON lines
    }
    const waiting = started.pending.get(message.id)
    if (!waiting) return
    started.pending.delete(message.id)
    if (started.pending.size === 0) hold(started, false)
    if (message.error !== undefined) waiting.reject(new Error(`autocannon failed: ${message.error}`))
    else if (!isSummary(message.summary))
      waiting.reject(new Error(`unexpected autocannon result: ${line.slice(0, 200)}`))
    else waiting.resolve(toResult(message.summary))
  })
  child.on("exit", (code) => {
    if (worker === started) worker = undefined
    for (const waiting of started.pending.values())
      waiting.reject(new Error(`the load generator exited (${code}): ${stderr.trim().slice(-2000)}`))
    started.pending.clear()
  })
  hold(started, false)
  return started
}

/** Whether the worker keeps this process alive: only while a run is pending, so an idle worker never does. */
function hold(target: Worker, on: boolean): void {
  // The pipes are sockets (`ref`/`unref` exist on them at run time; the stream types do not declare them).
  const pipes = [target.child.stdin, target.child.stdout, target.child.stderr] as unknown as {
    ref(): void
    unref(): void
  }[]
  for (const handle of [target.child, ...pipes]) {
    if (on) handle.ref()
    else handle.unref()
  }
}

function runChild(options: LoadOptions): Promise<LoadResult> {
  let current: Worker
  try {
    current = worker ??= startWorker()
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)))
  }
  const id = current.nextId++
  return new Promise((resolvePromise, reject) => {
    current.pending.set(id, { resolve: resolvePromise, reject })
    hold(current, true)
    current.child.stdin!.write(`${JSON.stringify({ id, options: autocannonOptions(options) })}\n`)
  })
}

/** Stops the load generator process, if one was started (the benchmark's servers can then close promptly). */
export function stopLoadgen(): void {
  worker?.child.kill()
  worker = undefined
}

/** The options autocannon is given, in either mode. */
function autocannonOptions(options: LoadOptions): autocannon.Options {
  return {
    url: options.url,
    headers: options.headers,
    ...(options.method ? { method: options.method } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    connections: options.connections,
    pipelining: options.pipelining,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.duration ?? 5 }),
  }
}

async function runInProcess(options: LoadOptions): Promise<LoadResult> {
  return toResult(await autocannon(autocannonOptions(options)))
}

/** Runs one load test against `options.url`. */
export function runLoad(mode: LoadgenMode, options: LoadOptions): Promise<LoadResult> {
  return mode === "child" ? runChild(options) : runInProcess(options)
}
