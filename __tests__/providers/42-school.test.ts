// 42 School: configuration and profile mapping (the catalogue's unit test of this provider).
import FortyTwo from "../../lib/providers/42-school"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: FortyTwo,
  id: "42-school",
  name: "42 School",
  type: "oauth",
  authorization: "https://api.intra.42.fr/oauth/authorize",
  token: "https://api.intra.42.fr/oauth/token",
  userinfo: "https://api.intra.42.fr/v2/me",
  scope: "public",
  user: {
    id: "129784",
    name: "Maya Jones",
    email: "mjones@student.42.fr",
    image: "https://cdn.intra.42.fr/users/abc/mjones.jpg",
  },
})
