// What a bank file may carry as text. Banks accept a Latin subset (the EPC's SEPA character set: letters,
// digits, space and / - ? : ( ) . , ' +), and a name they cannot read is a payment they return days later:
// so names and addresses are fitted here, once, before they reach a file. Letters with accents lose them
// (é → e), a few letters are spelled out (ß → ss), anything else becomes a space, and the text is cut to the
// element's length. Every value written goes through escapeXml too, so the writer never emits markup by accident.

/** The SEPA character set, one character at a time. */
const ALLOWED = /[A-Za-z0-9/\-?:().,'+ ]/;

/** Letters that are not an accented form of a base letter (NFD leaves them whole). */
const SPELLED: Record<string, string> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ı: 'i',
  '&': '+',
  '\u2019': "'",
  '\u2018': "'",
  '\u2013': '-',
  '\u2014': '-',
  _: '-',
};

/**
 * The text in the SEPA character set and at most `maxLength` characters: accents dropped, a few letters spelled
 * out, every other character a space, spaces collapsed and trimmed. May answer '' (nothing printable was left).
 */
export function fitText(value: string, maxLength: number): string {
  let out = '';
  for (const ch of value.normalize('NFD')) {
    if (ALLOWED.test(ch)) out += ch;
    else if (SPELLED[ch] !== undefined) out += SPELLED[ch];
    else if (/\p{M}/u.test(ch)) continue;
    else out += ' ';
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, maxLength).trimEnd();
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** The text as XML character data or an attribute value (the one escape every value goes through). */
export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}
