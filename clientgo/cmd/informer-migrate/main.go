// Command informer-migrate moves a Go module from client-go's informers to
// informer-go's, in the spirit of gofmt -r and go fix: it rewrites the import
// paths of client-go's tools/cache in every Go file of the module, runs gofmt
// on the files it changed (imports sorted), and reports what it cannot prove
// safe.
//
//	go run github.com/informer-go/informer/clientgo/cmd/informer-migrate [flags] [dir]
//
// dir (default ".") is the root of the module: the directory of its go.mod.
// Every .go file below it is read, build constraints notwithstanding, except
// in vendor and testdata directories, directories whose name starts with "."
// or "_", and nested modules. By default it only prints the changes as a
// unified diff; -w writes them.
//
// Two targets:
//
//   - -to dropin (the default): k8s.io/client-go/tools/cache becomes
//     github.com/informer-go/informer/clientgo/cache, a package with the same
//     names and types whose informers run on informer-go in client-go's
//     default order. No other line changes. With -factory,
//     k8s.io/client-go/informers (the generated SharedInformerFactory) also
//     becomes github.com/informer-go/informer/clientgo/informers, whose
//     informers run on informer-go in its default pipeline.
//   - -to native: k8s.io/client-go/tools/cache (and its synctrack and testing
//     packages) becomes github.com/informer-go/informer/cache: informer-go's
//     own API, whose types are not client-go's. Code that hands those values
//     to client-go's types then needs the adapters of package
//     github.com/informer-go/informer/clientgo, and the compiler says where.
//
// Reports, one per line on standard error as file:line:column: message:
//
//   - a type assertion or type switch on DeletedFinalStateUnknown whose
//     informers may deliver another library's tombstone: with -to dropin, in
//     a module that also builds informer-go's native informers; with -to
//     native, in a package that builds no informer itself or that imports a
//     factory of client-go's informers;
//   - an import of a generated or dynamic informer factory from outside the
//     module (k8s.io/client-go/informers, dynamicinformer, metadatainformer,
//     .../informers/externalversions) in a module whose own informers move
//     to informer-go: two engines then run side by side (with -to native,
//     their informers do not fit informer-go's types);
//   - with -to native, the names informer-go's cache package does not have
//     (Getter, NewListWatchFromClient, NewFilteredListWatchFromClient), which
//     package github.com/informer-go/informer/clientgo provides.
//
// The analysis reads the syntax only: it resolves names through the imports
// of each file and does not type-check, so it cannot follow informers through
// variables of other packages; what it reports is where to look.
//
// The module's go.mod is not changed: after -w, require the new module (go
// get github.com/informer-go/informer/clientgo, or a replace directive for a
// local checkout) and run go mod tidy.
//
// Exit status: 0 when the module was read (whether it has changes or
// reports), 1 on an error, 2 on bad usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command with args, printing the diff to stdout and reports
// and errors to stderr; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("informer-migrate", flag.ContinueOnError)
	flags.SetOutput(stderr)
	write := flags.Bool("w", false, "write the changes instead of printing a diff")
	to := flags.String("to", "dropin", `the target: "dropin" (client-go's API on informer-go) or "native" (informer-go's API)`)
	factory := flags.Bool("factory", false, "with -to dropin, also rewrite k8s.io/client-go/informers to github.com/informer-go/informer/clientgo/informers")
	flags.Usage = func() {
		fmt.Fprintln(stderr, "usage: informer-migrate [-w] [-to dropin|native] [-factory] [dir]")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() > 1 {
		flags.Usage()
		return 2
	}
	dir := "."
	if flags.NArg() == 1 {
		dir = flags.Arg(0)
	}
	target, err := newTarget(*to, *factory)
	if err != nil {
		fmt.Fprintln(stderr, "informer-migrate:", err)
		return 2
	}

	result, err := migrate(dir, target)
	if err != nil {
		fmt.Fprintln(stderr, "informer-migrate:", err)
		return 1
	}
	for _, f := range result.findings {
		fmt.Fprintln(stderr, f)
	}
	if *write {
		if err := result.write(); err != nil {
			fmt.Fprintln(stderr, "informer-migrate:", err)
			return 1
		}
		fmt.Fprintf(stderr, "informer-migrate: %d changed files written, %d reports\n", len(result.changes), len(result.findings))
		if len(result.changes) > 0 && !result.requires {
			fmt.Fprintf(stderr, "informer-migrate: next, in %s: go get %s && go mod tidy\n", dir, target.module)
		}
		return 0
	}
	if err := result.diff(stdout); err != nil {
		fmt.Fprintln(stderr, "informer-migrate:", err)
		return 1
	}
	fmt.Fprintf(stderr, "informer-migrate: %d changed files (-w writes them), %d reports\n", len(result.changes), len(result.findings))
	return 0
}
