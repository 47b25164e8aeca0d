/**
 * The words that say a number is a phone number, in one place for the two detectors that read
 * them: numbers.ts before a number in prose ("Handy: 0151 ..."), tabular.ts as a column header
 * (`Handy`, `Telefonnummer`, `telefon_komorkowy`). Each entry is a lower-case regex fragment that
 * both RE2 (the prefilter) and V8 accept: no lookaround, no `\b`.
 */

/**
 * Words that name a phone number: English, and the labels of the languages Porch's users write
 * in (German `Handy`, `Telefonnummer`; French `Portable`, `Tél`; Polish `komórka`, `telefonu`;
 * Swedish `mobilnummer`; Spanish `Móvil`; Turkish `Cep telefonu`...).
 */
export const PHONE_LABEL_WORDS: readonly string[] = [
  'phones?',
  'phonenumber',
  'telephone',
  't[eé]l',
  'mobile',
  'mob',
  'cell',
  'cellphone',
  'fax',
  'landline',
  'hotline',
  'whatsapp',
  'tlf',
  'telefon',
  't[eé]l[eé]phone',
  'handy',
  'handynummer',
  'mobil',
  'mobilnummer',
  'mobilnr',
  'mobiel',
  'telefonnummer',
  'telefonnr',
  'telefoonnummer',
  'rufnummer',
  'festnetz',
  'portable',
  'tel[eé]fono',
  'telefonu',
  'm[oó]vil',
  'celular',
  'cellulare',
  'telem[oó]vel',
  'kom[oó]rka',
  'gsm',
];

/** Words that make a number that follows a phone number in prose only ("call", "reach me on"): no column is named so. */
export const PHONE_PROSE_WORDS: readonly string[] = [
  'desk',
  'office',
  'sms',
  'texts?',
  'call',
  'calls',
  'called',
  'calling',
  'dial',
  'dialed',
  'ring',
  'reach',
  'contact',
  'messages?',
  'answering',
  'answer',
];

/** Chinese, Japanese and Korean phone labels (`手机`, `电话`, `携帯`, `전화`): written without blanks around them. */
export const CJK_PHONE_LABELS: readonly string[] = ['手机', '手機', '电话', '電話', '携帯', '휴대폰', '전화'];
