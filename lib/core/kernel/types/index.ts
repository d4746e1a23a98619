/**
 * Public types of the core: the config (`AuthConfig`), its options, callbacks and events, one module per concern. This
 * folder is the floor of the kernel: it imports no other part of it but the vocabularies of the limiter, the audit
 * trail and the account features. The models they carry live in `lib/models.ts` and are re-exported here for existing
 * imports.
 */
export type * from "./config"
export type * from "./session"
export type * from "./cookies"
export type * from "./callbacks"
export type * from "./events"
export type * from "./tokens"
export type * from "../rate-limit/types"
export type { Account, Awaitable, JWT, Profile, ProviderType, Session, Theme, TokenSet, User } from "../../../models"
