// `npx gatehouse-auth secret`: prints a new secret, or appends AUTH_SECRET to an env file without replacing one.
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { runCli } from "../lib/cli"
import { resolveConfig } from "../lib/core/kernel/config/resolve"
import Credentials from "../lib/providers/credentials"

function io(cwd: string) {
  const out: string[] = []
  const err: string[] = []
  return { cwd, out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), stdout: out, stderr: err }
}

describe("gatehouse-auth secret", () => {
  let dir = ""
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-cli-"))
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("prints a new 32-byte secret each time, accepted in production without a warning", () => {
    const a = io(dir)
    const b = io(dir)
    expect(runCli(["secret"], a)).toBe(0)
    expect(runCli(["secret"], b)).toBe(0)
    const secret = a.stdout.join("").trim()
    expect(Buffer.from(secret, "base64")).toHaveLength(32)
    expect(secret).not.toBe(b.stdout.join("").trim())
    const warnings: string[] = []
    const config = {
      providers: [Credentials({ authorize: () => null })],
      logger: { warn: (code: string) => void warnings.push(code) },
    }
    resolveConfig(config, { env: { NODE_ENV: "production", AUTH_SECRET: secret, AUTH_TRUST_HOST: "1" } })
    expect(warnings).toEqual([])
  })

  it("--write creates the file, or appends to it on a new line, keeping what is there", () => {
    const created = io(dir)
    expect(runCli(["secret", "--write", ".env"], created)).toBe(0)
    expect(created.stdout.join("")).toBe("Added AUTH_SECRET to .env.\n")
    expect(fs.readFileSync(path.join(dir, ".env"), "utf8")).toMatch(/^AUTH_SECRET="[A-Za-z0-9+/]{43}="\n$/)

    fs.writeFileSync(path.join(dir, "app.env"), "PORT=3000")
    expect(runCli(["secret", "--write=app.env"], io(dir))).toBe(0)
    expect(fs.readFileSync(path.join(dir, "app.env"), "utf8")).toMatch(/^PORT=3000\nAUTH_SECRET="[^"]{44}"\n$/)
  })

  it.each(['AUTH_SECRET="kept"\n', "PORT=1\nexport AUTH_SECRET=kept\n", "  AUTH_SECRET = kept"])(
    "never replaces an existing AUTH_SECRET (%j): exit 1, file unchanged",
    (content) => {
      fs.writeFileSync(path.join(dir, ".env"), content)
      const run = io(dir)
      expect(runCli(["secret", "--write", ".env"], run)).toBe(1)
      expect(run.stderr.join("")).toContain(".env already sets AUTH_SECRET; it was left unchanged")
      expect(fs.readFileSync(path.join(dir, ".env"), "utf8")).toBe(content)
    },
  )

  it("the old --env-file still writes, with a note that the flag is now --write (Node 20 takes --env-file)", () => {
    const run = io(dir)
    expect(runCli(["secret", "--env-file", "old.env"], run)).toBe(0)
    expect(run.stderr.join("")).toContain("--env-file is now --write")
    expect(fs.readFileSync(path.join(dir, "old.env"), "utf8")).toMatch(/^AUTH_SECRET="[^"]{44}"\n$/)
  })

  it("an unknown command or option, or --write without a file, prints the usage and exits 2; --help exits 0", () => {
    for (const args of [[], ["secrets"], ["secret", "--force"], ["secret", "--write"], ["secret", "--write="]]) {
      const run = io(dir)
      expect(runCli(args, run)).toBe(2)
      expect(run.stderr.join("")).toContain("Usage: npx gatehouse-auth secret [--write <file>]")
    }
    expect(fs.readdirSync(dir)).toEqual([])
    const help = io(dir)
    expect(runCli(["--help"], help)).toBe(0)
    expect(help.stdout.join("")).toContain("Usage:")
  })

  it("runs as a command: package.json's bin, exit code and output (the packaging test runs the built one)", () => {
    expect(fs.readFileSync(path.join(__dirname, "../lib/cli.ts"), "utf8")).toMatch(/^#!\/usr\/bin\/env -S node --\n/)
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "../package.json"), "utf8")) as {
      bin: Record<string, string>
    }
    expect(pkg.bin).toEqual({ "gatehouse-auth": "./dist/cli.js" })
    const tsx = path.join(__dirname, "../node_modules/tsx/dist/loader.mjs")
    const cli = path.join(__dirname, "../lib/cli.ts")
    const env = { ...process.env, NODE_OPTIONS: "" }
    const ok = spawnSync(process.execPath, ["--import", tsx, "--", cli, "secret", "--write", ".env"], {
      cwd: dir,
      encoding: "utf8",
      env,
    })
    expect({ status: ok.status, stdout: ok.stdout }).toEqual({ status: 0, stdout: "Added AUTH_SECRET to .env.\n" })
    const again = spawnSync(process.execPath, ["--import", tsx, "--", cli, "secret", "--write", ".env"], {
      cwd: dir,
      encoding: "utf8",
      env,
    })
    expect(again.status).toBe(1)
  }, 30_000)
})
