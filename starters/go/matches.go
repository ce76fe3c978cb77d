// The messages of a stream, and what the client keeps of each match across streams: its
// seats, their histories and its reconnect grace.
package main

import (
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
)

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
	case *ArenaMessage_Notice:
		// An event the bot's owner is told of (a challenge, a season's end, a forfeit):
		// information only, nothing to answer. GetDataJson() holds its fields.
		n := kind.Notice
		c.log("notice %s: %s", n.GetKind(), n.GetText())
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
