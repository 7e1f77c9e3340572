// generate: Go's own answers for the tag filters of queries (serf query.go shouldProcessQuery
// calls regexp.MatchString(Expr, tags[Tag])), for query-filters.test.ts to compare with our RE2
// port (docs/design.md, "Queries"). One JSON document on stdout.
//
// Standard library only; Go 1.19 (Debian bookworm's, which builds its Serf 0.9.4), from this folder:
//
//	GO111MODULE=off go run generate.go > go-1.19.json
//	GO111MODULE=off go run generate.go orbits > go-1.19-orbits.json
//
// Every expression is compiled by Go: `error` when Go refuses it (so must we), otherwise `matches`
// holds one '1' or '0' per text of `texts`. The curated expressions cover each piece of the syntax
// and the constructs RE2 refuses; the random ones are drawn from a seeded generator over tokens
// chosen to collide (stacked repeats, stray brackets and parens, escapes, flags, letters whose
// case-fold orbits reach beyond ASCII).
//
// With `orbits`, it writes instead every case-fold orbit of two or more code points (Go's
// unicode.SimpleFold, which (?i) folds along), one per line, as hex.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strings"
	"unicode"
)

type entry struct {
	Expr    string `json:"expr"`
	Error   bool   `json:"error,omitempty"`
	Matches string `json:"matches,omitempty"`
}

var texts = []string{
	"", "a", "b", "ab", "abc", "aab", "web", "web-1", "db-12", "A", "AB", "Web",
	"a b", "a\nb", "\n", "x_9", "1", "123", "-", "é", "É", "αβ", "{", "aaaaaaaaaaaaaaaaaaaaaaab",
	// fold orbits beyond ASCII: k K and the Kelvin sign, s S ſ, ß ẞ, the three sigmas, dotted and dotless i
	"k", "K", "\u212a", "s", "ſ", "ß", "ẞ", "σ", "ς", "Σ", "i", "I", "ı", "İ",
}

var curated = []string{
	// literals, unanchored
	"", "a", "e", "web", "web-1", "^web$", "^$", "b$", "^a", "x", "-",
	// dot, newline, flags
	".", "^.$", "a.b", "(?s)a.b", "(?m)^b", "(?m)a$", "a$", "(?i)web", "(?i)WEB", "(?i:W)eb", "W(?i)EB", "(?-i)a",
	"(?i)é", "(?i)É", "(?i)\u212a", "(?i)k", "(?i)ſ", "(?i)s", "(?i)ß", "(?i)ẞ", "(?i)ς", "(?i)Σ", "(?i)ı", "(?i)i",
	"(?i)İ", "(?i)[k]", "(?i)[\u212a]", "(?i)[^k]", "(?i)[a-z]", "(?i)[^a-z]", "(?i)\\w", "(?i)\\W", "(?i)[[:^lower:]]",
	"(?i)[ſ]", "(?i)[α-ω]", "(?i)\\p{Ll}", "(?i)\\P{Lu}", "(?i)\\p{Greek}", "(?U)a+", "(?i-s)a.", "(?)a", "(?i)", "(?im)^B$", "(?s-m).",
	// classes
	"[ab]", "[^ab]", "[a-c]+", "^[a-z]+$", "[]a]", "[^]a]", "[a-]", "[-a]", "[\\d]", "[\\D]", "[^\\n]", "[\\x41-\\x43]",
	"[[:alpha:]]", "[[:^alpha:]]", "[[:digit:]]+", "[[:word:]]", "[[:punct:]]", "[[:space:]]", "[[:upper:]]", "(?i)[[:upper:]]",
	"(?i)[a-c]", "(?i)[^a]", "[^a-zA-Z]", "[a-c-e]", "[\\]]", "[\\-]", "[.]", "[*+?]", "[\\[]",
	// perl classes, unicode
	"\\d", "\\d+", "^\\d+$", "\\D", "\\s", "\\S", "\\w+", "\\W", "\\pL", "\\p{L}", "\\PL", "\\p{Greek}", "\\p{^Greek}",
	"\\P{^Greek}", "\\p{Lu}", "(?i)\\p{Lu}", "\\pN", "\\p{Any}", "[\\p{Greek}a]", "[^\\pL]",
	// assertions
	"\\bweb\\b", "\\Bb", "a\\b", "\\Aweb", "web\\z", "^web\\z", "\\A\\z",
	// repeats
	"a*", "a+", "a?", "a{2}", "a{2,}", "a{1,2}", "a{0}", "^a{0}$", "(ab){2}", "a{,2}", "a{2", "a{}", "a{01}", "a*?", "a+?",
	"a??", "a{2}?", "(a*)*", "(a|b)*c", "(a+)+$", "(a|aa)+$", "(a*)+b", "(?:a+){2,}$", "a{1000}", "(a{10}){100}",
	"x{1000}", "\\d{3}-\\d{4}",
	// alternation and groups
	"a|b", "a|", "|a", "|", "(a|b)c", "(?:web|db)-\\d", "(?P<n>a)b", "((((a))))", "()", "(?:)", "(|a)b",
	// escapes
	"\\.", "\\*", "\\_", "\\-", "\\x41", "\\x{41}", "\\x{0041}", "\\101", "\\0", "\\12", "\\n", "\\t", "\\Qa.b\\E", "\\Qa*",
	"\\Q\\E", "a\\Q\\E*", "\\Qab\\E+", "\\a", "\\f", "\\v", "\\r",
	// what RE2 refuses
	"(", ")", "a)", "(a", "[", "[a", "[]", "[z-a]", "*", "+a", "a**", "a*+", "a++", "a{2}{3}", "a{1001}", "a{2,1}",
	"(a{100}){20}", "((a{10}){10}){11}", "\\1", "(a)\\1", "\\8", "\\Z", "\\C", "\\e", "\\q", "\\é", "(?=a)", "(?!a)",
	"(?<=a)b", "(?<!a)b", "(?<n>a)", "(?P<>a)", "(?P<a-b>x)", "(?P=n)", "(?#c)", "(?-)", "(?i-)", "(?x)", "\\pX",
	"\\p{Foo}", "\\p{Grek}", "\\p", "\\p{", "[[:foo:]]", "\\x", "\\x4", "\\x{}", "\\x{110000}", "\\xZZ", "\\", "a\\",
	"|*", "(*)", "(?i)*", "a(?i)*", "x{2}{,3}", "^*", "$+", "\\b?",
}

var tokens = []string{
	"a", "b", "a", "b", "ab", "e", "w", "1", "-", "_", " ", "\\n", "é", "A", "W", ".", ".", "*", "+", "?", "*", "+", "?",
	"|", "|", "(", "(", ")", ")", "(?:", "(?i)", "(?i:", "(?m)", "(?s)", "(?-i)", "[", "]", "[^", "[a-c]", "^", "$",
	"\\b", "\\B", "\\d", "\\w", "\\s", "\\D", "\\W", "\\A", "\\z", "{2}", "{1,3}", "{0,}", "{2,1}", "{", "}", "{,2}",
	"\\", "\\1", "\\x41", "\\Q", "\\E", "[:alpha:]", "[[:digit:]]", "\\pL", "\\p{Greek}", "\\.", "*?", "??", "(?P<n>",
	"(?=", "-", ",", "k", "K", "\u212a", "s", "ſ", "ς", "ı", "[k-s]",
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "orbits" {
		writeOrbits()
		return
	}
	r := rand.New(rand.NewSource(20240601))
	exprs := append([]string{}, curated...)
	seen := map[string]bool{}
	for _, e := range curated {
		seen[e] = true
	}
	for len(exprs) < len(curated)+1500 {
		var b strings.Builder
		for n := 1 + r.Intn(7); n > 0; n-- {
			b.WriteString(tokens[r.Intn(len(tokens))])
		}
		e := b.String()
		if !seen[e] {
			seen[e] = true
			exprs = append(exprs, e)
		}
	}
	out := struct {
		Go      string   `json:"go"`
		Texts   []string `json:"texts"`
		Entries []entry  `json:"entries"`
	}{Go: "1.19", Texts: texts}
	for _, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			out.Entries = append(out.Entries, entry{Expr: e, Error: true})
			continue
		}
		var m strings.Builder
		for _, t := range texts {
			if re.MatchString(t) {
				m.WriteByte('1')
			} else {
				m.WriteByte('0')
			}
		}
		out.Entries = append(out.Entries, entry{Expr: e, Matches: m.String()})
	}
	// One entry per line, so that a regeneration diffs line by line.
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "{\"go\": %s, \"texts\": %s, \"entries\": [\n", marshal(out.Go), marshal(out.Texts))
	for i, e := range out.Entries {
		sep := ","
		if i == len(out.Entries)-1 {
			sep = ""
		}
		fmt.Fprintf(w, "  %s%s\n", marshal(e), sep)
	}
	fmt.Fprintln(w, "]}")
	if err := w.Flush(); err != nil {
		panic(err)
	}
}

func writeOrbits() {
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "{\"go\": \"1.19\", \"unicode\": %q, \"orbits\": [\n", unicode.Version)
	seen := map[rune]bool{}
	first := true
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if seen[r] || unicode.SimpleFold(r) == r {
			continue
		}
		var hex []string
		for x := r; !seen[x]; x = unicode.SimpleFold(x) {
			seen[x] = true
			hex = append(hex, fmt.Sprintf("%x", x))
		}
		if !first {
			fmt.Fprint(w, ",\n")
		}
		first = false
		fmt.Fprintf(w, "  %q", strings.Join(hex, " "))
	}
	fmt.Fprintln(w, "\n]}")
	if err := w.Flush(); err != nil {
		panic(err)
	}
}

func marshal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
