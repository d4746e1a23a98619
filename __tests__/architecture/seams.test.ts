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
    expect(filesMatching(/\bissueSession\(/)).toEqual(["core/actions/finish-sign-in.ts", "core/session/issue.ts"])
  })

  it("no per-action CSRF checks: the router enforces the route table's rule", () => {
    expect(filesMatching(/\.csrfVerified\b/)).toEqual(["core/context.ts", "core/invoke.ts", "core/router.ts"])
  })

  it("no `adapter as ...` casts: the core uses the feature views of the resolved config", () => {
    expect(filesMatching(/\badapter as\b/)).toEqual([])
    expect(filesMatching(/config\.adapter\b/)).toEqual(["core/config/resolve.ts"])
  })

  it("the OAuth engine's and the session layer's contexts are built in core/context.ts", () => {
    expect(filesMatching(/export function (sessionContext|oauthFlowContext)\(/)).toEqual(["core/context.ts"])
  })

  it("one room for the security primitives: constant-time comparison lives in core/secrets.ts", () => {
    expect(filesMatching(/\btimingSafeEqual\b/).filter((f) => f.startsWith("core/"))).toEqual(["core/secrets.ts"])
    expect(filesMatching(/\bkeyedHash\(/)).toEqual(["core/csrf.ts", "core/secrets.ts"])
  })

  it("one session JWE step: AES-CBC lives in jwt/jwe.ts only", () => {
    expect(filesMatching(/aes-256-cbc/)).toEqual(["jwt/jwe.ts"])
  })

  it("@auth/core is a test oracle only: never imported by lib/, never a runtime or peer dependency", () => {
    expect(filesMatching(/["']@auth\/core/)).toEqual([])
    const pkg = JSON.parse(readFileSync(resolve(LIB, "../package.json"), "utf8")) as Record<string, object | undefined>
    expect(Object.keys(pkg.dependencies ?? {})).not.toContain("@auth/core")
    expect(Object.keys(pkg.peerDependencies ?? {})).not.toContain("@auth/core")
    expect(Object.keys(pkg.devDependencies ?? {})).toContain("@auth/core")
  })
})
