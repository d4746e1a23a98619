// Structural guards for the seams the foundation issue put in place: each rule is one grep over lib/, or, for the
// security primitives, a search by binding (an alias or a renamed import does not hide a use).
import { readFileSync, readdirSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import type ts from "typescript"
import { filesUsing, programOf } from "./bindings"
import { sourceFiles } from "./graph"

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

let program: ts.Program | undefined
/** Files (relative to lib/) that use what `name` is bound to in `file` (relative to lib/), under any local name. */
function filesUsingBinding(file: string, name: string): string[] {
  program ??= programOf(sourceFiles(LIB))
  return filesUsing(program, LIB, join(LIB, file), name)
}

describe("seams", () => {
  it("the walker sees the code (control: issueSession is defined)", () => {
    expect(filesMatching(/export async function issueSession\(/)).toEqual(["core/session/issue.ts"])
  })

  it("one sign-in finisher: only finishSignIn issues a session (and impersonation, which is not a sign-in)", () => {
    // Impersonation (accounts.md §3.5) runs no signIn callback or event; the admin checks run before it.
    expect(filesMatching(/\bissueSession\(/)).toEqual([
      "core/session/finish-sign-in.ts",
      "core/session/impersonation.ts",
      "core/session/issue.ts",
    ])
  })

  it("no per-action CSRF checks: the router enforces the route table's rule", () => {
    expect(filesMatching(/\.csrfVerified\b/)).toEqual(["core/pipeline/router.ts"])
  })

  it("no `adapter as ...` casts: the core uses the feature views of the resolved config", () => {
    expect(filesMatching(/\badapter as\b/)).toEqual([])
    expect(filesMatching(/config\.adapter\b/)).toEqual(["core/kernel/config/resolve.ts"])
  })

  it("the session layer's and the OAuth engine's views of a request are built in one place each", () => {
    expect(filesMatching(/export function sessionContext\(/)).toEqual(["core/session/context.ts"])
    expect(filesMatching(/export function oauthFlowContext\(/)).toEqual(["core/methods/oauth/flow-context.ts"])
  })

  it("one door: only core/session/ reads the session cookie, and only the door decodes it", () => {
    // The session cookie is read by name (`cookies.sessionToken.name`) through `readSessionCookie`.
    const readers = filesMatching(/readSessionCookie\([^)]*sessionToken/)
    expect(readers.length).toBeGreaterThan(0)
    expect(readers.filter((file) => !file.startsWith("core/session/"))).toEqual([])
    // Decoding a session token (the config's decoder or the built-in one) happens in the door alone.
    expect(filesMatching(/\.jwt\.decode\(|\bdecodeOrThrow\(/).filter((f) => f.startsWith("core/"))).toEqual([
      "core/session/principal.ts",
    ])
  })

  it("the edges never read the session cookie or decode a token themselves", () => {
    const edges = sources().filter(({ file }) => file.startsWith("express/") || file.startsWith("web/"))
    expect(edges.length).toBeGreaterThan(0)
    for (const { file, text } of edges) {
      expect([file, /readSessionCookie|jwt\.decode\(|decodeOrThrow/.test(text)]).toEqual([file, false])
    }
  })

  it("a trusted server call is marked by the pipeline's server calls alone, never by a request", () => {
    expect(filesMatching(/\btrustedCall\(\)/)).toEqual(["core/kernel/context.ts", "core/pipeline/invoke.ts"])
  })

  it("one room for the security primitives: constant-time comparison lives in core/secrets.ts", () => {
    expect(filesUsingBinding("core/kernel/secrets.ts", "timingSafeEqual").filter((f) => f.startsWith("core/"))).toEqual(
      ["core/kernel/secrets.ts"],
    )
    // The Auth.js keyed hash (`sha256(value + secret)`): CSRF tokens, mailed tokens and their used-link marks, and
    // the password links. Found by binding: `const hashToken = keyedHash` is a use too.
    expect(filesUsingBinding("core/kernel/secrets.ts", "keyedHash")).toEqual([
      "core/kernel/csrf.ts",
      "core/methods/email/email.ts",
      "core/methods/email/used-links.ts",
      "core/methods/password/tokens.ts",
    ])
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
