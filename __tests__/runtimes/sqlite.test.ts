// The adapter and key-value store contracts pass on Bun's own SQLite (bun:sqlite) and on Deno's (node:sqlite): the
// suites are bundled with a small jest-compatible harness and run by each runtime, with Deno's permissions scoped.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { buildSync } from "esbuild"
import { describeUnless } from "../adapters/services"
import { runtimeBinary, runtimeProblem } from "./binaries"
import type { Runtime } from "./binaries"

const work = mkdtempSync(join(tmpdir(), "gatehouse-runtimes-"))
const bundle = join(work, "sqlite-contract.cjs")

beforeAll(() => {
  // CommonJS: both runtimes run it as is, with `require` and `__filename` as the driver loader expects.
  buildSync({
    entryPoints: [resolve(__dirname, "sqlite-contract.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: bundle,
    external: ["better-sqlite3", "bun:sqlite", "node:sqlite"],
    logLevel: "error",
  })
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

const commands: Record<Runtime, (binary: string) => string[]> = {
  bun: (binary) => [binary, bundle],
  // The database files live in the OS temporary folder; nothing else may be written. The environment is open because
  // jest's `expect` reads several variables (CI, NODE_ENV, ...); the scoped `--allow-env` of an app is tested on the
  // packed package (__tests__/packaging/runtimes.ts).
  deno: (binary) => [binary, "run", "--allow-env", `--allow-read=${tmpdir()}`, `--allow-write=${tmpdir()}`, bundle],
}

for (const runtime of ["bun", "deno"] as const) {
  describeUnless(runtimeProblem(runtime), runtime, `SQLite contracts on ${runtime}`, () => {
    it("every case of the adapter and store contracts passes on the runtime's own SQLite", () => {
      const [command, ...args] = commands[runtime](runtimeBinary(runtime)!)
      const result = spawnSync(command!, args, { cwd: work, encoding: "utf8", timeout: 120_000, env: { PATH: "" } })
      const failures = result.stdout.split("\n").filter((line) => line.startsWith("not ok"))
      const summary = /^(\d+) passed, (\d+) failed$/m.exec(result.stdout)
      expect({ status: result.status, failures, stderr: result.status === 0 ? "" : result.stderr }).toEqual({
        status: 0,
        failures: [],
        stderr: "",
      })
      // Every case ran: the contracts have well over a hundred, and the driver check names this runtime's driver.
      expect(Number(summary?.[1])).toBeGreaterThan(100)
      expect(result.stdout).toMatch(
        new RegExp(`^ok \\d+ - SQLite on ${runtime === "bun" ? "bun:sqlite" : "node:sqlite"} > is the driver`, "m"),
      )
    }, 180_000)
  })
}
