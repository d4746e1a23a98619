/** Starts the demo on port 3000 (or $PORT): `npm run demo`. */
import { app, demoLogin } from "./app"

const port = Number(process.env.PORT ?? 3000)
app.listen(port, () => {
  console.log(`Gatehouse demo running at http://localhost:${port}`)
  console.log(`Sign in with username "${demoLogin.username}" and password "${demoLogin.password}"`)
})
