// `npm run demo` as a process: a busy port ends it with a message and exit code 1; PORT is honoured and the real URL
// printed, with the expected-warnings explanation.
import { spawn, type ChildProcess } from "node:child_process"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import path from "node:path"

jest.setTimeout(60_000)

const root = path.join(__dirname, "../..")
const loader = path.join(root, "node_modules/tsx/dist/loader.mjs")
const script = path.join(root, "examples/express-basic/server.ts")

interface Exit {
  code: number | null
  stdout: string
  stderr: string
}

function startDemo(env: Record<string, string>): { child: ChildProcess; output: () => Exit; exited: Promise<Exit> } {
  const child = spawn(process.execPath, ["--import", loader, "--", script], {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: "", DEMO_DB: ":memory:", DEMO_IDP_PORT: "0", ...env },
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<Exit>((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })))
  return { child, output: () => ({ code: child.exitCode, stdout, stderr }), exited }
}

let busy: Server
beforeAll(async () => {
  busy = createServer((_req, res) => res.end("another app"))
  await new Promise<void>((resolve) => busy.listen(0, resolve))
})
afterAll(async () => new Promise<void>((resolve) => busy.close(() => resolve())))

test("a busy PORT: a message naming PORT and another port, and exit code 1", async () => {
  const port = (busy.address() as AddressInfo).port
  const { exited } = startDemo({ PORT: String(port) })
  const result = await exited
  expect(result.code).toBe(1)
  expect(result.stderr).toContain(
    `The demo could not start: Port ${port} is in use (the demo app); stop what runs there, or pick another port: PORT=${port + 5} npm run demo`,
  )
  expect(result.stdout).not.toContain("Gatehouse demo running")
})

test("a busy DEMO_IDP_PORT names that variable", async () => {
  const port = (busy.address() as AddressInfo).port
  const result = await startDemo({ PORT: "0", DEMO_IDP_PORT: String(port) }).exited
  expect(result.code).toBe(1)
  expect(result.stderr).toContain(`Port ${port} is in use (the local identity provider)`)
  expect(result.stderr).toContain(`DEMO_IDP_PORT=${port + 5}`)
})

test("an invalid PORT is named", async () => {
  const result = await startDemo({ PORT: "eighty" }).exited
  expect(result.code).toBe(1)
  expect(result.stderr).toContain('PORT must be a port number (got "eighty")')
})

test("PORT=0: the real URL is printed and answers; the oidc-provider warnings are explained; the IdP works", async () => {
  const demo = startDemo({ PORT: "0" })
  try {
    const deadline = Date.now() + 45_000
    let match: RegExpMatchArray | null = null
    while (!(match = demo.output().stdout.match(/Gatehouse demo running at (http:\/\/localhost:(\d+))\n/))) {
      if (demo.output().code !== null || Date.now() > deadline) throw new Error(JSON.stringify(demo.output()))
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(match[2]).not.toBe("0")
    const home = await fetch(match[1]!)
    expect(home.status).toBe(200)
    expect(await home.text()).toContain("You are not signed in")
    expect(demo.output().stdout).toContain(`${match[1]}/dev/mailbox`)
    expect(demo.output().stdout).toContain("it prefers Node 22 while Gatehouse itself supports Node 20.19 and later")

    // PORT=0 and DEMO_IDP_PORT=0: the app talks to the IdP's real port, and the IdP knows the app's real callback.
    const issuer = /local identity provider at (http:\/\/127\.0\.0\.1:(\d+))/.exec(demo.output().stdout)
    expect(issuer?.[2]).not.toBe("0")
    const csrf = await fetch(`${match[1]}/auth/csrf`)
    const cookie = csrf.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ")
    const { csrfToken } = (await csrf.json()) as { csrfToken: string }
    const start = await fetch(`${match[1]}/auth/signin/local-idp`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken }),
    })
    const authorize = new URL(start.headers.get("location")!)
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${issuer![1]}/auth`)
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${match[1]}/auth/callback/local-idp`)
    // The IdP accepts that redirect_uri: it answers with its login interaction, not an error page.
    const atIdp = await fetch(authorize, { redirect: "manual" })
    expect(atIdp.status).toBe(303)
    expect(new URL(atIdp.headers.get("location")!, authorize).pathname).toMatch(/^\/interaction\//)
  } finally {
    demo.child.kill()
    await demo.exited
  }
})
