// Instagram: configuration and profile mapping (the catalogue's unit test of this provider).
import Instagram from "../../lib/providers/instagram"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Instagram,
  id: "instagram",
  name: "Instagram",
  type: "oauth",
  authorization: "https://www.instagram.com/oauth/authorize",
  token: "https://api.instagram.com/oauth/access_token",
  userinfo: "https://graph.instagram.com/v21.0/me?fields=user_id,username,name,profile_picture_url",
  scope: "instagram_business_basic",
  clientAuth: "client_secret_post",
  user: {
    id: "17841405822304914",
    name: "studio.lumen",
    email: null,
    image: "https://scontent.cdninstagram.com/v/t51.2885-19/abc.jpg",
  },
})
