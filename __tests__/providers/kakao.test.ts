// Kakao: configuration and profile mapping (the catalogue's unit test of this provider).
import Kakao from "../../lib/providers/kakao"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Kakao,
  id: "kakao",
  name: "Kakao",
  type: "oauth",
  authorization: "https://kauth.kakao.com/oauth/authorize",
  token: "https://kauth.kakao.com/oauth/token",
  userinfo: "https://kapi.kakao.com/v2/user/me",
  scope: "",
  clientAuth: "client_secret_post",
  user: {
    id: "3141592653",
    name: "지민",
    email: "jimin@example.kr",
    image: "https://k.kakaocdn.net/dn/abc/img_640x640.jpg",
  },
})
