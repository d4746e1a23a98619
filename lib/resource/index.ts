/**
 * `gatehouse-auth/resource`: protect an API with access tokens from any issuer (tokens.md T4): RFC 9068 JWTs, RFC 7662
 * introspection, RFC 6750 answers, DPoP-bound tokens (RFC 9449) and RFC 9728 metadata. Independent of the auth core.
 */
export { requireAccessToken } from "./express"
export { verifyAccessToken } from "./fetch"
export { protectedResourceMetadata } from "./metadata"
export type { ProtectedResourceMetadata, ProtectedResourceMetadataOptions } from "./metadata"
export type { IntrospectionOptions, ResourceServerOptions } from "./options"
export type { AccessTokenInfo } from "./verify"
export { AccessTokenError } from "../errors"
export type { AccessTokenErrorCode } from "../errors"
