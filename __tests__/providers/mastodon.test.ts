// Mastodon: configuration and profile mapping (the catalogue's unit test of this provider).
import Mastodon from "../../lib/providers/mastodon"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Mastodon,
  id: "mastodon",
  name: "Mastodon",
  type: "oauth",
  issuer: "required",
  tenantIssuer: "https://mastodon.example",
  authorization: "https://mastodon.example/oauth/authorize",
  token: "https://mastodon.example/oauth/token",
  userinfo: "https://mastodon.example/api/v1/accounts/verify_credentials",
  scope: "read",
  user: {
    id: "109302436954721982",
    name: "alice",
    email: null,
    image: "https://files.mastodon.example/accounts/avatars/static/alice.png",
  },
})
