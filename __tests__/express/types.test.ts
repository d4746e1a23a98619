// Compiles small apps with the TypeScript compiler: Gatehouse's Express augmentation next to @types/passport.
import path from "node:path"
import ts from "typescript"

const root = path.resolve(__dirname, "../..")
// Virtual sources live (in memory only) beside this file, so `express`, `passport` and lib/ resolve as in the repo.
const virtualDir = path.join(__dirname, "types", "__virtual__")
const augment = path.relative(virtualDir, path.join(root, "lib/express/augment")).split(path.sep).join("/")
const coreTypes = path.relative(virtualDir, path.join(root, "lib/core/kernel/types")).split(path.sep).join("/")

const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noEmit: true,
  verbatimModuleSyntax: true,
  esModuleInterop: true,
  // Library declarations are checked too: a clash between two merged declarations is reported there as well.
  skipLibCheck: false,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  types: ["node"],
  // `gatehouse-auth` is this repository, as an app that installed it sees it.
  baseUrl: root,
  paths: { "gatehouse-auth": ["lib/index.ts"] },
}

interface Diagnostic {
  file: string
  line: number
  code: number
  message: string
}

/** Type-checks `sources` (file name -> text, placed in the virtual folder) and returns every diagnostic. */
function compile(sources: Record<string, string>): Diagnostic[] {
  const files = new Map(Object.entries(sources).map(([name, text]) => [path.join(virtualDir, name), text]))
  const host = ts.createCompilerHost(options)
  const { getSourceFile, fileExists, readFile } = host
  host.fileExists = (file) => files.has(file) || fileExists.call(host, file)
  host.readFile = (file) => files.get(file) ?? readFile.call(host, file)
  host.getSourceFile = (file, language, onError, create) => {
    const text = files.get(file)
    if (text !== undefined) return ts.createSourceFile(file, text, language)
    return getSourceFile.call(host, file, language, onError, create)
  }
  const program = ts.createProgram([...files.keys()], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file ? path.relative(root, d.file.fileName) : "",
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    code: d.code,
    message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
  }))
}

const withPassport = (express: "express" | "express4") => `
import type { NextFunction, Request, Response } from "${express}"
import type { PassportStatic } from "passport"
import type { Session } from "${coreTypes}"
import "${augment}"

declare const passport: PassportStatic

export function handler(req: Request, res: Response, next: NextFunction): void {
  const user: Express.User | undefined = req.user
  const auth: Session | null | undefined = req.auth
  const locals: Session | null | undefined = res.locals.session
  void [user, auth, locals, passport.initialize()]
  if (req.isAuthenticated()) {
    const email: string | null | undefined = req.user.email
    const expires: string = req.auth.expires
    res.json({ email, expires, info: req.authInfo })
    return
  }
  if (req.isUnauthenticated()) {
    const none: undefined = req.user
    void none
  }
  req.login({ id: "1", email: "ann@example.com" }, (err) => next(err))
  req.logout((err) => next(err))
}
`

describe("Express type augmentation", () => {
  // Each compilation loads @types/node, express and passport: a few seconds.
  jest.setTimeout(60_000)

  it.each(["express", "express4"] as const)("compiles with @types/passport on %s types", (express) => {
    expect(compile({ "app.ts": withPassport(express) })).toEqual([])
  })

  it("compiles an app that adds its own fields to Express.User, as passport apps do", () => {
    const app = `
import type { Request } from "express"
import "passport"
import "${augment}"

declare global {
  namespace Express {
    interface User {
      id?: string
      role: "admin" | "member"
    }
  }
}

export function isAdmin(req: Request): boolean {
  return req.isAuthenticated() && req.user.role === "admin" && req.auth.expires.length > 0
}
`
    expect(compile({ "app.ts": app })).toEqual([])
  })

  it("reports a possibly missing session and user until req.isAuthenticated() narrows them", () => {
    const app = `
import type { Request } from "express"
import "passport"
import "${augment}"

export function handler(req: Request): string[] {
  const expires = req.auth.expires
  const email = req.user.email
  return [expires, email ?? ""]
}
`
    const diagnostics = compile({ "app.ts": app })
    expect(diagnostics.map(({ line, code }) => ({ line, code }))).toEqual([
      { line: 7, code: 18049 }, // 'req.auth' is possibly 'null' or 'undefined'.
      { line: 8, code: 18048 }, // 'req.user' is possibly 'undefined'.
    ])
  })

  it('types req.auth, req.user and res.locals.session together from declare module "gatehouse-auth"', () => {
    const app = `
import type { Request, Response } from "express"
import { Gatehouse } from "gatehouse-auth"

declare module "gatehouse-auth" {
  interface Session {
    role: "admin" | "member"
  }
  interface User {
    plan: "free" | "pro"
  }
}

const { auth } = Gatehouse({ providers: [] })

export async function handler(req: Request, res: Response): Promise<string> {
  const session = await auth(req, res)
  const fromCall: "admin" | "member" | undefined = session?.role
  const fromLocals: "admin" | "member" | undefined = res.locals.session?.role
  if (!req.isAuthenticated()) return String(fromCall)
  const role: "admin" | "member" = req.auth.role
  const plan: "free" | "pro" = req.user.plan
  const nested: "free" | "pro" | undefined = req.auth.user?.plan
  const wrong: number = req.user.plan
  return [fromLocals, role, plan, nested, wrong].join()
}
`
    // lib/ is compiled from source here, so the app's required fields also reach lib/'s own bodies; an installed
    // package ships declarations only. The app's file is what this test is about.
    const diagnostics = compile({ "app.ts": app }).filter(({ file }) => file.endsWith("app.ts"))
    // Only the deliberate mistake is reported: the augmented fields have their declared types everywhere.
    expect(diagnostics.map(({ line, code }) => ({ line, code }))).toEqual([{ line: 24, code: 2322 }])
  })

  it("gives no req.auth without the augmentation, so the checks above are not vacuous", () => {
    const app = `
import type { Request } from "express"

export function handler(req: Request): unknown {
  return req.auth
}
`
    expect(compile({ "app.ts": app }).map(({ code }) => code)).toEqual([2339]) // Property 'auth' does not exist.
  })
})
