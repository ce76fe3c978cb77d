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
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
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
