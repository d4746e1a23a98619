/**
 * Public types of the core: the config (`AuthConfig`), its options, callbacks and events, one module per concern. The
 * models they carry live in `lib/models.ts` and are re-exported here for existing imports.
 */
export type * from "./config"
export type * from "./session"
export type * from "./cookies"
export type * from "./callbacks"
export type * from "./events"
export type * from "./rate-limit"
export type { Account, Awaitable, JWT, Profile, ProviderType, Session, Theme, TokenSet, User } from "../../../models"
