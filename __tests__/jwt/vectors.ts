// Loads the session JWT vectors produced by Auth.js (kept in __tests__/fixtures/vectors, so a plain clone tests them).
import { readFileSync } from "node:fs"
import path from "node:path"

export interface JwtVector {
  name: string
  encodeSecret: string
  decodeSecret: string | string[]
  salt: string
  jwe: string
  protectedHeader?: { alg: string; enc: string; kid: string }
  payload?: Record<string, unknown>
  mustFail?: boolean
}

export const vectors: JwtVector[] = (
  JSON.parse(readFileSync(path.resolve(__dirname, "../fixtures/vectors/jwt.json"), "utf8")) as {
    vectors: JwtVector[]
  }
).vectors

export function vector(name: string): JwtVector {
  const found = vectors.find((v) => v.name === name)
  if (!found) throw new Error(`missing vector ${name}`)
  return found
}
