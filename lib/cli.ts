#!/usr/bin/env -S node --
/**
 * The `gatehouse-auth` command (package.json `bin`): `npx gatehouse-auth secret` prints a new secret;
 * `--write .env` appends `AUTH_SECRET=...` to that file instead, never replacing a value already there.
 * The flag is not `--env-file`: Node 20 reads an `--env-file` anywhere on its command line as its own option, and `npx`
 * is a Node process, so `npx gatehouse-auth secret --env-file .env` exits in Node ("node: .env: not found") before this
 * command runs when the file does not exist yet. `--env-file` still works when it reaches this command (the `--` in the
 * first line keeps a direct run safe), with a note to use `--write`.
 */
import { randomBytes } from "node:crypto"
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"

const usage = `Usage: npx gatehouse-auth secret [--write <file>]

  secret                 print a new random secret (32 bytes, base64) for AUTH_SECRET
  --write <file>         append AUTH_SECRET=<secret> to <file> instead (created if missing; an existing
                         AUTH_SECRET there is never replaced)
`

/** Where the command writes and reads; the process's own streams and folder by default. */
export interface CliIO {
  cwd: string
  out: (text: string) => void
  err: (text: string) => void
}

/** A new secret: 32 random bytes, base64 (what `openssl rand -base64 32` prints). */
export function newSecret(): string {
  return randomBytes(32).toString("base64")
}

/**
 * Runs the command with `args` (without `node` and the script) and returns the exit code.
 *
 * @example
 * ```ts
 * runCli(["secret", "--write", ".env"], { cwd: process.cwd(), out: console.log, err: console.error }) // 0
 * ```
 */
export function runCli(args: readonly string[], io: CliIO): number {
  const [command, ...rest] = args
  if (command === "--help" || command === "-h" || command === "help") {
    io.out(usage)
    return 0
  }
  if (command !== "secret") {
    io.err(`${command === undefined ? "No command given." : `Unknown command "${command}".`}\n\n${usage}`)
    return 2
  }
  let envFile: string | undefined
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    const flag = /^--(write|env-file)(?:=(.*))?$/s.exec(arg)
    const value = flag ? (flag[2] ?? rest[i + 1]) : undefined
    if (!flag || value === undefined || value === "") {
      io.err(`${flag ? `${arg} needs a file name.` : `Unknown option "${arg}".`}\n\n${usage}`)
      return 2
    }
    if (flag[2] === undefined) i++
    if (flag[1] === "env-file") {
      io.err(
        "--env-file is now --write: Node 20 takes --env-file as its own option when the command runs through npx.\n",
      )
    }
    envFile = value
  }
  const secret = newSecret()
  if (envFile === undefined) {
    io.out(`${secret}\n`)
    return 0
  }
  const file = resolve(io.cwd, envFile)
  const content = existsSync(file) ? readFileSync(file, "utf8") : ""
  if (/^\s*(?:export\s+)?AUTH_SECRET\s*=/m.test(content)) {
    io.err(`${envFile} already sets AUTH_SECRET; it was left unchanged. Remove that line first to replace it.\n`)
    return 1
  }
  const separator = content === "" || content.endsWith("\n") ? "" : "\n"
  appendFileSync(file, `${separator}AUTH_SECRET="${secret}"\n`)
  io.out(`Added AUTH_SECRET to ${envFile}.\n`)
  return 0
}

if (require.main === module) {
  process.exitCode = runCli(process.argv.slice(2), {
    cwd: process.cwd(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  })
}
