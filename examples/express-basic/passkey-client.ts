// The demo serves gatehouse-auth/client/webauthn to the browser. An app bundles it (or serves dist/client/webauthn.mjs);
// the demo runs from the sources, so it compiles the module once with TypeScript (a development dependency).
import { readFileSync } from "node:fs"
import path from "node:path"
import ts from "typescript"

let compiled: string | undefined

/** The client module as browser JavaScript (ES2022 module). */
export function passkeyClientScript(): string {
  compiled ??= ts.transpileModule(readFileSync(path.join(__dirname, "../../lib/client/webauthn.ts"), "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText
  return compiled
}
