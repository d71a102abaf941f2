package terminal

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gibCommand prints exactly 1 GiB in 100-byte lines.
const gibCommand = `yes "$(printf 'x%.0s' $(seq 99))" | head -c 1073741824`

// peakRSS is this process's high-water resident set size, in bytes.
func peakRSS(t testing.TB) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Skip("VmHWM not reported")
	return 0
}

// TestPrintGiBBoundedMemory runs a command printing 1 GiB in a fresh
// process (this test binary re-executed), so the peak RSS measured is that
// of the Shell alone, not of the tests that ran before.
func TestPrintGiBBoundedMemory(t *testing.T) {
	if os.Getenv("TETHER_TERMINAL_GIB") == "1" {
		s, err := New(Config{Root: os.TempDir()})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		r, err := s.Run(context.Background(), Command{Command: gibCommand, Timeout: 10 * time.Minute})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Printf("RESULT bytes=%d lines=%d omitted=%d exit=%d rss=%d elapsed=%s\n", r.Bytes, r.Lines, r.Omitted, r.ExitCode, peakRSS(t), r.Elapsed)
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("prints 1 GiB; skipped in -short")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPrintGiBBoundedMemory$")
	cmd.Env = append(os.Environ(), "TETHER_TERMINAL_GIB=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var bytes, lines, omitted, exit, rss int64
	var elapsed string
	i := strings.Index(string(out), "RESULT ")
	if i < 0 {
		t.Fatalf("no result from child:\n%s", out)
	}
	if _, err := fmt.Sscanf(string(out[i:]), "RESULT bytes=%d lines=%d omitted=%d exit=%d rss=%d elapsed=%s", &bytes, &lines, &omitted, &exit, &rss, &elapsed); err != nil {
		t.Fatalf("parsing %q: %v", out[i:], err)
	}
	t.Logf("printed %d bytes, %d lines in %s; peak RSS %.1f MiB", bytes, lines, elapsed, float64(rss)/(1<<20))
	if bytes != 1<<30 || lines != (1<<30)/100+1 || exit != 0 || omitted != lines-100 {
		t.Errorf("counts: bytes=%d lines=%d omitted=%d exit=%d", bytes, lines, omitted, exit)
	}
	if rss > 64<<20 {
		t.Errorf("peak RSS %d MiB, want < 64 MiB", rss>>20)
	}
}

// BenchmarkOutput measures the output pipeline alone (escape stripping,
// line splitting, head/tail retention) on 100-byte lines.
func BenchmarkOutput(b *testing.B) {
	line := []byte(strings.Repeat("x", 90) + "\x1b[0m123\n")
	chunk := []byte(strings.Repeat(string(line), 32<<10/len(line)))
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	o := NewOutput(15, 85, 2000)
	for b.Loop() {
		o.Write(chunk)
	}
}

// BenchmarkRunGiB runs a command printing 1 GiB and reports throughput and
// the process's peak RSS.
func BenchmarkRunGiB(b *testing.B) {
	s, err := New(Config{Root: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(1 << 30)
	for b.Loop() {
		if _, err := s.Run(context.Background(), Command{Command: gibCommand, Timeout: 10 * time.Minute}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MiB")
}
