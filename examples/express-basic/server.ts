/**
 * Starts the demo on port 3000 (or $PORT) and its local identity provider on 127.0.0.1:3001 (or $DEMO_IDP_PORT):
 * `npm run demo`. A port that is taken ends the demo with a message naming the variable to change, and exit code 1.
 * Either may be 0 (a free port): the app's real port is registered at the IdP, and the IdP's real port is given to
 * the app, which is loaded only then.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { LOCAL_IDP_ID, localIdpPort, startLocalIdp } from "./local-idp"

/** `$PORT` as a port number (default 3000), or a clear error. */
export function demoPort(env: NodeJS.ProcessEnv = process.env): number {
  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number (got "${env.PORT}")`)
  return port
}

/** Explains a failed listen: a busy port names the variable that moves it. */
function listenError(error: NodeJS.ErrnoException, what: string, port: number, variable: string): Error {
  if (error.code === "EADDRINUSE") {
    return new Error(
      `Port ${port} is in use (${what}); stop what runs there, or pick another port: ${variable}=${port + 5} npm run demo`,
    )
  }
  if (error.code === "EACCES")
    return new Error(`Port ${port} needs more privileges (${what}); use ${variable}=3000 or above`)
  return error
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(port)
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, "the demo app", port, "PORT")))
    server.once("listening", () => resolve(server))
  })
}

async function main(): Promise<void> {
  const port = demoPort()
  const idpPort = localIdpPort()
  // The app's port first, so the IdP registers the real one in its redirect, post-logout and back-channel URIs.
  const server = await listen(port)
  const appPort = (server.address() as AddressInfo).port
  const idp = await startLocalIdp({
    port: idpPort,
    appOrigins: [`http://localhost:${appPort}`, `http://127.0.0.1:${appPort}`],
    backchannelLogoutUri: `http://127.0.0.1:${appPort}/auth/backchannel-logout/${LOCAL_IDP_ID}`,
  }).catch(async (error: NodeJS.ErrnoException) => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    throw listenError(error, "the local identity provider", idpPort, "DEMO_IDP_PORT")
  })
  // The app reads the IdP's address (DEMO_IDP_PORT) when it is loaded.
  process.env.DEMO_IDP_PORT = String(idp.port)
  const { app, demoLogin } = await import("./app")
  server.on("request", app)
  const url = `http://localhost:${appPort}`
  console.log(`Gatehouse demo running at ${url}`)
  console.log(`Sign in with username "${demoLogin.username}" and password "${demoLogin.password}"`)
  console.log(`or with the local identity provider at ${idp.issuer} (any login and password)`)
  console.log(`Email sign-in links land in the development mailbox: ${url}/dev/mailbox`)
  console.log(
    "(The oidc-provider warnings above come from the demo's local IdP: it runs in development mode, and it prefers " +
      "Node 22 while Gatehouse itself supports Node 20.19 and later. Both are expected here.)",
  )
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`The demo could not start: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })
}
