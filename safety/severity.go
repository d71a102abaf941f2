package safety

import "fmt"

// Severity ranks how dangerous an action is. The order is meaningful:
// a compound command is as severe as its most severe part.
type Severity int

const (
	SeverityNone Severity = iota
	SeverityMedium
	SeverityHigh
	SeverityCritical
)

var severityNames = [...]string{"none", "medium", "high", "critical"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return severityNames[s]
}

// MarshalText encodes s as its name, so JSON shows "high" rather than 2.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText accepts the names String returns.
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if n == string(b) {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("safety: unknown severity %q (want none, medium, high or critical)", b)
}

// Decision is what a policy says about one action. The zero value is
// unset, not Allow: a decision nobody made must never let an action run
// unasked, so consumers treat it as Confirm (approval.Gate does) or refuse
// it. Allow < Confirm < Deny, so a stricter decision compares greater.
type Decision int

const (
	Allow   Decision = iota + 1 // run without asking
	Confirm                     // ask a human first
	Deny                        // never run
)

var decisionNames = [...]string{"unset", "allow", "confirm", "deny"}

func (d Decision) String() string {
	if d < 0 || int(d) >= len(decisionNames) {
		return fmt.Sprintf("Decision(%d)", int(d))
	}
	return decisionNames[d]
}

// MarshalText encodes d as its name.
func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText accepts the names String returns.
func (d *Decision) UnmarshalText(b []byte) error {
	for i, n := range decisionNames {
		if i > 0 && n == string(b) {
			*d = Decision(i)
			return nil
		}
	}
	return fmt.Errorf("safety: unknown decision %q (want allow, confirm or deny)", b)
}

// Op is the kind of access a path check is for.
type Op int

const (
	OpRead  Op = iota // read a file or list a directory
	OpWrite           // create, modify, rename or delete
	OpChdir           // use as a working directory
)

var opNames = [...]string{"read", "write", "chdir"}

func (o Op) String() string {
	if o < 0 || int(o) >= len(opNames) {
		return fmt.Sprintf("Op(%d)", int(o))
	}
	return opNames[o]
}
