// Snapchat: configuration and profile mapping (the catalogue's unit test of this provider).
import Snapchat from "../../lib/providers/snapchat"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Snapchat,
  id: "snapchat",
  name: "Snapchat",
  type: "oauth",
  authorization: "https://accounts.snapchat.com/accounts/oauth2/auth",
  token: "https://accounts.snapchat.com/accounts/oauth2/token",
  userinfo: "https://kit.snapchat.com/v1/me?query={me{externalId displayName bitmoji{avatar}}}",
  scope:
    "https://auth.snapchat.com/oauth2/api/user.display_name https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar https://auth.snapchat.com/oauth2/api/user.external_id",
  user: {
    id: "CAESIPiRBp0e5gLDq7VVurQ3rVdmdbqxpOJWynjyBL/xlo0w",
    name: "Snap User",
    email: null,
    image: "https://sdk.bitmoji.com/render/panel/abc.png",
  },
})
