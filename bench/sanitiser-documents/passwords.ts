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
  `$ history | grep -E 'login|sqlcmd|ldap|keytool'
  611  docker login -u ci-bot -p «secret.password_assignment|Dk7#rT2mQz9w» registry.example.io
  612  sqlcmd -S sql01.corp.local -U sa -P «secret.password_assignment|Sq1!Adm1nPw» -Q "SELECT @@VERSION"
  613  ldapsearch -x -H ldaps://dc01.corp.local -D "cn=svc-ldap,ou=svc,dc=corp,dc=local" -w «secret.password_assignment|Ld4p&Bind77» -b "dc=corp,dc=local" "(uid=jdoe)"
  614  keytool -importcert -alias api -file api.crt -keystore truststore.jks -storepass «secret.password_assignment|Tr5tSt0re!x»
  615  htpasswd -b -c /etc/nginx/.htpasswd grafana «secret.password_assignment|Gr4f#Ana2026»
  616  smbclient //fs01/finance -U reports%«secret.password_assignment|Smb9$Fin4nce»
  617  mongosh "mongodb://mongo01:27017/admin" -u admin -p «secret.password_assignment|M0ng0!Adm9x»
  618  az login --service-principal -u 3f0c1a2b-ops -p «secret.password_assignment|Az.Sp~8kQ2vLx» --tenant corp.example
  619  mysql -uroot -p«secret.password_assignment|-Rt7kWq2Lm9» -h 127.0.0.1
  620  redis-cli -h cache02 -a «secret.password_assignment|-9vXp#Lq4Tz» INFO
  621  docker run -d -p 8080:80 -p 127.0.0.1:9000:9000 nginx:1.27`,
  `REM map the archive share at logon
net use Z: \\\\files01\\archive /user:CORP\\svc-backup «secret.password_assignment|Bkp#2026!arch» /persistent:no`,
  `$ cat ~/.pgpass
db-prod.internal:5432:billing:billing_rw:«secret.password_assignment|Pg7vR2xQ9mTk4Lw»
*:5432:*:replicator:«secret.password_assignment|Rep1ic8-Str3amZ»`,
  `~/.netrc on the CI runner:
machine artifacts.example.com login deploy password «secret.password_assignment|Nt8qW3zX7vLp2KmR5s»`,
  `-- provisioning script
CREATE USER reporting WITH PASSWORD '«secret.password_assignment|Rp9!xLm4Qw7zTk2V»';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO reporting;`,
];
