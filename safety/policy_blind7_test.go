package safety

import "testing"

// TestBlindRound7 runs the seventh blind batch (abbreviated options of
// tools without a full option table, GTFOBins program and file options,
// allow rules that do not name the dangerous form); sources are cited in
// the file.
func TestBlindRound7(t *testing.T) {
	runBlind(t, "testdata/commands/blind_round7.txt", 80, 40)
}

// TestAbbreviationNeverLowersJudgement checks, for tools whose parsers
// take a unique prefix of a long option (getopt_long, nopt, optparse,
// git's parse-options), that an abbreviation is judged no more leniently
// than the option it abbreviates: its severity is at least the full
// option's, and a rule naming the tool approves it only if it approves
// the full option. Pairs are full form, then abbreviation.
func TestAbbreviationNeverLowersJudgement(t *testing.T) {
	for _, tc := range []struct{ rule, full, abbrev string }{
		{"make", "make --eval='$(shell id)'", "make --ev='$(shell id)'"},
		{"make", "make --file=/tmp/x.mk", "make --fi=/tmp/x.mk"},
		{"make", "make --makefile=/tmp/x.mk", "make --makef=/tmp/x.mk"},
		{"make", "make --directory=/tmp/o", "make --direc=/tmp/o"},
		{"make", "make --include-dir=/tmp/o", "make --incl=/tmp/o"},
		{"sed", "sed --expression='1e id' f", "sed --exp='1e id' f"},
		{"sed", "sed --in-place -e s/a/b/ f", "sed --in-p -e s/a/b/ f"},
		{"sed", "sed --file=/tmp/x.sed f", "sed --fil=/tmp/x.sed f"},
		{"gawk", "gawk --load=/tmp/x.so 'BEGIN{}'", "gawk --loa=/tmp/x.so 'BEGIN{}'"},
		{"gawk", "gawk --source='BEGIN{system(\"id\")}'", "gawk --sou='BEGIN{system(\"id\")}'"},
		{"gawk", "gawk --exec=/tmp/x.awk", "gawk --ex=/tmp/x.awk"},
		{"gawk", "gawk --include=/tmp/x.awk 'BEGIN{}'", "gawk --incl=/tmp/x.awk 'BEGIN{}'"},
		{"xargs", "xargs --arg-file=.env echo", "xargs --arg-f=.env echo"},
		{"env", "env --split-string='sh -c id'", "env --spl='sh -c id'"},
		{"env", "env --chdir=/ ls", "env --ch=/ ls"},
		{"npm test", "npm test --script-shell=./x.sh", "npm test --script=./x.sh"},
		{"npm test", "npm test --node-options='--require ./x.js'", "npm test --node-o='--require ./x.js'"},
		{"npm install", "npm install --prefix /tmp/o", "npm install --pre /tmp/o"},
		{"pip install", "pip install --target /tmp/o x", "pip install --tar /tmp/o x"},
		{"pip install", "pip install --root /tmp/o x", "pip install --ro /tmp/o x"},
		{"rsync", "rsync --rsh='sh -c id' a b:c", "rsync --rs='sh -c id' a b:c"},
		{"rsync", "rsync --rsync-path='sh -c id' a b:c", "rsync --rsync-p='sh -c id' a b:c"},
		{"git log", "git log --output=/tmp/x", "git log --out=/tmp/x"},
		{"git diff", "git diff --ext-diff", "git diff --ext-d"},
		{"git show", "git show --textconv HEAD", "git show --textc HEAD"},
		{"timeout", "timeout --kill-after=1 5 rm -rf /tmp/x", "timeout --kill=1 5 rm -rf /tmp/x"},
		{"find", "find . -name x -fprint /tmp/o", "find . -name x -fprint /tmp/o"},
	} {
		full, abbrev := AnalyzeCommand(tc.full), AnalyzeCommand(tc.abbrev)
		if abbrev.Severity < full.Severity {
			t.Errorf("%q is %v, below %q at %v\n  %q", tc.abbrev, abbrev.Severity, tc.full, full.Severity, abbrev.Reasons())
		}
		r := CommandRules{Allow: []string{tc.rule}}
		if fv, av := r.Evaluate(tc.full), r.Evaluate(tc.abbrev); av.AutoApproved && !fv.AutoApproved {
			t.Errorf("rule %q approves %q but not %q\n  %q", tc.rule, tc.abbrev, tc.full, av.Reasons)
		}
	}
}
