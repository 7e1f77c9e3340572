/**
 * Character classes of Go's RE2 syntax (regexp/syntax perl_groups.go and parse.go), for the tag
 * filters of queries (docs/design.md, "Queries"). A class tests one code point at a time, so no
 * class can cost more than its own size.
 */

/** A test of one code point. */
export type CodePointTest = (cp: number) => boolean;

/** `\d`, `\s`, `\w` as Go has them: ASCII only (regexp/syntax perl_groups.go). Pairs lo, hi. */
export const PERL_GROUPS: ReadonlyMap<string, readonly number[]> = new Map([
  ['d', [0x30, 0x39]],
  ['s', [0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20]],
  ['w', [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]],
]);

/** `[:name:]` inside brackets (regexp/syntax perl_groups.go posixGroup). Pairs lo, hi. */
export const POSIX_GROUPS: ReadonlyMap<string, readonly number[]> = new Map([
  ['alnum', [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a]],
  ['alpha', [0x41, 0x5a, 0x61, 0x7a]],
  ['ascii', [0x00, 0x7f]],
  ['blank', [0x09, 0x09, 0x20, 0x20]],
  ['cntrl', [0x00, 0x1f, 0x7f, 0x7f]],
  ['digit', [0x30, 0x39]],
  ['graph', [0x21, 0x7e]],
  ['lower', [0x61, 0x7a]],
  ['print', [0x20, 0x7e]],
  ['punct', [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e]],
  ['space', [0x09, 0x0d, 0x20, 0x20]],
  ['upper', [0x41, 0x5a]],
  ['word', [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]],
  ['xdigit', [0x30, 0x39, 0x41, 0x46, 0x61, 0x66]],
]);

/** Go 1.19's unicode.Categories: the names `\p{…}` accepts besides scripts and `Any`. */
const GO_CATEGORIES = new Set(
  'C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(' '),
);

/** Go 1.19's unicode.Scripts (Unicode 13.0.0). JS also knows aliases (`Grek`) that Go refuses, so we list Go's. */
const GO_SCRIPTS = new Set(
  (
    'Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki ' +
    'Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee ' +
    'Chorasmian Common Coptic Cuneiform Cypriot Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan ' +
    'Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi ' +
    'Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited ' +
    'Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kayah_Li Kharoshthi ' +
    'Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian ' +
    'Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui ' +
    'Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nandinagari New_Tai_Lue ' +
    'Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian Old_Permic ' +
    'Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau ' +
    'Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting ' +
    'Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet ' +
    'Takri Tamil Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Ugaritic Vai Wancho Warang_Citi Yezidi Yi ' +
    'Zanabazar_Square'
  ).split(' '),
);

/**
 * The test for `\p{name}`, or undefined when Go does not know the name. The JS engine's Unicode
 * tables answer (one code point at a time, so no backtracking); they may be newer than Go 1.19's
 * Unicode 13. Go's `C` leaves out unassigned code points, which JS's `\p{C}` includes.
 */
export function unicodeClass(name: string): CodePointTest | undefined {
  if (name === 'Any') return () => true;
  let source: string;
  if (name === 'C') source = '[\\p{gc=Cc}\\p{gc=Cf}\\p{gc=Co}\\p{gc=Cs}]';
  else if (GO_CATEGORIES.has(name)) source = `\\p{gc=${name}}`;
  else if (GO_SCRIPTS.has(name)) source = `\\p{sc=${name}}`;
  else return undefined;
  const re = new RegExp(`^${source}$`, 'u');
  return (cp) => re.test(String.fromCodePoint(cp));
}

/** Whether `cp` lies in one of the inclusive ranges `lo, hi, lo, hi, …`. */
export function inRanges(ranges: readonly number[], cp: number): boolean {
  for (let i = 0; i + 1 < ranges.length; i += 2) {
    if (cp >= (ranges[i] as number) && cp <= (ranges[i + 1] as number)) return true;
  }
  return false;
}

/** A code point's single-code-point lower or upper case, or itself (ASCII without allocating). */
function simpleCase(cp: number, upper: boolean): number {
  if (cp < 0x80) {
    if (upper) return cp >= 0x61 && cp <= 0x7a ? cp - 0x20 : cp;
    return cp >= 0x41 && cp <= 0x5a ? cp + 0x20 : cp;
  }
  if (cp >= 0xd800 && cp <= 0xdfff) return cp;
  const s = String.fromCodePoint(cp);
  const mapped = upper ? s.toUpperCase() : s.toLowerCase();
  const c = mapped.codePointAt(0) as number;
  // 'ß'.toUpperCase() is 'SS': Go's simple folding maps code points to code points only.
  return mapped.length === (c > 0xffff ? 2 : 1) ? c : cp;
}

/**
 * `test` under `(?i)`: the code point, its lower case or its upper case passes. Go folds along
 * Unicode's simple-fold orbits (regexp/syntax appendFoldedRange); lower and upper case agree with
 * them except on a few non-ASCII orbits of three (the Kelvin sign with k and K, for example).
 */
export function folded(test: CodePointTest): CodePointTest {
  return (cp) => test(cp) || test(simpleCase(cp, false)) || test(simpleCase(cp, true));
}

/** ASCII word characters, for `\b` and `\B` (Go regexp/syntax IsWordChar). */
export function isWordChar(cp: number): boolean {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || cp === 0x5f || (cp >= 0x61 && cp <= 0x7a);
}
