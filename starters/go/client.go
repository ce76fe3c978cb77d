// Connects a Bot to an arena gateway and keeps it connected (docs/protocol.md).
//
// One stream at a time: Hello, Welcome, then every message of every match the bot plays,
// interleaved. The client answers pings, keeps each seat's history (the arena sends it in
// slices), answers every DecisionRequest with its match_id and seq and an explicit
// choice_index, and reconnects with exponential backoff and jitter when the stream
// breaks. A match outlives the stream it started on: the client keeps what it knows of
// each match across streams and, back within the match's reconnect grace, goes on with it
// (the arena sends MatchStarted again with `resumed`, and the pending request again with
// the whole history). It gives up for good when reconnecting cannot help: the token or
// protocol version is refused, or a newer connection of the same bot took over
// ("superseded": two copies of a bot would only keep replacing each other).
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// ProtocolVersion is the version of agent_avenue.v1 this client speaks.
const ProtocolVersion = 1

// fatalCodes are the statuses after which reconnecting cannot help.
var fatalCodes = map[codes.Code]bool{
	codes.Unauthenticated:    true,
	codes.FailedPrecondition: true,
	codes.PermissionDenied:   true,
	codes.InvalidArgument:    true,
}

// Options configure a Client; the zero value of each field is its default.
type Options struct {
	Arena string // host:port of the gateway
	Token string
	TLS   bool
	// Hello.max_concurrent_matches (the gateway makes 0 into 1 and caps it, 16 by default).
	MaxMatches  uint32
	NoReconnect bool
	MinBackoff  time.Duration // 0.5 s
	MaxBackoff  time.Duration // 30 s
	// Log every decision, not only matches starting and ending.
	Verbose bool
	Log     func(line string)
}

// seatKey names one seat of one match: a bot may hold two seats of a team match.
type seatKey struct {
	match string
	seat  uint32
}

// Client plays a Bot on an arena until Stop or a refusal.
type Client struct {
	bot  Bot
	opts Options

	mu       sync.Mutex
	stopping bool
	cancel   context.CancelFunc // ends the current stream
	wake     chan struct{}      // closed by Stop: ends a backoff sleep

	// Touched only by the goroutine running the sessions (one stream at a time).
	welcome       *Welcome
	histories     map[seatKey][]*Event // the seat's whole public history so far
	started       map[seatKey]uint32   // the match's reconnect grace (ms), seats in play
	streamEndedAt time.Time            // when the last stream ended, until a Welcome
}

// NewClient checks the encoding of a zero choice_index and returns a client.
func NewClient(bot Bot, opts Options) (*Client, error) {
	if err := CheckZeroIndexIsSent(); err != nil {
		return nil, err
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Log == nil {
		opts.Log = Logf
	}
	return &Client{
		bot:       bot,
		opts:      opts,
		wake:      make(chan struct{}),
		histories: map[seatKey][]*Event{},
		started:   map[seatKey]uint32{},
	}, nil
}

func (c *Client) log(format string, args ...interface{}) {
	c.opts.Log(fmt.Sprintf(format, args...))
}

// Run plays until Stop or a refusal; the process's exit code (0, or 2 when refused).
func (c *Client) Run() int {
	backoff := c.opts.MinBackoff
	for !c.isStopping() {
		began := time.Now()
		if fatal := c.session(); fatal != "" {
			c.log("giving up: %s", fatal)
			return 2
		}
		if c.isStopping() || c.opts.NoReconnect {
			break
		}
		// A stream that lasted a while was a success: start the backoff over.
		if time.Since(began) > 10*time.Second {
			backoff = c.opts.MinBackoff
		}
		delay := reconnectDelay(backoff, len(c.started) > 0, rand.Float64())
		c.log("reconnecting in %.1f s", delay.Seconds())
		select {
		case <-time.After(delay):
		case <-c.wake:
		}
		backoff *= 2
		if backoff > c.opts.MaxBackoff {
			backoff = c.opts.MaxBackoff
		}
	}
	return 0
}

// reconnectDelay is the wait before the next stream: the backoff with jitter (half to
// all of it, jitter in [0, 1)), and at most 2 s with matches in progress, so as to come
// back well within their reconnect grace.
func reconnectDelay(backoff time.Duration, inProgress bool, jitter float64) time.Duration {
	delay := time.Duration(float64(backoff) * (0.5 + jitter/2))
	if inProgress && delay > 2*time.Second {
		delay = 2 * time.Second
	}
	return delay
}

// Stop ends the stream and does not reconnect (safe from any goroutine, more than once).
func (c *Client) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return
	}
	c.stopping = true
	if c.cancel != nil {
		c.cancel()
	}
	close(c.wake)
}

func (c *Client) isStopping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

// stream is one open Connect call; Send is not safe for concurrent use, hence the lock.
type stream struct {
	call    BotArena_ConnectClient
	sendMu  sync.Mutex
	heardAt int64 // unix nanoseconds of the last message from the arena
}

func (s *stream) send(m *BotMessage) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	// An answer computed after its stream ended fails here and is dropped: if the bot is
	// back within the grace, the arena asks that decision again on the new stream.
	_ = s.call.Send(m)
}

// session runs one stream until it ends; why reconnecting cannot help, when it cannot.
func (c *Client) session() string {
	creds := grpc.WithInsecure() // grpc-go 1.33 has no credentials/insecure yet
	if c.opts.TLS {
		creds = grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{}))
	}
	conn, err := grpc.Dial(c.opts.Arena, creds,
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(16*1024*1024)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{
			Time:                30 * time.Second,
			Timeout:             10 * time.Second,
			PermitWithoutStream: true,
		}))
	if err != nil {
		c.log("stream ended (UNAVAILABLE): %v", err)
		c.markEnded()
		return ""
	}
	defer conn.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		return ""
	}
	c.cancel = cancel
	c.mu.Unlock()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.opts.Token)

	c.log("connecting to %s", c.opts.Arena)
	call, err := NewBotArenaClient(conn).Connect(ctx)
	if err != nil {
		return c.ended(err, "")
	}
	s := &stream{call: call, heardAt: time.Now().UnixNano()}
	s.send(&BotMessage{Kind: &BotMessage_Hello{Hello: &Hello{
		ProtocolVersion:      ProtocolVersion,
		BotVersion:           c.bot.Version(),
		MaxConcurrentMatches: c.opts.MaxMatches,
	}}})

	// The arena pings every heartbeat_interval_ms; hearing nothing for that long plus
	// heartbeat_timeout_ms means the stream is dead even if TCP has not noticed yet.
	var limitMs int64 // set once the Welcome is in
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				limit := atomic.LoadInt64(&limitMs)
				silent := time.Since(time.Unix(0, atomic.LoadInt64(&s.heardAt)))
				if limit > 0 && silent > time.Duration(limit)*time.Millisecond {
					c.log("the arena has been silent for over %g s; dropping the stream", float64(limit)/1000)
					cancel()
					return
				}
			}
		}
	}()

	superseded := ""
	for {
		msg, err := call.Recv()
		if err != nil {
			return c.ended(err, superseded)
		}
		atomic.StoreInt64(&s.heardAt, time.Now().UnixNano())
		if e := msg.GetError(); e != nil && e.GetCode() == "superseded" {
			superseded = e.GetMessage()
		}
		if w := msg.GetWelcome(); w != nil {
			l := w.GetLimits()
			atomic.StoreInt64(&limitMs, int64(l.GetHeartbeatIntervalMs())+int64(l.GetHeartbeatTimeoutMs()))
		}
		c.handle(msg, s)
	}
}

func (c *Client) markEnded() {
	if c.streamEndedAt.IsZero() {
		c.streamEndedAt = time.Now()
	}
}

// ended reads the status a stream ended with.
func (c *Client) ended(err error, superseded string) string {
	c.markEnded()
	c.mu.Lock()
	c.cancel = nil
	stopping := c.stopping
	c.mu.Unlock()
	st := status.Convert(err)
	name := CodeName(st.Code())
	switch {
	case superseded != "" && !stopping:
		return fmt.Sprintf("another connection of this bot took over (%s)", superseded)
	case fatalCodes[st.Code()]:
		return fmt.Sprintf("the arena refused the bot (%s): %s", name, st.Message())
	}
	if !stopping {
		c.log("stream ended (%s): %s", name, st.Message())
	}
	return ""
}

// ---------------------------------------------------------------- messages

func (c *Client) handle(msg *ArenaMessage, s *stream) {
	switch kind := msg.GetKind().(type) {
	case *ArenaMessage_Welcome:
		w := kind.Welcome
		c.welcome = w
		c.forgetLostMatches()
		l := w.GetLimits()
		c.log("connected as %s (id %s), up to %d matches at once, heartbeat every %g s",
			w.GetBotName(), w.GetBotId(), l.GetMaxConcurrentMatches(), float64(l.GetHeartbeatIntervalMs())/1000)
	case *ArenaMessage_Ping:
		s.send(&BotMessage{Kind: &BotMessage_Pong{Pong: &Pong{Nonce: kind.Ping.GetNonce()}}})
	case *ArenaMessage_Pong:
	case *ArenaMessage_MatchStarted:
		c.matchStarted(kind.MatchStarted)
	case *ArenaMessage_DecisionRequest:
		request := kind.DecisionRequest
		// The history is put together here, in the order the requests came; the bot
		// decides beside the stream, so that one match does not hold up the others.
		c.fullHistory(request)
		go c.answer(request, s)
	case *ArenaMessage_MatchEnded:
		c.matchEnded(kind.MatchEnded)
	case *ArenaMessage_Error:
		e := kind.Error
		where := ""
		if e.GetMatchId() != "" {
			where = fmt.Sprintf(" (match %s, decision %d)", e.GetMatchId(), e.GetSeq())
		}
		c.log("arena error %s%s: %s", e.GetCode(), where, e.GetMessage())
	default:
		c.log("ignoring an unknown message from a newer arena")
	}
}

// forgetLostMatches runs on a new stream: matches the bot was away from for longer than
// their reconnect grace are over for it (ended with DISCONNECT, or voided): forget them.
// The others go on, and the arena says so with a resumed MatchStarted.
func (c *Client) forgetLostMatches() {
	endedAt := c.streamEndedAt
	c.streamEndedAt = time.Time{}
	if endedAt.IsZero() {
		return
	}
	away := time.Since(endedAt)
	for key, grace := range c.started {
		if away <= time.Duration(grace)*time.Millisecond {
			continue
		}
		c.log("match %s: away %.1f s, longer than its reconnect grace; forgetting it", key.match, away.Seconds())
		delete(c.started, key)
		delete(c.histories, key)
	}
}

func teamName(team uint32) string {
	if team < 2 {
		return string("AB"[team])
	}
	return fmt.Sprint(team)
}

// enumName is an enum value's name without its prefix, in lower case ("simple").
func enumName(value fmt.Stringer, prefix string) string {
	return strings.ToLower(strings.TrimPrefix(value.String(), prefix))
}

func (c *Client) matchStarted(m *MatchStarted) {
	key := seatKey{m.GetMatchId(), m.GetSeat()}
	if _, known := c.started[key]; m.GetResumed() && known {
		// the same match goes on: keep its history; the pending request comes again
		c.log("match %s resumed: seat %d, on a new stream", m.GetMatchId(), m.GetSeat())
		return
	}
	c.started[key] = m.GetReconnectGraceMs()
	c.histories[key] = nil
	resumed := ""
	if m.GetResumed() {
		resumed = " (resumed: this process never saw it start)"
	}
	var others []string
	for _, p := range m.GetPlayers() {
		if p.GetSeat() != m.GetSeat() {
			others = append(others, fmt.Sprintf("%s (seat %d, team %s)", p.GetName(), p.GetSeat(), teamName(p.GetTeam())))
		}
	}
	c.log("match %s started: seat %d (team %s), %s mode, with %s%s", m.GetMatchId(), m.GetSeat(),
		teamName(m.GetTeam()), enumName(m.GetConfig().GetMode(), "MODE_"), strings.Join(others, ", "), resumed)
	if hook, ok := c.bot.(MatchStartedHook); ok {
		hook.OnMatchStarted(m)
	}
}

func (c *Client) matchEnded(m *MatchEnded) {
	// A fresh process of the bot may be told of the end of a match an earlier process of
	// it was playing (e.g. its seat forfeited for the disconnect).
	key := seatKey{m.GetMatchId(), m.GetSeat()}
	unseen := ""
	if _, known := c.started[key]; !known {
		unseen = " (started on an earlier stream)"
	}
	c.log("match %s ended, seat %d%s: %s: %s (replay %s)", m.GetMatchId(), m.GetSeat(), unseen,
		enumName(m.GetOutcome(), "MATCH_OUTCOME_"), m.GetMessage(), m.GetReplayId())
	delete(c.histories, key)
	delete(c.started, key)
	if hook, ok := c.bot.(MatchEndedHook); ok {
		hook.OnMatchEnded(m)
	}
}

// fullHistory: the wire carries only the events since this seat's previous request; put
// the whole history back, so the bot sees every event from the start, history_start 0.
func (c *Client) fullHistory(request *DecisionRequest) {
	obs := request.GetObservation()
	if obs == nil {
		return
	}
	key := seatKey{request.GetMatchId(), request.GetSeat()}
	var known []*Event
	if obs.GetHistoryStart() != 0 {
		known = c.histories[key]
	}
	if int(obs.GetHistoryStart()) != len(known) {
		c.log("match %s: the history starts at event %d but %d are known; the bot sees a history with a gap",
			request.GetMatchId(), obs.GetHistoryStart(), len(known))
	}
	known = append(known, obs.GetHistory()...)
	c.histories[key] = known
	obs.History = append([]*Event(nil), known...)
	obs.HistoryStart = 0
}

// decide asks the bot, turning a panic or an index out of range into 0.
func (c *Client) decide(request *DecisionRequest) (index int) {
	defer func() {
		if failure := recover(); failure != nil {
			c.log("match %s: the bot failed on decision %d (%v); answering 0", request.GetMatchId(), request.GetSeq(), failure)
			index = 0
		}
	}()
	index = c.bot.Decide(request)
	if index < 0 || index >= len(request.GetLegal()) {
		c.log("match %s: the bot chose %d on decision %d, not an index into its %d legal choices; answering 0",
			request.GetMatchId(), index, request.GetSeq(), len(request.GetLegal()))
		index = 0
	}
	return index
}

func (c *Client) answer(request *DecisionRequest, s *stream) {
	began := time.Now()
	index := c.decide(request)
	// choice_index is proto3 `optional`: a pointer, set even when it is 0.
	s.send(&BotMessage{Kind: &BotMessage_Action{Action: &Action{
		MatchId:     request.GetMatchId(),
		Seq:         request.GetSeq(),
		ChoiceIndex: proto.Uint32(uint32(index)),
	}}})
	if c.opts.Verbose {
		c.log("match %s #%d %s: choice %d of %d (%.1f ms)", request.GetMatchId(), request.GetSeq(),
			strings.TrimPrefix(request.GetKind().String(), "DECISION_KIND_"), index, len(request.GetLegal()),
			float64(time.Since(began).Microseconds())/1000)
	}
}
