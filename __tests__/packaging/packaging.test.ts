// Builds and packs gatehouse-auth, installs the tarball into a CommonJS and an ES module app, and runs their own checks;
// then runs the runtime-consumer app on Node, Bun and Deno (./runtimes.ts).
import { execFileSync, spawnSync } from "node:child_process"
import { builtinModules } from "node:module"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { typeScriptBlocks } from "../docs/markdown"
import { runtimeConsumerCases } from "./runtimes"

const root = path.resolve(__dirname, "../..")
const fixtures = path.join(root, "__tests__/fixtures")
const nodeModules = path.join(root, "node_modules")

// Drivers and frameworks an app installs itself; Gatehouse imports them but never ships them.
const optionalPeers = ["express", "pg", "ioredis", "better-sqlite3", "nodemailer", "@simplewebauthn/server"]
// Type packages the consumers' `tsc` needs to read gatehouse-auth's declarations.
const consumerTypes = ["@types/node", "@types/express"]
const esmOnly = ["jose", "oauth4webapi"]

interface PackageJson {
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  exports: Record<string, unknown>
}

interface PackResult {
  filename: string
  files: { path: string }[]
}

interface JestResult {
  success: boolean
  numFailedTests: number
  testResults: { assertionResults: { title: string; status: string }[] }[]
}

interface Run {
  status: number | null
  stdout: string
  stderr: string
}

/**
 * The entries the package must provide, named after their dist/ file, from the `exports` map and the sources that
 * exist now: `index` (lib/index.ts), `core`, `web`, `jwt`, `errors`, `catalog`, `providers/<id>`, `adapters/<name>` and
 * `store/<name>`.
 */
function expectedEntries(pkg: PackageJson): string[] {
  const fixed: Record<string, [string, string]> = {
    ".": ["index", "lib/index.ts"],
    "./core": ["core", "lib/core/index.ts"],
    "./web": ["web", "lib/web/index.ts"],
    "./jwt": ["jwt", "lib/jwt/index.ts"],
    "./errors": ["errors", "lib/errors/index.ts"],
    "./catalog": ["catalog", "lib/catalog.ts"],
  }
  const entries: string[] = []
  for (const [key, [entry, source]] of Object.entries(fixed)) {
    expect(pkg.exports[key]).toBeDefined()
    if (fs.existsSync(path.join(root, source))) entries.push(entry)
  }
  expect(pkg.exports["./providers/*"]).toBeDefined()
  for (const file of fs.readdirSync(path.join(root, "lib", "providers")).sort()) {
    if (file.endsWith(".ts") && !file.endsWith(".d.ts") && file !== "types.ts")
      entries.push(`providers/${file.slice(0, -3)}`)
  }
  // Each storage driver folder gives `adapters/<driver>` (adapter.ts) and `store/<driver>` (store.ts).
  for (const [file, dir] of [
    ["adapter.ts", "adapters"],
    ["store.ts", "store"],
  ] as const) {
    expect(pkg.exports[`./${dir}/*`]).toBeDefined()
    for (const driver of fs.readdirSync(path.join(root, "lib", "storage")).sort()) {
      if (fs.existsSync(path.join(root, "lib", "storage", driver, file))) entries.push(`${dir}/${driver}`)
    }
  }
  return entries
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Run {
  const result = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
  if (result.error) throw result.error
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

function runOrThrow(command: string, args: string[], cwd: string): string {
  const result = run(command, args, cwd)
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`)
  }
  return result.stdout
}

/**
 * Builds write dist/ in place, so two runs of this suite (two jest processes in one checkout) must not overlap: a
 * lock directory, taken atomically, serialises them; a lock left by a dead process is taken over.
 */
async function acquireLock(): Promise<() => void> {
  const lock = path.join(os.tmpdir(), `gatehouse-packaging-${Buffer.from(root).toString("hex").slice(-32)}.lock`)
  const deadline = Date.now() + 10 * 60_000
  for (;;) {
    try {
      fs.mkdirSync(lock)
      fs.writeFileSync(path.join(lock, "pid"), String(process.pid))
      return () => fs.rmSync(lock, { recursive: true, force: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err
    }
    const owner = Number(fs.readFileSync(path.join(lock, "pid"), { encoding: "utf8", flag: "a+" }))
    if (owner > 0 && !isAlive(owner)) fs.rmSync(lock, { recursive: true, force: true })
    if (Date.now() > deadline) throw new Error(`packaging lock ${lock} held by process ${owner} for 10 minutes`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Links `name` from the repository's node_modules into `app`'s (a scoped name gets its scope folder). */
function link(app: string, name: string): void {
  const source = path.join(nodeModules, name)
  if (!fs.existsSync(source)) return
  const target = path.join(app, "node_modules", name)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.symlinkSync(source, target, "dir")
}

/**
 * Copies a fixture app to the work folder and installs the packed gatehouse-auth in it the way npm would, offline:
 * the tarball's contents are copied to node_modules/gatehouse-auth (a real folder, so Node resolves gatehouse's own imports
 * from the app's node_modules), and only the packages the tarball declares (dependencies, peers) plus the optional
 * drivers are linked from the repository. A runtime import the package does not declare fails to resolve.
 */
function installFixture(name: string, work: string, unpacked: string, packed: PackageJson): string {
  const app = path.join(work, name)
  fs.cpSync(path.join(fixtures, name), app, {
    recursive: true,
    filter: (source) => !source.includes(`${path.sep}node_modules`),
  })
  fs.cpSync(unpacked, path.join(app, "node_modules/gatehouse-auth"), { recursive: true })
  const declared = [...Object.keys(packed.dependencies ?? {}), ...Object.keys(packed.peerDependencies ?? {})]
  for (const dependency of new Set([...declared, ...optionalPeers, ...consumerTypes])) link(app, dependency)
  return app
}

// npm package names are lowercase: an optional scope, a name, then an optional subpath; `node:` builtins too.
const PACKAGE_SPECIFIER = /^(?:node:[a-z_/]+|(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*(?:\/[A-Za-z0-9._/-]+)?)$/

/** Bare module specifiers (`jose`, `@scope/pkg/sub`) imported or required by a built file. */
function bareImports(code: string): string[] {
  const specifiers = new Set<string>()
  const patterns = [
    /\brequire\(["']([^"']+)["']\)/g,
    /\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*\(?\s*["']([^"']+)["']/g,
  ]
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      const specifier = match[1]!
      // Only what can name a package: text such as `from "validateAuthResponse()"` in a bundled message is not one.
      if (PACKAGE_SPECIFIER.test(specifier)) specifiers.add(specifier)
    }
  }
  return [...specifiers]
}

function packageName(specifier: string): string {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!
}

function distFiles(dir: string, extension: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith(extension) && !file.endsWith(`.d${extension}`))
    .map((file) => path.join(dir, file))
}

describe("the packed package", () => {
  let release: (() => void) | undefined
  let work = ""
  let unpacked = ""
  let packed: PackageJson
  let entries: string[] = []
  let tarballFiles: string[] = []

  beforeAll(async () => {
    release = await acquireLock()
    work = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-packaging-"))
    // No build first: `npm pack` must build through `prepack`, as in a fresh clone (issue 29: a 5-file package).
    fs.rmSync(path.join(root, "dist"), { recursive: true, force: true })
    const output = runOrThrow("npm", ["pack", "--json", "--pack-destination", work], root)
    // The build's own lines come first on stdout; npm's JSON report starts at a line holding only "[".
    const pack = JSON.parse(output.slice(output.search(/^\[$/m))) as PackResult[]
    tarballFiles = pack[0]!.files.map((file) => file.path)
    execFileSync("tar", ["-xzf", path.join(work, pack[0]!.filename), "-C", work])
    unpacked = path.join(work, "package")
    packed = JSON.parse(fs.readFileSync(path.join(unpacked, "package.json"), "utf8")) as PackageJson
    entries = expectedEntries(packed)
  }, 10 * 60_000)

  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true })
    release?.()
  })

  it("contains ESM, CommonJS and both kinds of declarations for every entry, and no sources or tests", () => {
    expect(entries).toEqual(expect.arrayContaining(["errors", "jwt"]))
    for (const entry of entries) {
      for (const extension of [".js", ".mjs", ".d.ts", ".d.mts"]) {
        expect(tarballFiles).toContain(`dist/${entry}${extension}`)
      }
    }
    expect(tarballFiles).toContain("package.json")
    const unexpected = tarballFiles.filter(
      (file) => !file.startsWith("dist/") && !/^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/.test(file),
    )
    expect(unexpected.filter((file) => file !== "lib/storage/postgres/schema.sql")).toEqual([])
  })

  it("ships LICENSE and CHANGELOG.md, and a working `gatehouse-auth secret` command", () => {
    expect(tarballFiles).toEqual(expect.arrayContaining(["LICENSE", "CHANGELOG.md", "README.md", "dist/cli.js"]))
    const bin = path.join(unpacked, (packed as PackageJson & { bin: Record<string, string> }).bin["gatehouse-auth"]!)
    fs.chmodSync(bin, 0o755) // as npm does when it installs a bin
    const cwd = fs.mkdtempSync(path.join(work, "bin-"))
    // Run through its own first line (`#!/usr/bin/env -S node --`), as npx does.
    const created = run(bin, ["secret", "--write", ".env"], cwd, { NODE_OPTIONS: "" })
    expect({ status: created.status, stdout: created.stdout }).toEqual({
      status: 0,
      stdout: "Added AUTH_SECRET to .env.\n",
    })
    expect(fs.readFileSync(path.join(cwd, ".env"), "utf8")).toMatch(/^AUTH_SECRET="[^"]{44}"\n$/)
    const printed = run(bin, ["secret"], cwd, { NODE_OPTIONS: "" })
    expect(Buffer.from(printed.stdout.trim(), "base64")).toHaveLength(32)
  })

  it("runs `npx gatehouse-auth secret --write .env` as the Install section says, with no .env yet, on this Node", () => {
    // npx is a Node process: on Node 20 (the engines floor) it would take an `--env-file` flag as its own and exit
    // before the command runs while the file is missing. `--write` is left to the command.
    const app = path.join(work, "npx-app")
    fs.mkdirSync(path.join(app, "node_modules", ".bin"), { recursive: true })
    fs.writeFileSync(path.join(app, "package.json"), '{ "name": "npx-app", "private": true }\n')
    fs.cpSync(unpacked, path.join(app, "node_modules/gatehouse-auth"), { recursive: true })
    const bin = (packed as PackageJson & { bin: Record<string, string> }).bin["gatehouse-auth"]!
    fs.chmodSync(path.join(app, "node_modules/gatehouse-auth", bin), 0o755)
    fs.symlinkSync(path.join("..", "gatehouse-auth", bin), path.join(app, "node_modules/.bin/gatehouse-auth"))
    const created = run("npx", ["--no-install", "gatehouse-auth", "secret", "--write", ".env"], app, {
      NODE_OPTIONS: "",
    })
    expect({ status: created.status, stdout: created.stdout, stderr: created.stderr }).toEqual({
      status: 0,
      stdout: "Added AUTH_SECRET to .env.\n",
      stderr: "",
    })
    expect(fs.readFileSync(path.join(app, ".env"), "utf8")).toMatch(/^AUTH_SECRET="[^"]{44}"\n$/)
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(20)
  })

  it("defines the error classes once per format, so instanceof holds across entries", () => {
    const definesAuthError = /\bclass AuthError\b|\bAuthError = class\b/
    for (const extension of [".js", ".mjs"]) {
      const files = distFiles(path.join(unpacked, "dist"), extension)
      const defining = files.filter((file) => definesAuthError.test(fs.readFileSync(file, "utf8")))
      expect(defining.map((file) => path.relative(unpacked, file))).toHaveLength(1)
    }
  })

  it("bundles the ESM-only dependencies into the CommonJS build only, and imports nothing undeclared", () => {
    const declared = new Set([
      ...Object.keys(packed.dependencies ?? {}),
      ...Object.keys(packed.peerDependencies ?? {}),
      // Optional dependencies (uqr) are imported lazily, behind a fallback for when they are absent.
      ...Object.keys(packed.optionalDependencies ?? {}),
      ...optionalPeers,
    ])
    const builtin = new Set(builtinModules)
    for (const extension of [".js", ".mjs"]) {
      for (const file of distFiles(path.join(unpacked, "dist"), extension)) {
        const imports = bareImports(fs.readFileSync(file, "utf8"))
        const where = path.relative(unpacked, file)
        const undeclared = imports
          .map(packageName)
          .filter((name) => !name.startsWith("node:") && !builtin.has(name) && !declared.has(name))
        expect({ file: where, undeclared }).toEqual({ file: where, undeclared: [] })
        if (extension === ".js") {
          expect({ file: where, esmOnly: imports.filter((s) => esmOnly.includes(packageName(s))) }).toEqual({
            file: where,
            esmOnly: [],
          })
        }
      }
    }
  })

  it("works in a CommonJS app's own jest suite, with no transform", () => {
    const app = installFixture("cjs-consumer", work, unpacked, packed)
    const output = path.join(work, "cjs-consumer-result.json")
    const jest = path.join(nodeModules, "jest/bin/jest.js")
    const result = run(
      process.execPath,
      [jest, "--ci", "--json", `--outputFile=${output}`, `--cacheDirectory=${path.join(work, "jest-cache")}`],
      app,
      { GATEHOUSE_ENTRIES: entries.join(","), AUTH_SECRET: "", NODE_OPTIONS: "" },
    )
    const report = JSON.parse(fs.readFileSync(output, "utf8")) as JestResult
    const titles = report.testResults.flatMap((suite) =>
      suite.assertionResults.map((test) => `${test.status} ${test.title}`),
    )
    expect({
      status: result.status,
      failed: report.numFailedTests,
      stderr: report.success ? "" : result.stderr,
    }).toEqual({ status: 0, failed: 0, stderr: "" })
    for (const entry of entries.filter((e) => !["errors", "jwt"].includes(e))) {
      expect(titles).toContain(`passed ${entry === "index" ? "gatehouse-auth" : `gatehouse-auth/${entry}`}`)
    }
    expect(titles).toContain(
      "passed an error thrown by gatehouse-auth/jwt is an instance of the classes of gatehouse-auth/errors",
    )
  }, 120_000)

  it("works in an ES module app", () => {
    const app = installFixture("esm-consumer", work, unpacked, packed)
    const result = run(process.execPath, ["consumer.mjs"], app, {
      GATEHOUSE_ENTRIES: entries.join(","),
      AUTH_SECRET: "",
      NODE_OPTIONS: "",
    })
    expect({ status: result.status, notOk: result.stdout.match(/^not ok .*$/gm), stderr: result.stderr }).toEqual({
      status: 0,
      notOk: null,
      stderr: "",
    })
    for (const entry of entries) {
      expect(result.stdout).toContain(`ok ${entry === "index" ? "gatehouse-auth" : `gatehouse-auth/${entry}`}\n`)
    }
  }, 120_000)

  it("type-checks every TypeScript block of README.md and of the pages of docs/ in a `tsc --init` project", () => {
    // A new app as the README's Install section describes it: `npm init -y`, `"type": "module"`, the default
    // tsconfig.json of the pinned TypeScript (strict, exactOptionalPropertyTypes, verbatimModuleSyntax, ...) with
    // Node's types added, and the tarball installed.
    const app = path.join(work, "readme-consumer")
    fs.mkdirSync(app)
    runOrThrow("npm", ["init", "-y"], app)
    const manifest = JSON.parse(fs.readFileSync(path.join(app, "package.json"), "utf8")) as Record<string, unknown>
    fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ ...manifest, type: "module" }, null, 2))
    const tsc = path.join(nodeModules, "typescript/bin/tsc")
    runOrThrow(process.execPath, [tsc, "--init"], app)
    const tsconfigPath = path.join(app, "tsconfig.json")
    const tsconfig = fs.readFileSync(tsconfigPath, "utf8")
    expect(tsconfig).toMatch(/^\s*"strict": true/m)
    expect(tsconfig).toMatch(/^\s*"exactOptionalPropertyTypes": true/m)
    expect(tsconfig).toMatch(/^\s*"types": \[\]/m)
    fs.writeFileSync(tsconfigPath, tsconfig.replace(/^(\s*)"types": \[\]/m, '$1"types": ["node"]'))

    fs.mkdirSync(path.join(app, "node_modules"))
    fs.cpSync(unpacked, path.join(app, "node_modules/gatehouse-auth"), { recursive: true })
    const declared = [...Object.keys(packed.dependencies ?? {}), ...Object.keys(packed.peerDependencies ?? {})]
    // hono: the README's Fetch-flavour example is a Hono app.
    for (const dependency of new Set([...declared, ...optionalPeers, ...consumerTypes, "@types/pg", "hono"])) {
      link(app, dependency)
    }
    const blocks = typeScriptBlocks()
    blocks.forEach((block, i) => {
      // Each block is a module of its own, as it would be in the reader's project.
      fs.writeFileSync(
        path.join(app, `${path.basename(block.file, ".md")}-${block.line}-${i}.ts`),
        `${block.code}\nexport {}\n`,
      )
    })
    expect(blocks.length).toBeGreaterThanOrEqual(20)
    const result = run(process.execPath, [tsc, "-p", "tsconfig.json", "--noEmit"], app)
    expect({ status: result.status, output: result.stdout }).toEqual({ status: 0, output: "" })
  }, 180_000)

  it("runs the CommonJS block of Getting started as written in a CommonJS app", async () => {
    const app = path.join(work, "readme-commonjs")
    fs.mkdirSync(path.join(app, "node_modules"), { recursive: true })
    fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "readme-commonjs", type: "commonjs" }))
    fs.cpSync(unpacked, path.join(app, "node_modules/gatehouse-auth"), { recursive: true })
    for (const dependency of [...Object.keys(packed.dependencies ?? {}), "express"]) link(app, dependency)
    const guide = fs.readFileSync(path.join(root, "docs/getting-started.md"), "utf8")
    const blocks = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!)
    expect(blocks).toHaveLength(1)
    fs.writeFileSync(path.join(app, "app.js"), blocks[0]!)
    const probe = `
      const http = require("node:http")
      const server = http.createServer(require("./app.js")).listen(0, "127.0.0.1", async () => {
        const base = "http://127.0.0.1:" + server.address().port
        const providers = await (await fetch(base + "/auth/providers")).json()
        const me = await fetch(base + "/me", { headers: { accept: "application/json" } })
        console.log(JSON.stringify({ providers: Object.keys(providers), me: me.status }))
        server.close()
      })`
    const result = run(process.execPath, ["-e", probe], app, { NODE_OPTIONS: "", AUTH_SECRET: "" })
    expect({ status: result.status, stdout: result.stdout.trim() }).toEqual({
      status: 0,
      stdout: JSON.stringify({ providers: ["credentials"], me: 401 }),
    })
  }, 60_000)

  it.each(["cjs-consumer", "esm-consumer"])(
    "type-checks %s against the packed declarations",
    (name) => {
      const app = path.join(work, name)
      if (!fs.existsSync(app)) installFixture(name, work, unpacked, packed)
      const tsc = path.join(nodeModules, "typescript/bin/tsc")
      const result = run(process.execPath, [tsc, "-p", "tsconfig.json"], app)
      expect({ status: result.status, output: result.stdout }).toEqual({ status: 0, output: "" })
    },
    120_000,
  )

  runtimeConsumerCases(() => installFixture("runtime-consumer", work, unpacked, packed))
})
