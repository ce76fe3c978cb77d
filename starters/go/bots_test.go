// go test (bash build.sh test): the bots' choices on hand-made requests, the encoding of
// a zero choice_index, and the client's history and answer checks.
package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
)

func observation(edit func(*Observation)) *Observation {
	obs := &Observation{
		Config:     &MatchConfig{Mode: Mode_MODE_SIMPLE, Ruleset: "standard", RulesetVersion: 1},
		Turn:       3,
		Decision:   DecisionKind_DECISION_KIND_PLAY,
		Captains:   []uint32{0, 1},
		FaceUpSeat: -1,
		Teams:      []*TeamInfo{{Team: 0, Position: 0}, {Team: 1, Position: 7}},
		Gap:        7,
		DeckSize:   20,
	}
	if edit != nil {
		edit(obs)
	}
	return obs
}

func request(kind DecisionKind, obs *Observation, legal []*Choice) *DecisionRequest {
	return &DecisionRequest{MatchId: "1.1", Seq: 5, Kind: kind, Seat: obs.Seat, Observation: obs, Legal: legal, DecisionMs: 5000, BankMs: 60000}
}

func recruitChoice(side Side) *Choice {
	return &Choice{Kind: &Choice_Recruit_{Recruit: &Choice_Recruit{Side: side}}}
}

func playChoice(up, down Agent) *Choice {
	return &Choice{Kind: &Choice_Play_{Play: &Choice_Play{FaceUp: up, FaceDown: down}}}
}

var recruit = []*Choice{recruitChoice(Side_SIDE_FACE_UP), recruitChoice(Side_SIDE_FACE_DOWN)}

func inPlay(agent Agent, n uint32) []*CardCount { return []*CardCount{{Agent: agent, Count: n}} }

func TestAZeroChoiceIndexReachesTheBytesAndReadsBackAsZero(t *testing.T) {
	if err := CheckZeroIndexIsSent(); err != nil {
		t.Fatal(err)
	}
	message := &BotMessage{Kind: &BotMessage_Action{Action: &Action{MatchId: "73.1", Seq: 12, ChoiceIndex: proto.Uint32(0)}}}
	wire, err := EncodeBotMessage(message)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(wire, []byte{0x18, 0x00}) {
		t.Fatalf("choice_index 0 is not on the wire: % x", wire)
	}
	var back BotMessage
	if err := proto.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	if back.GetAction().ChoiceIndex == nil || back.GetAction().GetChoiceIndex() != 0 {
		t.Fatalf("read back as %v", back.GetAction())
	}
}

func TestTheHeuristicDoesNotHandTheOpponentItsThirdCodebreaker(t *testing.T) {
	obs := observation(func(o *Observation) {
		o.Team, o.Seat, o.ActiveTeam = 1, 1, 0
		o.Teams[0].InPlay = inPlay(Agent_AGENT_CODEBREAKER, 2)
		o.OfferUp, o.FaceDownOffered = Agent_AGENT_CODEBREAKER, true
	})
	if got := Outcome(obs, 1, Agent_AGENT_ENFORCER, Agent_AGENT_CODEBREAKER); got != -Win {
		t.Fatalf("outcome %d", got)
	}
	if got := (HeuristicBot{}).Decide(request(DecisionKind_DECISION_KIND_RECRUIT, obs, recruit)); got != 0 {
		t.Fatalf("chose %d", got)
	}
}

func TestTheHeuristicLeavesAFaceUpDaredevilThatWouldBeItsThird(t *testing.T) {
	obs := observation(func(o *Observation) {
		o.Team, o.Seat = 1, 1
		o.Teams[1].InPlay = inPlay(Agent_AGENT_DAREDEVIL, 2)
		o.OfferUp, o.FaceDownOffered = Agent_AGENT_DAREDEVIL, true
	})
	if got := (HeuristicBot{}).Decide(request(DecisionKind_DECISION_KIND_RECRUIT, obs, recruit)); got != 1 {
		t.Fatalf("chose %d", got)
	}
}

func TestTheHeuristicKeepsItsThirdDaredevilOutOfThePairItPlays(t *testing.T) {
	obs := observation(func(o *Observation) {
		o.Hand = []*CardCount{{Agent: Agent_AGENT_DAREDEVIL, Count: 1}, {Agent: Agent_AGENT_ENFORCER, Count: 1}, {Agent: Agent_AGENT_SENTINEL, Count: 1}}
		o.Teams[0].InPlay = inPlay(Agent_AGENT_DAREDEVIL, 2)
	})
	legal := []*Choice{
		playChoice(Agent_AGENT_DAREDEVIL, Agent_AGENT_ENFORCER),
		playChoice(Agent_AGENT_ENFORCER, Agent_AGENT_DAREDEVIL),
		playChoice(Agent_AGENT_ENFORCER, Agent_AGENT_SENTINEL),
		playChoice(Agent_AGENT_SENTINEL, Agent_AGENT_DAREDEVIL),
	}
	if got := (HeuristicBot{}).Decide(request(DecisionKind_DECISION_KIND_PLAY, obs, legal)); got != 2 {
		t.Fatalf("chose %d", got)
	}
}

func TestACatchEndsTheGameInTheHeuristicsJudgement(t *testing.T) {
	near := observation(func(o *Observation) { o.Gap = 2 })
	if got := Outcome(near, 0, Agent_AGENT_SIDEKICK, Agent_AGENT_CODEBREAKER); got != Win {
		t.Fatalf("A moves 4 from gap 2: %d", got)
	}
	far := observation(func(o *Observation) { o.Gap = 12 })
	if got := Outcome(far, 1, Agent_AGENT_DAREDEVIL, Agent_AGENT_CODEBREAKER); got != Win {
		t.Fatalf("B moves 2 from gap 12: %d", got)
	}
}

func TestTheHeuristicDiscardsTheMole(t *testing.T) {
	obs := observation(nil)
	legal := []*Choice{
		{Kind: &Choice_StopDiscarding_{StopDiscarding: &Choice_StopDiscarding{}}},
		{Kind: &Choice_Discard_{Discard: &Choice_Discard{Card: Agent_AGENT_ENFORCER}}},
		{Kind: &Choice_Discard_{Discard: &Choice_Discard{Card: Agent_AGENT_MOLE}}},
	}
	if got := (HeuristicBot{}).Decide(request(DecisionKind_DECISION_KIND_DISCARD, obs, legal)); got != 2 {
		t.Fatalf("chose %d", got)
	}
	if got := (HeuristicBot{}).Decide(request(DecisionKind_DECISION_KIND_DISCARD, obs, legal[:2])); got != 0 {
		t.Fatalf("without a Mole it should stop discarding, chose %d", got)
	}
}

func TestUnseenCardsExcludeTheHandDiscardsPlayAreasAndTheOffer(t *testing.T) {
	obs := observation(func(o *Observation) {
		o.Hand = inPlay(Agent_AGENT_MOLE, 1)
		o.Discards = inPlay(Agent_AGENT_ENFORCER, 2)
		o.OfferUp = Agent_AGENT_SIDEKICK
	})
	left, total := map[Agent]int{}, 0
	for _, c := range Unseen(obs) {
		left[c.Agent] = c.N
		total += c.N
	}
	if _, ok := left[Agent_AGENT_MOLE]; ok {
		t.Fatal("the Mole in hand is unseen")
	}
	if _, ok := left[Agent_AGENT_SIDEKICK]; ok {
		t.Fatal("the offered Sidekick is unseen")
	}
	if left[Agent_AGENT_ENFORCER] != 4 || total != 38-4 {
		t.Fatalf("left %v (total %d)", left, total)
	}
}

func TestTheRandomBotAnswersAnIndexTheSameOnesForTheSameSeed(t *testing.T) {
	legal := make([]*Choice, 6)
	req := request(DecisionKind_DECISION_KIND_DISCARD, observation(nil), legal)
	picks := func(seed int64) []int {
		bot := NewRandomBot(seed, true)
		var out []int
		for i := 0; i < 50; i++ {
			out = append(out, bot.Decide(req))
		}
		return out
	}
	a, b := picks(1), picks(1)
	distinct := map[int]bool{}
	for i := range a {
		if a[i] < 0 || a[i] >= 6 || a[i] != b[i] {
			t.Fatalf("picks %v and %v", a, b)
		}
		distinct[a[i]] = true
	}
	if len(distinct) < 2 {
		t.Fatalf("always %v", a)
	}
}

type panicky struct{ FirstBot }

func (panicky) Decide(*DecisionRequest) int { panic("boom") }

type outOfRange struct{ FirstBot }

func (outOfRange) Decide(r *DecisionRequest) int { return len(r.GetLegal()) }

func TestAFailingBotIsAnswered0(t *testing.T) {
	req := request(DecisionKind_DECISION_KIND_RECRUIT, observation(nil), recruit)
	var lines []string
	for _, bot := range []Bot{panicky{}, outOfRange{}} {
		client, err := NewClient(bot, Options{Log: func(line string) { lines = append(lines, line) }})
		if err != nil {
			t.Fatal(err)
		}
		if got := client.decide(req); got != 0 {
			t.Fatalf("%T: answered %d", bot, got)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("logged %q", lines)
	}
}

func TestTheClientPutsTheHistoryBackTogetherPerSeat(t *testing.T) {
	client, err := NewClient(FirstBot{}, Options{Log: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	event := func(kind EventKind) *Event { return &Event{Kind: kind} }
	slice := func(seat, start uint32, events ...*Event) *DecisionRequest {
		obs := observation(func(o *Observation) { o.Seat, o.HistoryStart, o.History = seat, start, events })
		r := request(DecisionKind_DECISION_KIND_PLAY, obs, nil)
		client.fullHistory(r)
		return r
	}
	slice(0, 0, event(EventKind_EVENT_KIND_TURN_STARTED))
	slice(2, 0, event(EventKind_EVENT_KIND_TURN_STARTED), event(EventKind_EVENT_KIND_DREW))
	r := slice(0, 1, event(EventKind_EVENT_KIND_DREW), event(EventKind_EVENT_KIND_PLAYED_FACE_UP))
	if h := r.GetObservation().GetHistory(); len(h) != 3 || h[2].GetKind() != EventKind_EVENT_KIND_PLAYED_FACE_UP {
		t.Fatalf("seat 0 sees %v", h)
	}
	if r.GetObservation().GetHistoryStart() != 0 {
		t.Fatal("history_start is not 0")
	}
	// a re-sent request carries the whole history again, from 0
	r = slice(2, 0, event(EventKind_EVENT_KIND_TURN_STARTED), event(EventKind_EVENT_KIND_DREW), event(EventKind_EVENT_KIND_MOVED))
	if len(r.GetObservation().GetHistory()) != 3 {
		t.Fatalf("seat 2 sees %v", r.GetObservation().GetHistory())
	}
}

func TestAMatchAwayLongerThanItsGraceIsForgotten(t *testing.T) {
	var lines []string
	client, err := NewClient(FirstBot{}, Options{Log: func(line string) { lines = append(lines, line) }})
	if err != nil {
		t.Fatal(err)
	}
	short, long := seatKey{"7.1", 0}, seatKey{"8.1", 1}
	client.started[short], client.started[long] = 1_000, 30_000
	client.histories[short], client.histories[long] = []*Event{{}}, []*Event{{}}
	client.streamEndedAt = time.Now().Add(-2 * time.Second)
	client.forgetLostMatches()
	if _, kept := client.started[short]; kept || client.histories[short] != nil {
		t.Fatal("the match with a 1 s grace is still kept after 2 s away")
	}
	if _, kept := client.started[long]; !kept || len(client.histories[long]) != 1 {
		t.Fatal("the match with a 30 s grace was forgotten")
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "match 7.1: away 2.0 s, longer than its reconnect grace; forgetting it") {
		t.Fatalf("logged %q", lines)
	}
	// a resumed MatchStarted for the kept match keeps its history
	client.matchStarted(&MatchStarted{MatchId: "8.1", Seat: 1, Resumed: true, ReconnectGraceMs: 30_000})
	if len(client.histories[long]) != 1 || !strings.HasSuffix(lines[len(lines)-1], "match 8.1 resumed: seat 1, on a new stream") {
		t.Fatalf("history %v, logged %q", client.histories[long], lines)
	}
}

func TestTheReconnectDelayBacksOffWithJitterAndStaysShortMidMatch(t *testing.T) {
	if d := reconnectDelay(500*time.Millisecond, false, 0); d != 250*time.Millisecond {
		t.Fatalf("%v", d)
	}
	if d := reconnectDelay(30*time.Second, false, 0.999); d < 29*time.Second || d > 30*time.Second {
		t.Fatalf("%v", d)
	}
	if d := reconnectDelay(30*time.Second, true, 0.5); d != 2*time.Second {
		t.Fatalf("with matches in progress: %v", d)
	}
}
