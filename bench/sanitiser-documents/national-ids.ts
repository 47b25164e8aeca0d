/** Support tickets, HR notes and forms from many countries, each carrying national identifiers. */
export const NATIONAL_ID_DOCUMENTS: readonly string[] = [
  `Subject: Payroll onboarding – new starter in Leeds
Hi team, please set up Priya on payroll from 1 March. Her National Insurance number is «pii.uk_nino|JX 27 10 14 A» and she has a P45 from her previous employer.
Thanks, Gareth`,
  `HMRC letter scanned by the client: "Your NINO «pii.uk_nino|JX333280A» is linked to tax code 1257L." Please update the record.`,
  `Sehr geehrte Damen und Herren,
anbei die Unterlagen für die Lohnabrechnung. Meine steuerliche Identifikationsnummer (Steuer-ID): «pii.de_tax_id|11127081440».
Mit freundlichen Grüßen, Jana Vogt`,
  `Kunde ruft an wegen Rückerstattung; IdNr «pii.de_tax_id|15 000 920 192» laut Bescheid vom 12.03.`,
  `Bonjour, suite à mon arrêt maladie je vous transmets mon numéro de sécurité sociale : «pii.fr_nir|1 79 05 74 152 572 87». Cordialement, Luc`,
  `Dossier mutuelle – assuré principal, N° INSEE «pii.fr_nir|189097460241295», ayant droit : conjoint.`,
  `Zgłoszenie reklamacyjne: klient podał PESEL «pii.pl_pesel|98090928416» oraz adres korespondencyjny w Gdańsku.`,
  `Formularz rekrutacyjny – kandydat: Anna K., PESEL: «pii.pl_pesel|63012586368», stanowisko: analityk.`,
  `Hej! Jag behöver hjälp att byta adress i systemet. Mitt personnummer är «pii.se_personnummer|840521-2484». Tack!`,
  `Ärende 4471: kunden (personnr «pii.se_personnummer|700921-9440») vill säga upp abonnemanget.`,
  `Customer verification (mainland China): resident ID «pii.cn_resident_id|440305197001216607», name matches passport, approved by L. Chen.`,
  `客户身份证号码：«pii.cn_resident_id|440305200201137481»，请核对后放行。`,
  `Singapore branch KYC: applicant NRIC «pii.sg_nric|S8814275F», employment pass holder spouse FIN «pii.sg_nric|G5093827T».`,
  `Please whitelist the contractor; his NRIC is «pii.sg_nric|T0259311J» and the badge expires in June.`,
  `Merhaba, fatura adresimi güncellemek istiyorum. T.C. Kimlik No: «pii.tr_tc_kimlik|12059847680». Teşekkürler.`,
  `Başvuru formu – TCKN «pii.tr_tc_kimlik|14412237824», doğum yeri İzmir.`,
  `Good day, my South African ID number is «pii.za_id|8901135507086» – please link it to my policy.`,
  `FICA documents received: RSA ID «pii.za_id|7805253424084», proof of residence dated last month.`,
  `Beste, mijn rijksregisternummer is «pii.be_national_number|89.09.01-448.96». Kunt u mijn dossier aanpassen?`,
  `Numéro national: «pii.be_national_number|96011303645» (carte d'identité belge, valable jusqu'en 2031).`,
  `Grüezi, für die Pensionskasse: AHV-Nummer «pii.ch_ahv|756.3305.2160.00», Eintritt per 1. April.`,
  `Versicherter: M. Keller, AHV «pii.ch_ahv|7569428152324», Arbeitgeber Zürich.`,
  `Hei! Henkilötunnukseni on «pii.fi_hetu|170987-008X», voitteko päivittää osoitteeni?`,
  `Potilas 2/24 – hetu «pii.fi_hetu|090572-9524», ajanvaraus siirretty.`,
  `Hei, fødselsnummer: «pii.no_fodselsnummer|13019738080» – jeg trenger ny kopi av lønnsslippen.`,
  `Kunde oppgir fodselsnummer «pii.no_fodselsnummer|17018050064» ved innlogging med BankID.`,
];
