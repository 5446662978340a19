// Command strata-eval replays recorded conversations with vision-language model servers through
// before and after pipelines and measures what pictures in tool results cost.
package main

import (
	"os"

	"github.com/strata-eval/strata-eval/cmd/cli"
)

func main() { os.Exit(cli.Main()) }
