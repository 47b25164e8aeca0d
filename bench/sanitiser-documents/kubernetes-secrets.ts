/** Kubernetes Secret manifests whose `data:` values hold base64-encoded credentials. */
export const KUBERNETES_SECRET_DOCUMENTS: readonly string[] = [
  `Why does the pod crash-loop? Here is the secret it mounts:

apiVersion: v1
kind: Secret
metadata:
  name: orders-db
type: Opaque
data:
  username: b3JkZXJz
  password: «secret.password_assignment|SzhzLVByMGQtRGJQYXNzITIwMjR4»
  DATABASE_URL: «secret.url_credentials|cG9zdGdyZXM6Ly9hcHA6SHE3dlJ0MkxtOXpLcEBkYi5pbnRlcm5hbDo1NDMyL29yZGVycw==»
`,
  `---
apiVersion: v1
kind: Secret
metadata: { name: ci-robot }
data:
  GITLAB_CREDENTIALS: «secret.gitlab_token|Y2ktcm9ib3Q6Z2xwYXQtUXc4clQ1eVUyaU85cEEzc0Q2Zkc=»
  region: ZXUtd2VzdC0x
`,
];
