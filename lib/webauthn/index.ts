/**
 * The WebAuthn engine: provider resolution, the relying party, challenges (behind a narrow flow context), credential
 * encodings and the signature-counter rule. It imports nothing of the core; the core's `methods/webauthn/` drives it.
 */
export { resolveWebAuthnProvider, isProduction, type ResolvedWebAuthnProvider, type Env } from "./provider"
export { expectedRelyingParty, type ExpectedRelyingParty } from "./relying-party"
export {
  newChallenge,
  issueChallenge,
  consumeChallenge,
  type Ceremony,
  type ChallengeFlow,
  type ChallengeValue,
  type RegisterData,
} from "./challenge"
export { simpleWebAuthn } from "./library"
export * from "./encoding"
