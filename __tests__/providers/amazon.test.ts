// Amazon: configuration and profile mapping (the catalogue's unit test of this provider).
import Amazon from "../../lib/providers/amazon"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Amazon,
  id: "amazon",
  name: "Amazon",
  type: "oauth",
  authorization: "https://www.amazon.com/ap/oa",
  token: "https://api.amazon.com/auth/o2/token",
  userinfo: "https://api.amazon.com/user/profile",
  scope: "profile",
  user: {
    id: "amzn1.account.AFPF3OVEWXYZ0123456789ABCD",
    name: "Chris Shopper",
    email: "chris@example.com",
    image: null,
  },
})
