package safety

import "strings"

// jvmBuildHatches judges the Maven and Gradle options that load code or
// name a program, which a rule such as "mvn test" or "gradle test" never
// saw: the exec plugin's -Dexec.executable and -Dexec.args (the command
// `mvn exec:exec` runs), Maven core extensions (-Dmaven.ext.class.path),
// and Gradle init scripts (-I, --init-script), which run before the build
// with the user's rights. Each is unvetted (only a rule naming it covers
// it); the program and its arguments are analysed as the command they
// make, and an init script's file is a read judged like any other.
func jvmBuildHatches(c *call, b string) {
	maven := b == "mvn" || b == "mvnw"
	var exe, args *word
	for i := 0; i < len(c.args); i++ {
		w := c.args[i]
		if maven && w.s == "-D" && i+1 < len(c.args) {
			// -D name=value spelt apart.
			i++
			w = word{s: "-D" + c.args[i].s, dynamic: c.args[i].dynamic}
		}
		switch {
		case maven && strings.HasPrefix(w.s, "-Dexec.executable="):
			v := word{s: strings.TrimPrefix(w.s, "-Dexec.executable="), dynamic: w.dynamic}
			exe = &v
			c.concern(EffectExecutes, SeverityHigh, false, "mvn "+w.s+" names the program exec:exec runs")
			c.unvetted(w.s, "names a program Maven runs")
		case maven && strings.HasPrefix(w.s, "-Dexec.args="):
			v := word{s: strings.TrimPrefix(w.s, "-Dexec.args="), dynamic: w.dynamic}
			args = &v
			c.unvetted(w.s, "gives the arguments of the program Maven runs")
		case maven && (strings.HasPrefix(w.s, "-Dmaven.ext.class.path=") || strings.HasPrefix(w.s, "-Dmaven.ext.classpath=")):
			c.concern(EffectExecutes, SeverityHigh, false, "mvn "+w.s+" loads extensions into Maven itself")
			c.unvetted(w.s, "loads code into Maven")
		case !maven && (w.s == "-I" || w.s == "--init-script") && i+1 < len(c.args):
			i++
			gradleInitScript(c, w.s, c.args[i])
		case !maven && strings.HasPrefix(w.s, "--init-script="):
			gradleInitScript(c, w.s, word{s: strings.TrimPrefix(w.s, "--init-script="), dynamic: w.dynamic})
		case !maven && strings.HasPrefix(w.s, "-I") && len(w.s) > 2:
			gradleInitScript(c, w.s, word{s: w.s[2:], dynamic: w.dynamic})
		}
	}
	switch {
	case exe == nil && args != nil:
		// The program comes from the project's pom: a shell there makes
		// the arguments code.
		c.concern(EffectExecutes, SeverityHigh, false, "mvn -Dexec.args gives arguments to the program the project's exec plugin runs")
	case exe == nil:
	case exe.dynamic || args != nil && args.dynamic:
		c.unanalyzable("mvn runs a program known only at run time: " + exe.s)
	default:
		// -Dexec.executable=sh -Dexec.args='-c "rm -rf ~"' is that command.
		text := shellQuote(exe.s)
		if args != nil {
			text += " " + args.s
		}
		c.script(Opaque, word{s: text})
	}
}

// gradleInitScript judges one Gradle init script given by option opt.
func gradleInitScript(c *call, opt string, file word) {
	c.concern(EffectExecutes, SeverityHigh, false, "gradle "+opt+" runs the init script "+file.s+" before the build")
	c.unvetted(opt, "runs an init script, code no build rule has seen")
	c.path(file, OpRead)
}
