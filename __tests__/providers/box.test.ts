// Box: configuration and profile mapping (the catalogue's unit test of this provider).
import Box from "../../lib/providers/box"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Box,
  id: "box",
  name: "Box",
  type: "oauth",
  authorization: "https://account.box.com/api/oauth2/authorize",
  token: "https://api.box.com/oauth2/token",
  userinfo: "https://api.box.com/2.0/users/me",
  scope: "openid profile email",
  user: {
    id: "11446498",
    name: "Aaron Levie",
    email: "ceo@example.com",
    image: "https://www.box.com/api/avatar/large/11446498",
  },
})
