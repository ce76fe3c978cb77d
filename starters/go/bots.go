// The bots of the starter. A bot is one method: given a DecisionRequest, return an index
// into request.Legal. Write your own by copying one of these (and add it to Bots below).
package main

import (
	"math/rand"
	"sync"
)

// Bot is what the client plays. Decide may be called from several goroutines at once,
// one per match in progress (with --max-matches above 1), never twice at once for one
// match.
type Bot interface {
	// Version is sent in Hello as bot_version and shown on the bot's page.
	Version() string
	// Decide returns an index into request.Legal (0 is a real choice: the client always
	// sends it). A panic, or an index out of range, is logged and answered with 0.
	Decide(request *DecisionRequest) int
}

// MatchStartedHook is an optional method of a Bot: told of each seat's match start (not
// again when the match resumes on a new stream).
type MatchStartedHook interface {
	OnMatchStarted(started *MatchStarted)
}

// MatchEndedHook is an optional method of a Bot: told of each seat's match end.
type MatchEndedHook interface {
	OnMatchEnded(ended *MatchEnded)
}

// RandomBot picks any legal choice; a seed makes its games repeatable.
type RandomBot struct {
	mu  sync.Mutex
	rng *rand.Rand
}

// NewRandomBot seeds the bot (seeded false: from the clock).
func NewRandomBot(seed int64, seeded bool) *RandomBot {
	if !seeded {
		seed = rand.Int63()
	}
	return &RandomBot{rng: rand.New(rand.NewSource(seed))}
}

func (b *RandomBot) Version() string { return "go-random-1" }

func (b *RandomBot) Decide(request *DecisionRequest) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rng.Intn(len(request.GetLegal()))
}

// FirstBot always answers the first legal choice: every answer is index 0, the one an
// encoder that drops zero-valued fields would lose (see CheckZeroIndexIsSent).
type FirstBot struct{}

func (FirstBot) Version() string               { return "go-first-1" }
func (FirstBot) Decide(_ *DecisionRequest) int { return 0 }

// Bots are the names --bot accepts; seeded says whether --seed was given.
var Bots = map[string]func(seed int64, seeded bool) Bot{
	"random":    func(seed int64, seeded bool) Bot { return NewRandomBot(seed, seeded) },
	"first":     func(int64, bool) Bot { return FirstBot{} },
	"heuristic": func(int64, bool) Bot { return HeuristicBot{} },
}
