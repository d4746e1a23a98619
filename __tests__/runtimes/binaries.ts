// Where the tests find Bun and Deno: installed from the npm registry by `npm run runtimes:install` (what .ci/run
// does), or on PATH.
import { accessSync, constants } from "node:fs"
import { delimiter, join, resolve } from "node:path"

/** The folder `npm run runtimes:install` installs the runtimes into. */
export const RUNTIMES_PREFIX = resolve(__dirname, "../../node_modules/.cache/runtimes")

export type Runtime = "bun" | "deno"

const installed: Record<Runtime, string> = {
  bun: join(RUNTIMES_PREFIX, "node_modules/@oven/bun-linux-x64/bin/bun"),
  deno: join(RUNTIMES_PREFIX, "node_modules/@deno/linux-x64-glibc/deno"),
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The runtime's executable: the installed one, else the first on PATH; undefined when there is none. */
export function runtimeBinary(runtime: Runtime): string | undefined {
  if (executable(installed[runtime])) return installed[runtime]
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && executable(join(dir, runtime))) return join(dir, runtime)
  }
  return undefined
}

/** Why the suites cannot run on `runtime`, or undefined when they can. */
export function runtimeProblem(runtime: Runtime): string | undefined {
  if (runtimeBinary(runtime) !== undefined) return undefined
  return `${runtime} is not installed; install it with: npm run runtimes:install (Linux x64), or put ${runtime} on PATH`
}
