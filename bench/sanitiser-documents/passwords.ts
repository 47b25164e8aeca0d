/** Passwords outside `key=value`: shell history, other languages, Helm values, Terraform state, registry auth. */
export const PASSWORD_DOCUMENTS: readonly string[] = [
  `$ history | tail -5
  501  sshpass -p «secret.password_assignment|Wq8!rZt2pLm» ssh deploy@10.20.0.14
  502  redis-cli -h cache-01 -a «secret.password_assignment|Rd5$kPq9Vx2n» INFO keyspace
  503  mysql -u root -p«secret.password_assignment|My5ql_r00t#Pw» -h 127.0.0.1 shop
  504  openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:«secret.password_assignment|Pk12#exp0rtZ»
  505  redis-server --requirepass «secret.password_assignment|Rq7mN2xV8tLp»`,
  `Hola, no puedo entrar al portal. Usuario: mgarcia, contraseña: «secret.password_assignment|Gato2024!luna». ¿Me ayudan?`,
  `Bonjour, voici les accès du serveur de test. Identifiant : admin / mot de passe : «secret.password_assignment|Soleil#Rouge77»`,
  `Hallo IT, mein neues Passwort «secret.password_assignment|Wintersonne_88!» funktioniert im VPN nicht. Kennwort für das WLAN: «secret.password_assignment|Kaffee-Tasse-42»`,
  `Oi, a senha do roteador é «secret.password_assignment|Brisa@Mar2023» e o usuário é admin.`,
  `Hoi, het wachtwoord voor de gedeelde mailbox is «secret.password_assignment|Tulp3n!Veld9».`,
  `Cześć, hasło do bazy: «secret.password_assignment|Zamek#Wawel12», login: raporty.`,
  `Ciao, la password dell'account di test è «secret.password_assignment|Vesuvio_2024x».`,
  `# values-prod.yaml
env:
  - name: DB_USER
    value: orders
  - name: DB_PASSWORD
    value: «secret.password_assignment|pR0d-0rd3rs!x9»
  - name: LOG_LEVEL
    value: info`,
  `terraform.tfstate excerpt:
{
  "type": "aws_db_instance",
  "instances": [{ "attributes": { "username": "app", "password": "«secret.password_assignment|Tf$tate-Db-Pw91»", "port": 5432 } }]
}`,
  `~/.docker/config.json on the build agent:
{
  "auths": {
    "registry.example.io": { "auth": "«secret.docker_auth|ZGVwbG95LWJvdDpWdDkjcEwycVd6IW0=»" }
  }
}`,
  `curl -H "Authorization: Basic «secret.bearer_token|YWRtaW46VHIwdWI0ZG9yJjN4»" https://jenkins.internal/api/json`,
];
