package sandboxhelper

import (
	"reflect"
	"strings"
	"testing"
)

func TestRequestRoundTrip(t *testing.T) {
	for _, r := range []Request{
		{},
		{Path: "/bin/sh", ArgvStart: 1},
		{Path: "/odd path/\"q\"\\ \x00\xff\n", ArgvStart: 3, Writable: []string{"/w 1", "/w=2"}, ListDirs: []string{"/"},
			ReadDirs: []string{"/usr", "/h/ä"}, ReadFiles: []string{"/h/.x"}, DenyNetwork: true, BestEffort: true, Unconfined: true, Domain: true, Report: true},
		{Watch: true, CgroupDir: "/sys/fs/cgroup/a b", CgroupPrefix: "tether-1-"},
	} {
		got, err := DecodeRequest(r.Encode())
		if err != nil {
			t.Fatalf("DecodeRequest(%q): %v", r.Encode(), err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip of %+v gave %+v", r, got)
		}
	}
}

func TestReportRoundTrip(t *testing.T) {
	for _, r := range []Report{{}, {Leftover: 3}, {Dir: "/a b/\"c\"", Environ: []byte("A=1\x00B=\xff\x00\x00"), Leftover: 1}} {
		got, err := DecodeReport(r.Encode())
		if err != nil {
			t.Fatalf("DecodeReport(%q): %v", r.Encode(), err)
		}
		if got.Dir != r.Dir || string(got.Environ) != string(r.Environ) || got.Leftover != r.Leftover {
			t.Errorf("round trip of %+v gave %+v", r, got)
		}
	}
}

func TestDecodeRefusesMalformed(t *testing.T) {
	for in, want := range map[string]string{
		`path="/bin/sh`:              "unterminated",
		`path=/bin/sh argv=x`:        "not a number",
		`=1`:                         "without a key",
		`nokey`:                      "without a key",
		`path="a"b`:                  "text after",
		`path="a" color="blue"`:      "unknown field",
		`{"path":"/bin/sh"}`:         "without a key",
		`path="\q"`:                  "unterminated",
		`argv=999999999999999999999`: "not a number",
	} {
		_, err := DecodeRequest(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeRequest(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}

// FuzzDecodeRequest: any input decodes or is refused without a panic,
// and what decodes encodes to something that decodes to the same.
func FuzzDecodeRequest(f *testing.F) {
	f.Add(Request{Path: "/bin/sh", ArgvStart: 1, Writable: []string{"/w"}, Domain: true}.Encode())
	f.Add(`path="\x00" argv=-1 w="" ls="/" watch=1 cgdir="/" cgprefix="t-"`)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := DecodeRequest(s)
		if err != nil {
			return
		}
		again, err := DecodeRequest(r.Encode())
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", r.Encode(), err)
		}
		if !reflect.DeepEqual(again, r) {
			t.Fatalf("%+v re-encoded decodes to %+v", r, again)
		}
	})
}
