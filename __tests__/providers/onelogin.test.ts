// OneLogin: configuration and profile mapping (the catalogue's unit test of this provider).
import OneLogin from "../../lib/providers/onelogin"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: OneLogin,
  id: "onelogin",
  name: "OneLogin",
  type: "oidc",
  issuer: "required",
  tenantIssuer: "https://acme.onelogin.com/oidc/2",
  scope: "openid profile email",
  user: { id: "98765432", name: "Priya Natarajan", email: "priya@acme.example", image: null },
})
