/** The `gatehouse-auth/jwt` entry: issue, read and find session JWTs (wire-compatible with Auth.js). */
export { encode } from "./encode"
export { decode } from "./decode"
export { getToken } from "./get-token"
export type { GetTokenParams, GetTokenResult, JWTDecodeParams, JWTEncodeParams } from "./types"
