// Command mcpsleuth analyses captured Model Context Protocol sessions.
package main

import (
	"os"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

func main() { os.Exit(cli.Main()) }
