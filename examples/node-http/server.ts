/** Starts the `node:http` demo on port 3000 (or $PORT): `npx tsx examples/node-http/server.ts`. */
import { demoLogin } from "../common/fetch-demo"
import { createDemoServer } from "./app"

const port = Number(process.env.PORT ?? 3000)

createDemoServer().listen(port, () => {
  console.log(`Gatehouse on node:http running at http://localhost:${port}`)
  console.log(`Sign in with username "${demoLogin.username}" and password "${demoLogin.password}"`)
})
