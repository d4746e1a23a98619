/**
 * Starts the demo on port 3000 (or $PORT) and its local identity provider on 127.0.0.1:3001 (or $DEMO_IDP_PORT):
 * `npm run demo`.
 */
import { app, demoLogin } from "./app"
import { localIdpPort, startLocalIdp } from "./local-idp"

const port = Number(process.env.PORT ?? 3000)

async function main(): Promise<void> {
  // The IdP must be up before the app takes requests: the sign-in button discovers it on first use.
  const idp = await startLocalIdp({
    port: localIdpPort(),
    appOrigins: [`http://localhost:${port}`, `http://127.0.0.1:${port}`],
  })
  app.listen(port, () => {
    console.log(`Gatehouse demo running at http://localhost:${port}`)
    console.log(`Sign in with username "${demoLogin.username}" and password "${demoLogin.password}"`)
    console.log(`or with the local identity provider at ${idp.issuer} (any login and password)`)
    console.log("(oidc-provider's development-only warnings above are expected for this local IdP)")
  })
}

main().catch((error: unknown) => {
  console.error("The demo could not start:", error)
  process.exitCode = 1
})
