// Pinterest: configuration and profile mapping (the catalogue's unit test of this provider).
import Pinterest from "../../lib/providers/pinterest"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Pinterest,
  id: "pinterest",
  name: "Pinterest",
  type: "oauth",
  authorization: "https://www.pinterest.com/oauth",
  token: "https://api.pinterest.com/v5/oauth/token",
  userinfo: "https://api.pinterest.com/v5/user_account",
  scope: "user_accounts:read",
  user: { id: "cozycorner", name: "cozycorner", email: null, image: "https://i.pinimg.com/600x600_R/ab/cd/ef/abc.jpg" },
})
