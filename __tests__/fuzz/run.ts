/**
 * `npm run fuzz`: the fuzz properties of the jest slice at scale, with a random seed (or `FUZZ_SEED`). Runs
 * `FUZZ_CASES` cases in total (default 1,000,000): `FUZZ_HTTP_SHARE` (default 0.25) of them over HTTP, four fifths
 * through Auth() and one fifth through Express over loopback HTTP; `FUZZ_PATH_SHARE` (default 0.005) as request targets
 * for the deny rule's path property (each sent to eight Express apps); the rest over the parsers by weight. Prints the
 * seed, the count per property and any failing case, minimised; exits 1 on a failure.
 */
import fc from "fast-check"
import { createFuzzApp, runCoreCase, runExpressCase, startExpressTarget } from "./http-target"
import { parserProperties } from "./parsers"
import { checkPathCase, startPathTargets, stopPathTargets, targetArb } from "./paths"

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31)
const total = Number(process.env.FUZZ_CASES ?? 1_000_000)
const httpShare = Number(process.env.FUZZ_HTTP_SHARE ?? 0.25)
const pathShare = Number(process.env.FUZZ_PATH_SHARE ?? 0.005)

interface Outcome {
  name: string
  runs: number
  failed: boolean
  report?: string
  ms: number
}

async function check(name: string, property: fc.IAsyncProperty<[unknown]> | fc.IProperty<[unknown]>, runs: number) {
  const started = Date.now()
  const details = await fc.check(property as fc.IAsyncProperty<[unknown]>, { seed, numRuns: runs })
  const outcome: Outcome = { name, runs: details.numRuns, failed: details.failed, ms: Date.now() - started }
  if (details.failed) {
    outcome.report = [
      `  counterexample: ${fc.stringify(details.counterexample)}`,
      `  shrunk ${details.numShrinks} times; replay with FUZZ_SEED=${seed} (path ${details.counterexamplePath})`,
      `  error: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
    ].join("\n")
  }
  const line = `${outcome.failed ? "FAIL" : "ok  "} ${String(outcome.runs).padStart(9)} cases ${`${(outcome.ms / 1000).toFixed(1)}s`.padStart(7)}  ${name}`
  console.log(line)
  if (outcome.report) console.log(outcome.report)
  return outcome
}

async function main(): Promise<void> {
  console.log(`fuzz: seed ${seed}, ${total.toLocaleString("en-US")} cases, ${httpShare * 100}% over HTTP`)
  const rejections: unknown[] = []
  process.on("unhandledRejection", (reason) => rejections.push(reason))
  const outcomes: Outcome[] = []

  const app = await createFuzzApp()
  const coreRuns = Math.round(total * httpShare * 0.8)
  const expressRuns = Math.round(total * httpShare * 0.2)
  outcomes.push(
    await check(
      "HTTP through Auth()",
      fc.asyncProperty(app.arbitrary, (req) => runCoreCase(app, req)) as never,
      coreRuns,
    ),
  )
  const target = await startExpressTarget(app)
  try {
    outcomes.push(
      await check(
        "HTTP through Express (loopback)",
        fc.asyncProperty(app.arbitrary, (req) => runExpressCase(app, target, req)) as never,
        expressRuns,
      ),
    )
  } finally {
    await target.close()
  }
  const pathRuns = Math.round(total * pathShare)
  const pathTargets = await startPathTargets()
  try {
    outcomes.push(
      await check(
        "authorized decides on the path Express routes",
        fc.asyncProperty(targetArb, (target) => checkPathCase(pathTargets, target)) as never,
        pathRuns,
      ),
    )
  } finally {
    await stopPathTargets(pathTargets)
  }
  const parsers = parserProperties()
  const weights = parsers.reduce((sum, p) => sum + p.weight, 0)
  const parserTotal = total - coreRuns - expressRuns - pathRuns
  for (const p of parsers) {
    outcomes.push(await check(p.name, p.property(), Math.ceil((parserTotal * p.weight) / weights)))
  }

  const cases = outcomes.reduce((sum, o) => sum + o.runs, 0)
  const failed = outcomes.filter((o) => o.failed)
  const { totals } = app.observed
  console.log(
    `fuzz: seed ${seed}: ${cases.toLocaleString("en-US")} cases, ${failed.length} failing properties, ` +
      `${rejections.length} unhandled rejections; HTTP answers by status ${JSON.stringify(totals.byStatus)}, ` +
      `${totals.signIns} sign-ins, ${totals.emails} emails`,
  )
  if (failed.length > 0 || rejections.length > 0) process.exitCode = 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
