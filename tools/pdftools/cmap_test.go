package pdftools

import "testing"

// A ToUnicode CMap as producers write it (the PostScript prelude is
// skipped, not run), with every kind of mapping.
const testCMap = `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
3 beginbfchar
<0003> <0020>
<0024> <FB01>
<0025> <D835DC00>
endbfchar
3 beginbfrange
<0044> <0046> <0061>
<00FE> <0101> <0041>
<0200> <0202> [<0078> <00660066> (z)]
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end`

func TestParseCMap(t *testing.T) {
	m := parseCMap([]byte(testCMap))
	for _, tt := range []struct {
		code uint32
		want string
	}{
		{0x0003, " "},
		{0x0024, "ﬁ"},
		{0x0025, "𝐀"}, // a surrogate pair
		{0x0044, "a"},
		{0x0046, "c"},
		{0x00FF, "B"},
		{0x0101, "D"}, // the range crosses a byte boundary
		{0x0200, "x"},
		{0x0201, "ff"},
		{0x0202, "z"},
	} {
		if got, ok := m.lookup(tt.code, 2); !ok || got != tt.want {
			t.Errorf("code %04X: got %q, %v; want %q", tt.code, got, ok, tt.want)
		}
	}
	if _, ok := m.lookup(0x0047, 2); ok {
		t.Error("code 0047 is in no mapping but was found")
	}
	if code, n := m.space.next("\x00\x44rest"); code != 0x44 || n != 2 {
		t.Errorf("codespace: got %X, %d bytes; want 44, 2", code, n)
	}
}

func TestCodespaceMixedLengths(t *testing.T) {
	m := parseCMap([]byte("2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange"))
	s := "\x41\x81\x40\x42"
	var codes []uint32
	for len(s) > 0 {
		c, n := m.space.next(s)
		codes = append(codes, c)
		s = s[n:]
	}
	if len(codes) != 3 || codes[0] != 0x41 || codes[1] != 0x8140 || codes[2] != 0x42 {
		t.Errorf("codes %X, want [41 8140 42]", codes)
	}
}

// FuzzParseCMap: any bytes give a CMap, in time linear in their length.
func FuzzParseCMap(f *testing.F) {
	f.Add([]byte(testCMap))
	f.Add([]byte("1 beginbfrange <0000> <FFFF> [<0041>] endbfrange"))
	f.Add([]byte("(unterminated \\"))
	f.Add([]byte("<0 1 2"))
	f.Add([]byte("1 beginbfchar <01> /uni0041 endbfchar ] >> ) {"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := parseCMap(data)
		for code := uint32(0); code < 4; code++ {
			m.lookup(code, 1)
		}
		if len(data) > 0 {
			m.space.next(string(data))
		}
	})
}
