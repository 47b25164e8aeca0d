/** Logs and tickets with IPv4-mapped IPv6 addresses, obfuscated or internationalised emails and newer card ranges. */
export const ADDRESS_AND_CARD_DOCUMENTS: readonly string[] = [
  `2026-11-02T09:14:07Z WARN auth: 5 failed logins from «pii.ip_address|::ffff:203.0.113.77» (user=svc-report)
2026-11-02T09:14:09Z INFO accepted connection from [«pii.ip_address|::ffff:198.51.100.23»]:51544`,
  `nginx error: upstream timed out while connecting to upstream, client: «pii.ip_address|::FFFF:192.0.2.145», server: shop.example`,
  `Contact our DPO at «pii.email|privacy [at] nordwind-logistik [dot] de» or write to «pii.email|j.krause(at)nordwind-logistik.de».`,
  `If the form fails, mail me: «pii.email|lena.fischer {at} example {dot} org» – thanks!`,
  `Support: «pii.email|jürgen.müller@beispiel-firma.de», Verkauf: «pii.email|vertrieb@bücher-laden.de»`,
  `用户反馈邮箱：«pii.email|张伟@例子.中国»`,
  `Refund please – I paid with my Mastercard «pii.payment_card|2221 0048 1593 0178» on Monday.`,
  `Mir card on file: «pii.payment_card|2200 7043 1892 6046», UnionPay backup «pii.payment_card|6214839201746528100».`,
  `card_number=«pii.payment_card|2720931500661831» exp=09/28`,
  `Please charge «pii.payment_card|5425 2334 3010 9903» 11/28 412 for the renewal, same as last year.`,
  `Kartennummer: «pii.payment_card|4917.4845.8989.7107» (gültig bis 03/29)`,
  `Cards on file for the account: «pii.payment_card|5425 2334 3010 9903» «pii.payment_card|4539 1488 0343 6467» (old one, please remove)`,
  `cards «pii.payment_card|4539 1488 0343 6467» «pii.payment_card|4716 2895 3521 3348» «pii.payment_card|4556 7375 8689 9855» on file`,
  `cards «pii.payment_card|4539 1488 0343 6467» 12/27 «pii.payment_card|4716 2895 3521 3348»`,
  `cards «pii.payment_card|4539 1488 0343 6467» 737 «pii.payment_card|4716 2895 3521 3348»`,
  `«pii.ip_address|203.0.113.9» - - [12/Nov/2026:10:14:03 +0000] "GET /newsletter/subscribe?email=«pii.email|maria.lopez%40example.net»&list=weekly HTTP/1.1" 200 512
Unsubscribe link clicked: https://mail.example.com/u?addr=«pii.email|t.nguyen%2Bpromo%40example.org»&c=88`,
];
