// Roblox: configuration and profile mapping (the catalogue's unit test of this provider).
import Roblox from "../../lib/providers/roblox"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Roblox,
  id: "roblox",
  name: "Roblox",
  type: "oidc",
  issuer: "https://apis.roblox.com/oauth/",
  scope: "openid profile",
  checks: ["state"],
  user: {
    id: "1516563360",
    name: "builderman",
    email: null,
    image: "https://tr.rbxcdn.com/30DAY-AvatarHeadshot-abc/150/150/AvatarHeadshot/Png",
  },
})
