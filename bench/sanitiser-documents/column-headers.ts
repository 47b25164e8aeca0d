/**
 * Exports pasted into prompts: CSV, TSV and SQL dumps whose values are personal data only
 * because the column header says so (a bare 9-digit number or a local phone number).
 */
export const COLUMN_HEADER_DOCUMENTS: readonly string[] = [
  `Can you dedupe this export? Some customers appear twice.

customer_id,first_name,last_name,ssn,signup_date
10021,Maria,Lopez,«pii.us_ssn|616399411»,2023-04-02
10022,Derek,Shaw,«pii.us_ssn|340985103»,2023-04-05
10023,Maria,Lopez,«pii.us_ssn|616399411»,2023-04-09
`,
  `employee_id\tname\tdepartment\tmobile\tstart
E-118\tTom Becker\tLogistics\t«pii.phone|0171 4432198»\t2021-09-01
E-119\tSara Olsen\tFinance\t«pii.phone|0152 7781023»\t2022-01-15
E-120\tIvo Marin\tIT\t\t2022-03-01
`,
  `Why does this import fail on row 3?

"id";"company";"contact";"phone";"tax_id"
"1";"Nordwind GmbH";"J. Krause";"«pii.phone|030 2218 4471»";"«pii.de_tax_id|14202232456»"
"2";"Baltic Trade";"P. Nowak";"«pii.phone|022 618 40 12»";"«pii.pl_pesel|98092129440»"
"3";"Acme Ltd";"R. Hill";"n/a";""
`,
  `-- dump of staging db, table patients
INSERT INTO patients (id, full_name, date_of_birth, ssn, phone) VALUES
  (1, 'Linda Park', '1984-02-11', '«pii.us_ssn|500-79-2288»', '«pii.phone|(415) 555-0198»'),
  (2, 'Omar Haddad', '1990-07-30', '«pii.us_ssn|412812954»', NULL);
INSERT INTO patients (id, full_name, date_of_birth, ssn, phone) VALUES (3, 'Kim Wu', '1979-12-01', NULL, '«pii.phone|650 555 0143»');
`,
  `Here's the COPY output from pg_dump, can you tell me which rows break the unique index?

COPY public.members (member_id, email_verified, national_id, city) FROM stdin;
501\tt\t«pii.se_personnummer|630121-8704»\tMalmö
502\tf\t«pii.no_fodselsnummer|25058118888»\tBergen
503\tt\t\\N\tOslo
\\.
`,
  `| user | tel | tin |
|------|-----|-----|
| hkim | «pii.phone|02-3142-7788» | «pii.national_id|46-0271014» |
| jdoe | «pii.phone|0412 555 019» | «pii.national_id|10-0333280» |
`,
  // Saved as "CSV UTF-8" by a spreadsheet program: a byte order mark before the first header.
  `\ufeffssn,first_name,last_name,plan
«pii.us_ssn|219447012»,Dana,Whitfield,gold
«pii.us_ssn|531489203»,Marco,Ruiz,silver
`,
  `Hallo, der Import der Kundenliste bricht ab, hier die ersten Zeilen:

Kundennr;Name;Handy;Telefonnummer;Ort
K-1001;Petra Lange;«pii.phone|0151 48213377»;«pii.phone|030 6628 1904»;Berlin
K-1002;Jonas Vogt;«pii.phone|0172 9034418»;;Leipzig
K-1003;Mia Brandt;;«pii.phone|089 3319 2270»;München
`,
  `imie,nazwisko,telefon_komorkowy,miasto
Anna,Kowalczyk,«pii.phone|512 884 203»,Kraków
Piotr,Zieliński,«pii.phone|694 120 587»,Gdańsk
`,
  `nom;prenom;portable
Lefèvre;Claire;«pii.phone|06 71 28 44 90»
Girard;Hugo;«pii.phone|07 62 19 83 05»
`,
  `姓名,手机号码,城市
王芳,«pii.phone|13912345678»,南京
刘洋,«pii.phone|15087654321»,杭州
`,
];
