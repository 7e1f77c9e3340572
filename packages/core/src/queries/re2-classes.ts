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
 * The key `(?i)` compares code points by: the lower case of the upper case, so that k, K and the
 * Kelvin sign, or s, S and ſ, share one, as they share one of Unicode's simple-fold orbits, which
 * Go folds along (regexp/syntax appendFoldedRange). The dotless ı upper-cases to I but is alone in
 * its orbit, so it keeps itself. Over every code point, two share a key exactly when they share
 * an orbit in Go 1.19 (Unicode 13); the JS engine's newer Unicode may pair letters added since.
 */
export function foldKey(cp: number): number {
  if (cp < 0x80) return simpleCase(cp, false);
  if (cp === 0x131) return cp;
  return simpleCase(simpleCase(cp, true), false);
}

/**
 * The orbit members that neither case mapping reaches from the others (the Kelvin sign, ſ, ẞ,
 * the Greek symbol forms, titlecase digraphs…), by fold key: the 58 of Go 1.19's orbits.
 */
const HIDDEN_ORBIT_MEMBERS: ReadonlyMap<number, readonly number[]> = (() => {
  const hidden =
    '212a 17f b5 212b 1e9e 1c5 1c8 1cb 1f2 1fbe 345 3d0 3f5 3d1 3f4 3f0 3d6 3f1 3c2 3d5 2126 1c80 1c81 1c82 1c83 ' +
    '1c84 1c85 1c86 1c87 1c88 1e9b 1f88 1f89 1f8a 1f8b 1f8c 1f8d 1f8e 1f8f 1f98 1f99 1f9a 1f9b 1f9c 1f9d 1f9e 1f9f ' +
    '1fa8 1fa9 1faa 1fab 1fac 1fad 1fae 1faf 1fbc 1fcc 1ffc';
  const byKey = new Map<number, number[]>();
  for (const hex of hidden.split(' ')) {
    const cp = parseInt(hex, 16);
    const key = foldKey(cp);
    byKey.set(key, [...(byKey.get(key) ?? []), cp]);
  }
  return byKey;
})();

/** A literal under `(?i)`: the code points of its orbit. */
export function foldedLiteral(r: number): CodePointTest {
  const key = foldKey(r);
  return (cp) => cp === r || foldKey(cp) === key;
}

/**
 * `test` under `(?i)`: some code point of `cp`'s orbit passes. The orbit is `cp`, its cases, its
 * key and the key's upper case, with the hidden members, all sharing the key.
 */
export function folded(test: CodePointTest): CodePointTest {
  return (cp) => {
    if (test(cp)) return true;
    const key = foldKey(cp);
    const upperKey = simpleCase(key, true);
    for (const other of [simpleCase(cp, false), simpleCase(cp, true), key, upperKey, ...(HIDDEN_ORBIT_MEMBERS.get(key) ?? [])]) {
      if (other !== cp && foldKey(other) === key && test(other)) return true;
    }
    return false;
  };
}

/** ASCII word characters, for `\b` and `\B` (Go regexp/syntax IsWordChar). */
export function isWordChar(cp: number): boolean {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || cp === 0x5f || (cp >= 0x61 && cp <= 0x7a);
}
