package main

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// deprecatedAlias adds old as a deprecated name of the flag name of fs:
// it sets the same value, is left out of --help and the CLI reference,
// and using it prints pflag's deprecation notice. A flag name means one
// thing in every command (docs/reference/cli.md); a command whose flag
// meant something else under a name now renamed keeps the old name this
// way, so that scripts written for it still run.
func deprecatedAlias(fs *pflag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	a := fs.VarPF(f.Value, old, "", f.Usage)
	a.NoOptDefVal = f.NoOptDefVal
	_ = fs.MarkDeprecated(old, "use --"+name) // fails only for an undefined flag
}

// noticesTo sends the flag parser's notices of every command under c (a
// deprecated flag's notice) to w. Cobra prints them on the command's
// output, which is standard output here, where they would mix with
// --json's output.
func noticesTo(c *cobra.Command, w io.Writer) {
	c.Flags().SetOutput(w)
	c.PersistentFlags().SetOutput(w)
	for _, s := range c.Commands() {
		noticesTo(s, w)
	}
}
