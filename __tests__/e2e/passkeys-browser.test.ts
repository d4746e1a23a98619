// B14: passkeys in Chromium with the CDP virtual authenticator: register through the built-in sign-in page, sign out,
// sign back in through conditional UI (autofill), all under the page's nonce-based CSP with no third-party script.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { readFileSync } from "node:fs"
import path from "node:path"
import express from "express"
import ts from "typescript"
import type { PasskeyResult } from "../../lib/client/webauthn"
import type { CDPSession, Page } from "playwright-core"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { ExpressAuth } from "../../lib/express"
import Passkey from "../../lib/providers/passkey"
import {
  describeWithBrowser,
  launchBrowser,
  watchPage,
  type LaunchedBrowser,
  type PageWatch,
} from "../fixtures/browser"
import { SECRET } from "../core/helpers"

jest.setTimeout(60_000)

describeWithBrowser("e2e: passkeys in Chromium (B14)", () => {
  let server: Server
  let origin: string
  let browser: LaunchedBrowser
  let page: Page
  let cdp: CDPSession
  let watch: PageWatch
  let authenticatorId: string
  const adapter = MemoryAdapter()

  beforeAll(async () => {
    server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    // http://localhost is a secure context, so WebAuthn runs without TLS; the relying party is localhost.
    origin = `http://localhost:${(server.address() as AddressInfo).port}`
    const app = express()
    app.use(
      "/auth",
      ExpressAuth({
        secret: SECRET,
        trustHost: true,
        adapter,
        providers: [Passkey({ relyingParty: { id: "localhost", name: "Gatehouse e2e", origin } })],
      }),
    )
    app.get("/", (_req, res) => void res.type("html").send("<!doctype html><title>Home</title><h1>Home</h1>"))
    // A custom page using the client module, compiled from its TypeScript source as the app's bundler would.
    const source = readFileSync(path.join(__dirname, "../../lib/client/webauthn.ts"), "utf8")
    const compiled = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    }).outputText
    app.get("/client/webauthn.js", (_req, res) => void res.type("text/javascript").send(compiled))
    app.get(
      "/custom",
      (_req, res) =>
        void res
          .type("html")
          .send('<!doctype html><title>Custom</title><input id="username" autocomplete="username webauthn">'),
    )
    server.on("request", app)
    browser = await launchBrowser()
    page = await browser.context.newPage()
    watch = await watchPage(page)
    cdp = await browser.context.newCDPSession(page)
    await cdp.send("WebAuthn.enable", { enableUI: false })
    ;({ authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        ctap2Version: "ctap2_1",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
        defaultBackupEligibility: true,
        defaultBackupState: true,
      },
    }))
  })

  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => server?.close(resolve))
  })

  const session = async () =>
    page.evaluate(async () => (await fetch("/auth/session", { credentials: "same-origin" })).json())

  it("registers on the built-in page, signs out, and signs back in through conditional UI", async () => {
    await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
    await page.getByLabel("Email").fill("browser@example.com")
    await Promise.all([
      page.waitForURL(`${origin}/`),
      page.getByRole("button", { name: "Sign in with Passkey" }).click(),
    ])
    expect(await session()).toMatchObject({ user: { email: "browser@example.com" } })
    const user = await adapter.getUserByEmail("browser@example.com")
    const [row] = await adapter.listAuthenticatorsByUserId(user?.id as string)
    expect(row).toMatchObject({ credentialDeviceType: "multiDevice", credentialBackedUp: true })
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId })
    expect(credentials).toHaveLength(1)
    expect(credentials[0]?.isResidentCredential).toBe(true)

    await page.goto(`${origin}/auth/signout`)
    await Promise.all([page.waitForURL(`${origin}/`), page.getByRole("button", { name: "Sign out" }).click()])
    expect(await session()).toBeNull()

    // Conditional UI: the page starts a mediation:"conditional" request on load and posts the assertion it gets.
    // No click: with automatic presence the virtual authenticator picks the one discoverable credential for the
    // conditional request the page starts on load (a person would pick it from the username field's autofill).
    await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`, { waitUntil: "commit" })
    expect(page.url()).toContain("/auth/signin")
    await page.waitForURL(`${origin}/`)
    expect(await session()).toMatchObject({ user: { email: "browser@example.com" } })
    expect((await adapter.listAuthenticatorsByUserId(user?.id as string))[0]?.lastUsedAt).toBeInstanceOf(Date)

    expect(watch.cspViolations).toEqual([])
    expect(watch.pageErrors).toEqual([])
    expect(browser.blockedRequests).toEqual([])
  })

  it("the client module registers, signs in, and runs conditional UI on a custom page (#10433)", async () => {
    await cdp.send("WebAuthn.clearCredentials", { authenticatorId })
    await page.goto(`${origin}/custom`)
    const signOut = async () =>
      page.evaluate(async () => {
        const { csrfToken } = (await (await fetch("/auth/csrf")).json()) as { csrfToken: string }
        const body = new URLSearchParams({ csrfToken })
        return (await fetch("/auth/signout", { method: "POST", body, headers: { "X-Auth-Return-Redirect": "1" } }))
          .status
      })
    expect(await signOut()).toBe(200)
    expect(await session()).toBeNull()
    // A string, so the test transpiler leaves the browser's dynamic import alone.
    const useClient = <T>(fn: string, options: object): Promise<T> =>
      page.evaluate(`import("/client/webauthn.js").then((m) => m.${fn}(${JSON.stringify(options)}))`) as Promise<T>
    const registered = await useClient<PasskeyResult>("registerPasskey", {
      email: "custom@example.com",
      redirect: false,
    })
    expect(registered).toEqual({ ok: true, url: `${origin}/custom` })
    expect(await session()).toMatchObject({ user: { email: "custom@example.com" } })

    expect(await signOut()).toBe(200)
    expect(await session()).toBeNull()

    const conditional = await useClient<PasskeyResult>("signInWithPasskey", {
      conditional: true,
      redirect: false,
      callbackUrl: "/custom?done=1",
    })
    expect(conditional).toEqual({ ok: true, url: `${origin}/custom?done=1` })
    expect(await session()).toMatchObject({ user: { email: "custom@example.com" } })

    const refused = await useClient<PasskeyResult>("registerPasskey", { email: "custom@example.com", redirect: false })
    // The authenticator already holds this user's credential (excludeCredentials): the browser refuses to add another.
    expect(refused).toMatchObject({ ok: false, error: "InvalidStateError" })
    expect(watch.pageErrors).toEqual([])
  })
})
