/** Starts the email-and-password example on port 3000 (or $PORT): `npx tsx examples/password/server.ts`. */
import { app } from "./app"

const port = Number(process.env.PORT ?? 3000)
app.listen(port, () => console.log(`Email and password example on http://localhost:${port} (mail: /dev/mailbox)`))
