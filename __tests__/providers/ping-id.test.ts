// Ping Identity: configuration and profile mapping (the catalogue's unit test of this provider).
import PingId from "../../lib/providers/ping-id"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: PingId,
  id: "ping-id",
  name: "Ping Identity",
  type: "oidc",
  issuer: "required",
  tenantIssuer: "https://auth.pingone.com/env-1/as",
  scope: "openid profile email",
  user: { id: "b6a1c2d3-e4f5-4607-8809-a0b1c2d3e4f5", name: "lars.eriksen", email: "lars@corp.example", image: null },
})
