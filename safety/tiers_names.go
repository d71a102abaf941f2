package safety

// Builtins that take variable names evaluate an array subscript in the
// name as arithmetic, and arithmetic runs command substitutions: `read
// 'a[$(id)]'`, `printf -v 'a[$(id)]' x` and `test -v 'a[$(id)]'` run id
// although it is quoted (checked against bash 5). nameArgs finds such
// names in the positions each builtin reads as names.
func nameArgs(c *call) {
	var names []word
	switch c.base {
	case "test", "[":
		for i, w := range c.args {
			if (w.s == "-v" || w.s == "-R") && i+1 < len(c.args) {
				names = append(names, c.args[i+1])
			}
		}
	case "printf":
		names = valuesOf(c.args, "-v")
	case "wait":
		names = valuesOf(c.args, "-p")
	case "read", "mapfile", "readarray", "unset", "getopts", "export", "declare", "typeset", "local", "readonly":
		names = c.args // every word may be a name; a subscript with $ in a non-name is rare
	default:
		return
	}
	switch c.base {
	case "read", "mapfile", "readarray", "getopts", "printf", "wait":
		if name, why := assignsDangerous(names); name != "" {
			c.concern(EffectExecutes, SeverityHigh, true, c.base+" assigns "+name+", which "+why)
		}
	}
	for _, w := range names {
		if !w.dynamic && subscriptRuns(w.s) {
			c.unanalyzable(c.base + " " + short(w.s) + " evaluates the array subscript as arithmetic, which runs the command substitution in it")
			return
		}
	}
}
