/** Starts the Hono demo on port 3000 (or $PORT): `npm run demo:hono`. */
import { serve } from "@hono/node-server"
import { demoLogin } from "../common/fetch-demo"
import { createApp } from "./app"

const port = Number(process.env.PORT ?? 3000)

serve({ fetch: createApp().fetch, port }, () => {
  console.log(`Gatehouse on Hono running at http://localhost:${port}`)
  console.log(`Sign in with username "${demoLogin.username}" and password "${demoLogin.password}"`)
})
