package webtools

import (
	"bufio"
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"
)

// TestBlindSpecialPurpose checks the guard against the blind batch in
// testdata/special_purpose.txt, written from the IANA registries. It runs
// the check every connection passes (the socket's Control hook), so no
// address is ever dialled.
func TestBlindSpecialPurpose(t *testing.T) {
	f, err := os.Open("testdata/special_purpose.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	g := &guard{}
	cases, wrong := 0, 0
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 3 {
			t.Fatalf("line %d: want: address public|blocked source", line)
		}
		a, err := netip.ParseAddr(fields[0])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		cases++
		err = g.control("blind.test")("tcp", netip.AddrPortFrom(a, 443).String(), nil)
		switch want := fields[1]; {
		case want == "blocked" && !errors.Is(err, ErrBlocked):
			wrong++
			t.Errorf("line %d: %s reached, want refused (%s)", line, a, strings.Join(fields[2:], " "))
		case want == "public" && err != nil:
			wrong++
			t.Errorf("line %d: %s refused (%v), want reached (%s)", line, a, err, strings.Join(fields[2:], " "))
		case want != "blocked" && want != "public":
			t.Fatalf("line %d: want %q is neither public nor blocked", line, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("blind special-purpose batch: %d/%d right", cases-wrong, cases)
}
