// A command-line login (RFC 8252): a loopback listener on port 0, an S256 challenge, the system browser for the
// sign-in, the one-time code exchanged at POST /auth/token, then an access token for the API and a call to it.
import { exec } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface LoginResult {
  /** The bearer session token (store it like a password). */
  session: string
  /** What the protected API answered. */
  api: unknown
}

/** Signs in through the browser `open` opens, then calls the API at `<server>/api/hello` with an access token. */
export async function login(server: string, open: (url: string) => Promise<void> | void): Promise<LoginResult> {
  const verifier = randomBytes(32).toString("base64url")
  const challenge = createHash("sha256").update(verifier).digest("base64url")
  const state = randomBytes(16).toString("base64url")
  let deliver: (params: URLSearchParams) => void = () => undefined
  const arrived = new Promise<URLSearchParams>((resolve) => (deliver = resolve))
  const listener = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    if (url.pathname !== "/callback") return void res.writeHead(404).end()
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this window and return to the terminal.")
    deliver(url.searchParams)
  })
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
  const redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`
  try {
    const start = new URL(`${server}/auth/signin/credentials`)
    start.search = new URLSearchParams({ callbackUrl: redirectUri, code_challenge: challenge, state }).toString()
    await open(start.href)
    const params = await arrived
    if (params.get("state") !== state) throw new Error("state mismatch")
    if (params.get("iss") !== `${server}/auth`) throw new Error("issuer mismatch")
    const code = params.get("code")
    if (!code) throw new Error(`sign-in refused: ${params.get("error") ?? "no code"}`)
    const exchange = await fetch(`${server}/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code, code_verifier: verifier, redirect_uri: redirectUri }),
    })
    const { token } = (await exchange.json()) as { token: string }
    const issued = await fetch(`${server}/auth/token?scope=read`, { headers: { authorization: `Bearer ${token}` } })
    const { access_token: accessToken } = (await issued.json()) as { access_token: string }
    const api = await fetch(`${server}/api/hello`, { headers: { authorization: `Bearer ${accessToken}` } })
    return { session: token, api: await api.json() }
  } finally {
    listener.close()
  }
}

if (require.main === module) {
  const server = process.argv[2] ?? "http://127.0.0.1:3000"
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "start" : "xdg-open"
  login(server, (url) => {
    console.log(`Opening ${url}`)
    exec(`${opener} "${url}"`)
  }).then(
    ({ api }) => console.log("Signed in. The API answered:", api),
    (error: unknown) => {
      console.error(String(error))
      process.exitCode = 1
    },
  )
}
