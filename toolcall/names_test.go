package toolcall

import "testing"

// The first- and last-letter test of placeholderName must let every
// placeholder through, in any case and with separators inside.
func TestPlaceholderNames(t *testing.T) {
	for folded := range placeholderNames {
		for _, n := range []string{folded, folded[:2] + "_" + folded[2:], upper(folded)} {
			if len(n) >= 4 && len(n) <= 24 && !placeholderName(n) {
				t.Errorf("placeholderName(%q) = false", n)
			}
		}
	}
	for _, n := range []string{"read_file", "get_weather", "tools", "funnel", "Tool_Name_X"} {
		if placeholderName(n) {
			t.Errorf("placeholderName(%q) = true", n)
		}
	}
}

// One name rule: Unicode letters, marks and digits plus _ - . :
func TestValidName(t *testing.T) {
	for _, n := range []string{"read_file", "github:list-issues", "a.b.c", "获取天气", "météo", "погода", "検索", "हिन्दी", "x1"} {
		if !validName(n) {
			t.Errorf("validName(%q) = false", n)
		}
	}
	for _, n := range []string{"", "read file", "a/b", "a\"b", "tool\n", "x<y", "天气。", "a\xffb", "😀"} {
		if validName(n) {
			t.Errorf("validName(%q) = true", n)
		}
	}
	for c := 0; c < 128; c++ {
		want := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':'
		if nameASCII[c] != want || isNameByte(byte(c)) != want {
			t.Errorf("byte %q: name byte %v, want %v", rune(c), nameASCII[c], want)
		}
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
