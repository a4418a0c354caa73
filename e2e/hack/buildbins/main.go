package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/informer-go/informer/e2e/internal/binaries"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	paths, err := binaries.Ensure(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "buildbins: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("etcd: %s\nkube-apiserver: %s\n", paths.Etcd, paths.KubeAPIServer)
}
