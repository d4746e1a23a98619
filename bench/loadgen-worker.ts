/**
 * The benchmark's load generator process (bench/loadgen.ts starts it): autocannon runs here, one load test at a time,
 * each asked for by a JSON line on stdin (`{ id, options }`) and answered by one on stdout (`{ id, summary }` or
 * `{ id, error }`). One process serves every run, so a run costs no process start-up and runs can be short.
 */
import { createInterface } from "node:readline"
import autocannon from "autocannon"

interface Job {
  id: number
  options: autocannon.Options
}

const queue: Job[] = []
let busy = false

async function next(): Promise<void> {
  if (busy) return
  const job = queue.shift()
  if (!job) return
  busy = true
  try {
    const summary = await autocannon(job.options)
    process.stdout.write(`${JSON.stringify({ id: job.id, summary })}\n`)
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: job.id, error: String(error) })}\n`)
  }
  busy = false
  void next()
}

createInterface({ input: process.stdin }).on("line", (line) => {
  queue.push(JSON.parse(line) as Job)
  void next()
})
