// Kick: configuration and profile mapping (the catalogue's unit test of this provider).
import Kick from "../../lib/providers/kick"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Kick,
  id: "kick",
  name: "Kick",
  type: "oauth",
  authorization: "https://id.kick.com/oauth/authorize",
  token: "https://id.kick.com/oauth/token",
  userinfo: "https://api.kick.com/public/v1/users",
  scope: "user:read",
  clientAuth: "client_secret_post",
  user: {
    id: "4377088",
    name: "streamer",
    email: "streamer@example.com",
    image: "https://files.kick.com/images/user/4377088/profile_image/conversion/abc.webp",
  },
})
