// Descope: configuration and profile mapping (the catalogue's unit test of this provider).
import Descope from "../../lib/providers/descope"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Descope,
  id: "descope",
  name: "Descope",
  type: "oidc",
  // The project id is the client id; the issuer follows from it unless given.
  issuer: "https://api.descope.com/client-123",
  scope: "openid profile email",
  checks: ["state"],
  user: {
    id: "U2xyzABC123",
    name: "Noa Levi",
    email: "noa@example.com",
    image: "https://avatars.descope.example/noa.png",
  },
})

test("descope: an explicit issuer wins over the one derived from the project id", () => {
  expect(Descope({ clientId: "P1", issuer: "https://auth.example.com/P1" }).options?.issuer).toBe(
    "https://auth.example.com/P1",
  )
  expect(Descope({ clientId: "P1" }).options?.issuer).toBe("https://api.descope.com/P1")
})
