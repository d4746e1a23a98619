// Loads the reference-produced session JWT vectors from the shared spec folder.
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
  JSON.parse(readFileSync(path.resolve(__dirname, "../../../shared/spec/vectors/jwt.json"), "utf8")) as {
    vectors: JwtVector[]
  }
).vectors

export function vector(name: string): JwtVector {
  const found = vectors.find((v) => v.name === name)
  if (!found) throw new Error(`missing vector ${name}`)
  return found
}
