// The API's secrets at rest use the one AES-256-GCM box of runtime/ (shared with the bridge's signer nodes).
export { createSecretBox, type SecretBox } from "../../runtime/secret-box";
