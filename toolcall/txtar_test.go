package toolcall

import (
	"bytes"
	"os"
	"strings"
)

// A minimal reader and writer for the txtar format used by the golden
// files (the format of golang.org/x/tools/txtar: a comment, then files
// introduced by "-- name --" lines). It lives here, in test code, so that
// the module does not take on golang.org/x/tools for thirty lines.

type txtarFile struct {
	Name string
	Data []byte
}

type txtarArchive struct {
	Comment []byte
	Files   []txtarFile
}

func parseTxtarFile(path string) (*txtarArchive, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a := &txtarArchive{}
	var cur *txtarFile
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		l := strings.TrimRight(string(line), "\r\n")
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") && len(l) > 6 {
			a.Files = append(a.Files, txtarFile{Name: strings.TrimSpace(l[3 : len(l)-3])})
			cur = &a.Files[len(a.Files)-1]
			continue
		}
		if cur == nil {
			a.Comment = append(a.Comment, line...)
		} else {
			cur.Data = append(cur.Data, line...)
		}
	}
	return a, nil
}

func formatTxtar(a *txtarArchive) []byte {
	var b bytes.Buffer
	b.Write(a.Comment)
	for _, f := range a.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.Write(f.Data)
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
