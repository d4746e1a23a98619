// Structural guards for the seams the foundation issue put in place: each rule is one grep over lib/.
import { readFileSync, readdirSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"

const LIB = resolve(__dirname, "../../lib")

function sources(dir = LIB): { file: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith(".ts") ? [{ file: relative(LIB, path), text: readFileSync(path, "utf8") }] : []
  })
}

/** Files (relative to lib/) whose code, comments aside, matches `pattern`. */
function filesMatching(pattern: RegExp): string[] {
  return sources()
    .filter(({ text }) => pattern.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")))
    .map(({ file }) => file)
    .sort()
}

describe("seams", () => {
  it("the walker sees the code (control: issueSession is defined)", () => {
    expect(filesMatching(/export async function issueSession\(/)).toEqual(["core/session/issue.ts"])
  })

  it("one sign-in finisher: only finishSignIn issues a session", () => {
    expect(filesMatching(/\bissueSession\(/)).toEqual(["core/session/finish-sign-in.ts", "core/session/issue.ts"])
  })

  it("no per-action CSRF checks: the router enforces the route table's rule", () => {
    expect(filesMatching(/\.csrfVerified\b/)).toEqual([
      "core/kernel/context.ts",
      "core/pipeline/invoke.ts",
      "core/pipeline/router.ts",
    ])
  })

  it("no `adapter as ...` casts: the core uses the feature views of the resolved config", () => {
    expect(filesMatching(/\badapter as\b/)).toEqual([])
    expect(filesMatching(/config\.adapter\b/)).toEqual(["core/kernel/config/resolve.ts"])
  })

  it("the OAuth engine's and the session layer's contexts are built in core/context.ts", () => {
    expect(filesMatching(/export function (sessionContext|oauthFlowContext)\(/)).toEqual(["core/kernel/context.ts"])
  })

  it("one room for the security primitives: constant-time comparison lives in core/secrets.ts", () => {
    expect(filesMatching(/\btimingSafeEqual\b/).filter((f) => f.startsWith("core/"))).toEqual([
      "core/kernel/secrets.ts",
    ])
    expect(filesMatching(/\bkeyedHash\(/)).toEqual(["core/kernel/csrf.ts", "core/kernel/secrets.ts"])
  })
})
