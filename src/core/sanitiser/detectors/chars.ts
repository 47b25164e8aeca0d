/**
 * Named UTF-16 code units for detectors that read text with `charCodeAt`: comparing numbers is
 * cheaper than comparing one-character strings in their inner loops, and a name says which
 * character a comparison means where a bare `61` does not.
 */

export const TAB = 0x09; // '\t'
export const LINE_FEED = 0x0a; // '\n'
export const CARRIAGE_RETURN = 0x0d; // '\r'
export const SPACE = 0x20; // ' '
export const EXCLAMATION_MARK = 0x21; // '!'
export const DOUBLE_QUOTE = 0x22; // '"'
export const AMPERSAND = 0x26; // '&'
export const APOSTROPHE = 0x27; // "'"
export const LEFT_PARENTHESIS = 0x28; // '('
export const RIGHT_PARENTHESIS = 0x29; // ')'
export const COMMA = 0x2c; // ','
export const HYPHEN = 0x2d; // '-'
export const FULL_STOP = 0x2e; // '.'
export const COLON = 0x3a; // ':'
export const SEMICOLON = 0x3b; // ';'
export const LESS_THAN = 0x3c; // '<'
export const EQUALS = 0x3d; // '='
export const GREATER_THAN = 0x3e; // '>'
export const QUESTION_MARK = 0x3f; // '?'
export const UPPER_A = 0x41; // 'A'
export const UPPER_Z = 0x5a; // 'Z'
export const BACKSLASH = 0x5c; // '\\'
export const RIGHT_SQUARE_BRACKET = 0x5d; // ']'
export const UNDERSCORE = 0x5f; // '_'
export const BACKTICK = 0x60; // '`'
export const LOWER_A = 0x61; // 'a'
export const LOWER_I = 0x69; // 'i'
export const LOWER_V = 0x76; // 'v'
export const LOWER_Z = 0x7a; // 'z'
export const RIGHT_CURLY_BRACKET = 0x7d; // '}'
