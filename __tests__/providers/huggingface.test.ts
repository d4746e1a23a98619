// Hugging Face: configuration and profile mapping (the catalogue's unit test of this provider).
import Huggingface from "../../lib/providers/huggingface"
import { describeProvider } from "./support/describe-provider"

describeProvider({
  factory: Huggingface,
  id: "huggingface",
  name: "Hugging Face",
  type: "oidc",
  issuer: "https://huggingface.co",
  scope: "openid profile email",
  checks: ["state"],
  user: {
    id: "65a1b2c3d4e5f60718293a4b",
    name: "Omar Haddad",
    email: "omar@example.com",
    image: "https://cdn-avatars.huggingface.co/v1/production/uploads/abc.png",
  },
})
