/** `npm run docs:api`: writes the generated API reference pages (docs/reference/api/, not committed). */
import path from "node:path"
import { writeApiReference } from "./api-reference"

const root = path.resolve(__dirname, "../..")
const written = writeApiReference(root)
console.log(`docs/reference/api: ${written.length} pages`)
