/**
 * Documents holding nothing sensitive that look as if they might: vendors' documented example
 * keys, placeholders (also base64-encoded), mail headers, device ids, version numbers, cache keys
 * and numbers that are not phone numbers. Every warn or block finding on them is a false alarm.
 */
export const FALSE_ALARM_DOCUMENTS: readonly string[] = [
  `# From the AWS CLI docs – configure a profile
[default]
aws_access_key_id = AKIAIOSFODNN7EXAMPLE
aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
region = us-west-2`,
  `Stripe quick start: set STRIPE_SECRET_KEY=sk_test_4eC39HqLyjWDarjtT1zdp7dc in your .env, then run npm start.`,
  `Example from the README: Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ= (that is just username:password in base64).`,
  `apiVersion: v1
kind: Secret
metadata:
  name: example
data:
  password: Y2hhbmdlbWU=
  username: YWRtaW4=`,
  `Received: from mail-qk1-f171.google.com
Message-ID: <CAKx9Tq2vR8sN0d4=pFq7mWw3@mail.gmail.com>
In-Reply-To: <20261102091407.4a1b2c3d@relay.example.net>
References: <a8f3c2e1-77b2-4c0e-9d11-5e6f7a8b9c0d@outlook.example.com>
Subject: Re: quarterly numbers`,
  `Device report: IMEI 352099118437512, IMEI2 860431052277197, firmware 2.4.1, battery 87 %.`,
  `Upgrade log: Microsoft .NET Framework 4.8.4161.0 installed; FileVersion 10.0.19041.1; chrome/120.0.6099.109; kernel 5.15.0.105.`,
  `Assembly binding: Newtonsoft.Json, Version=13.0.3.0, Culture=neutral. nuget restore pulled System.Memory 4.5.5.0 and build 2.1.4.12.`,
  `cache_key = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
etag_token: "d41d8cd98f00b204e9800998ecf8427e"
build cache: layer_digest_token=sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709`,
  `Order 20261102 shipped in 3 parcels; tracking 1Z999AA10123456784; invoice total 1234567.89 EUR; batch 4400 7781 2.`,
  `Set DB_PASSWORD=<your-password-here> and API_TOKEN=\${API_TOKEN} before running; see docs for password: ******** handling.`,
  `# config.example.yaml
github_token: ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
openai_api_key: sk-...your-key...
slack_webhook: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX`,
  `Testing the checkout: in test mode use 4242 4242 4242 4242 with any future date and any CVC;
4000 0000 0000 0002 is always declined, 4000 0000 0000 9995 fails for insufficient funds and
5555 5555 5555 4444 is the Mastercard. Amex: 3782 822463 10005.`,
  `docker run -d --name web -p 8080:80 -p 127.0.0.1:5432:5432 postgres:16
ssh -p 2222 bastion.example.com
mongosh -p --authenticationDatabase admin`,
];
