// The Go starter's command line (see README.md):
//
//	./avenue-bot [--bot heuristic|random|first] [--arena HOST:PORT] [--token aat_...]
//
// Flags win over the environment: AVENUE_ARENA (default 127.0.0.1:50051), AVENUE_TOKEN.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

func usage() string {
	var names []string
	for name := range Bots {
		names = append(names, name)
	}
	sort.Strings(names)
	return `usage: avenue-bot [options]

  --bot NAME          ` + strings.Join(names, " | ") + ` (default heuristic)
  --arena HOST:PORT   the gateway (default $AVENUE_ARENA or 127.0.0.1:50051)
  --token TOKEN       the bot's token (default $AVENUE_TOKEN)
  --tls               connect with TLS
  --max-matches N     matches to play at once (default 1)
  --seed N            seed the random bot
  --no-reconnect      exit when the stream ends
  -v, --verbose       log every decision`
}

func fail(message string) int {
	fmt.Fprintf(os.Stderr, "%s\n\n%s\n", message, usage())
	return 64
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	flags := flag.NewFlagSet("avenue-bot", flag.ContinueOnError)
	flags.SetOutput(io.Discard) // errors are printed with the usage below
	botName := flags.String("bot", "heuristic", "")
	arena := flags.String("arena", "", "")
	token := flags.String("token", "", "")
	useTLS := flags.Bool("tls", false, "")
	maxMatches := flags.String("max-matches", "1", "")
	seedText := flags.String("seed", "", "")
	noReconnect := flags.Bool("no-reconnect", false, "")
	var verbose, help bool
	flags.BoolVar(&verbose, "verbose", false, "")
	flags.BoolVar(&verbose, "v", false, "")
	flags.BoolVar(&help, "help", false, "")
	flags.BoolVar(&help, "h", false, "")
	if err := flags.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Println(usage())
			return 0
		}
		return fail(err.Error())
	}
	if help {
		fmt.Println(usage())
		return 0
	}
	if flags.NArg() > 0 {
		return fail(fmt.Sprintf("unexpected argument %q", flags.Arg(0)))
	}
	newBot, ok := Bots[*botName]
	if !ok {
		return fail(fmt.Sprintf("unknown bot %q", *botName))
	}
	if *token == "" {
		*token = os.Getenv("AVENUE_TOKEN")
	}
	if *token == "" {
		return fail("no token: pass --token or set AVENUE_TOKEN (make demo prints one)")
	}
	if *arena == "" {
		*arena = os.Getenv("AVENUE_ARENA")
	}
	if *arena == "" {
		*arena = "127.0.0.1:50051"
	}
	matches, err := strconv.ParseUint(*maxMatches, 10, 32)
	if err != nil {
		return fail(fmt.Sprintf("--max-matches must be a whole number, not %q", *maxMatches))
	}
	var seed int64
	seeded := *seedText != ""
	if seeded {
		if seed, err = strconv.ParseInt(*seedText, 10, 64); err != nil || seed < 0 {
			return fail(fmt.Sprintf("--seed must be a whole number, not %q", *seedText))
		}
	}

	client, err := NewClient(newBot(seed, seeded), Options{
		Arena:       *arena,
		Token:       *token,
		TLS:         *useTLS,
		MaxMatches:  uint32(matches),
		NoReconnect: *noReconnect,
		Verbose:     verbose,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		return 2
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		first := <-signals
		name := "SIGINT"
		if first == syscall.SIGTERM {
			name = "SIGTERM"
		}
		Logf(name + ": closing the connection")
		client.Stop()
		<-signals // a second Ctrl-C: do not wait for the stream
		os.Exit(130)
	}()
	code := client.Run()
	Logf("stopped")
	return code
}
