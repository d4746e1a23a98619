// The packed package on Node, Bun and Deno: the runtime-consumer app (gatehouse-auth/web with JWT sessions, then
// database sessions on the SQLite adapter given a file path) run by each runtime as its users run it. On Deno the
// permissions are scoped: the variables the README lists, reads in the app, writes in its data folder.
import { spawnSync } from "node:child_process"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { describeUnless } from "../adapters/services"
import { runtimeBinary, runtimeProblem } from "../runtimes/binaries"

const runtimes = {
  node: () => [process.execPath, "app.mjs"],
  bun: () => [runtimeBinary("bun")!, "app.mjs"],
  deno: (app: string) => [
    runtimeBinary("deno")!,
    "run",
    "--allow-env=AUTH_SECRET,AUTH_URL,AUTH_TRUST_HOST,NODE_ENV",
    `--allow-read=${app}`,
    `--allow-write=${join(app, ".data")}`,
    "app.mjs",
  ],
} as const

/**
 * One test per runtime; `install` copies the fixture app with the unpacked package into the work folder (once) and
 * answers its folder.
 */
export function runtimeConsumerCases(install: () => string): void {
  let app: string | undefined
  for (const [runtime, command] of Object.entries(runtimes)) {
    const problem = runtime === "node" ? undefined : runtimeProblem(runtime as "bun" | "deno")
    describeUnless(problem, runtime, `the packed package on ${runtime}`, () => {
      it("signs in and out with JWT sessions and with SQLite database sessions, every step as on Node", () => {
        app ??= install()
        rmSync(join(app, ".data"), { recursive: true, force: true })
        const [binary, ...args] = command(app)
        const result = spawnSync(binary!, args, {
          cwd: app,
          encoding: "utf8",
          timeout: 120_000,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            AUTH_SECRET: "a-runtime-consumer-secret-of-32-characters-or-more",
            AUTH_TRUST_HOST: "true",
          },
        })
        expect({
          status: result.status,
          notOk: result.stdout.match(/^not ok .*$/gm),
          stderr: result.status === 0 ? "" : `${result.stdout}\n${result.stderr}`,
        }).toEqual({ status: 0, notOk: null, stderr: "" })
        expect(result.stdout).toMatch(/^16 passed, 0 failed$/m)
        expect(result.stdout).toContain(`ok ${runtime} sqlite: the session row lives in the SQLite file`)
      }, 180_000)
    })
  }
}
