// Figma: configuration and profile mapping (the catalogue's unit test of this provider).
import Figma from "../../lib/providers/figma"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Figma,
  id: "figma",
  name: "Figma",
  type: "oauth",
  authorization: "https://www.figma.com/oauth",
  token: "https://api.figma.com/v1/oauth/token",
  userinfo: "https://api.figma.com/v1/me",
  scope: "files:read",
  checks: ["state"],
  user: {
    id: "1150373591584296431",
    name: "Ana Designer",
    email: "ana@example.com",
    image: "https://s3-alpha.figma.com/profile/abc",
  },
})
