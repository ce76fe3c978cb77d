// The heuristic bot: it reads the board (a port of the TypeScript starter's heuristicBot).
package main

// Moves is the meeple move for the 1st, 2nd and 3rd+ copy in play (rules section 1).
var Moves = map[Agent][3]int{
	Agent_AGENT_DOUBLE_AGENT: {-1, 6, -1},
	Agent_AGENT_ENFORCER:     {1, 2, 3},
	Agent_AGENT_CODEBREAKER:  {0, 0, 0},
	Agent_AGENT_SABOTEUR:     {-1, -1, -2},
	Agent_AGENT_DAREDEVIL:    {2, 3, 0},
	Agent_AGENT_SENTINEL:     {0, 2, 6},
	Agent_AGENT_SIDEKICK:     {4, 4, 4},
	Agent_AGENT_MOLE:         {-3, -3, -3},
}

// Copies of each agent in the 38-card deck (rules section 1), in the enum's order.
var Copies = []struct {
	Agent Agent
	N     int
}{
	{Agent_AGENT_DOUBLE_AGENT, 6},
	{Agent_AGENT_ENFORCER, 6},
	{Agent_AGENT_CODEBREAKER, 6},
	{Agent_AGENT_SABOTEUR, 6},
	{Agent_AGENT_DAREDEVIL, 6},
	{Agent_AGENT_SENTINEL, 6},
	{Agent_AGENT_SIDEKICK, 1},
	{Agent_AGENT_MOLE, 1},
}

// Win is a won (or lost) game, in spaces: more than any move.
const Win = 100

func count(cards []*CardCount, agent Agent) int {
	n := 0
	for _, c := range cards {
		if c.GetAgent() == agent {
			n += int(c.GetCount())
		}
	}
	return n
}

// InPlay is how many copies of agent team has in play.
func InPlay(obs *Observation, team uint32, agent Agent) int {
	teams := obs.GetTeams()
	if int(team) >= len(teams) {
		return 0
	}
	return count(teams[team].GetInPlay(), agent)
}

// Outcome is the end step (rules section 4) after team recruits ours and the other team
// theirs, seen from team: Win or -Win when the game ends, else how many spaces the turn
// gains on the opponent. Black Market effects are ignored.
func Outcome(obs *Observation, team uint32, ours, theirs Agent) int {
	other := 1 - team
	copies := func(t uint32, agent Agent) int { return InPlay(obs, t, agent) + 1 }
	move := func(t uint32, agent Agent) int {
		n := copies(t, agent)
		if n > 3 {
			n = 3
		}
		return Moves[agent][n-1] // an agent not in Moves (none) moves 0
	}
	mine := move(team, ours)
	theirsMove := move(other, theirs)
	// The gap is the clockwise distance from team A's meeple to team B's (section 2).
	gap := int(obs.GetGap())
	if team == 0 {
		gap -= mine - theirsMove
	} else {
		gap -= theirsMove - mine
	}
	wins := func(t uint32, agent, otherAgent Agent) bool {
		caught := (t == 0 && gap <= 0) || (t == 1 && gap >= 14)
		return caught ||
			(agent == Agent_AGENT_CODEBREAKER && copies(t, agent) >= 3) ||
			(otherAgent == Agent_AGENT_DAREDEVIL && copies(1-t, otherAgent) >= 3)
	}
	weWin := wins(team, ours, theirs)
	theyWin := wins(other, theirs, ours)
	switch {
	case weWin && theyWin:
		if obs.GetActiveTeam() == team {
			return Win
		}
		return -Win
	case weWin:
		return Win
	case theyWin:
		return -Win
	}
	return mine - theirsMove
}

// AgentCount is an agent and a number of copies.
type AgentCount struct {
	Agent Agent
	N     int
}

// Unseen are the agents this seat has not seen, with how many copies of each: any of
// them may be the card offered face down.
func Unseen(obs *Observation) []AgentCount {
	var left []AgentCount
	for _, c := range Copies {
		seen := count(obs.GetHand(), c.Agent) + count(obs.GetDiscards(), c.Agent) +
			InPlay(obs, 0, c.Agent) + InPlay(obs, 1, c.Agent)
		if obs.GetOfferUp() == c.Agent {
			seen++
		}
		if c.N > seen {
			left = append(left, AgentCount{c.Agent, c.N - seen})
		}
	}
	return left
}

// best is the index of the first choice with the highest score.
func best(request *DecisionRequest, score func(*Choice) int) int {
	index, top := 0, 0
	for i, c := range request.GetLegal() {
		if s := score(c); i == 0 || s > top {
			index, top = i, s
		}
	}
	return index
}

func find(request *DecisionRequest, match func(*Choice) bool) int {
	for i, c := range request.GetLegal() {
		if match(c) {
			return i
		}
	}
	return -1
}

// HeuristicBot judges a turn by where it leaves the two meeples: a catch, a third
// Codebreaker (a win) or a third Daredevil (a loss) outweighs any move. It plays the pair
// whose worse case (the opponent takes the card that hurts us more) is best; recruits the
// side that is better on average over the cards it has not seen (so it does not hand over
// the opponent's third Codebreaker, nor gamble a hidden card when a third Daredevil would
// lose); discards the Mole. Anything else: the first legal choice.
type HeuristicBot struct{}

func (HeuristicBot) Version() string { return "go-heuristic-1" }

func (HeuristicBot) Decide(request *DecisionRequest) int {
	obs := request.GetObservation()
	us := obs.GetTeam()
	them := 1 - us
	switch request.GetKind() {
	case DecisionKind_DECISION_KIND_DISCARD:
		if i := find(request, func(c *Choice) bool { return c.GetDiscard().GetCard() == Agent_AGENT_MOLE }); i >= 0 {
			return i
		}
		if i := find(request, func(c *Choice) bool { return c.GetStopDiscarding() != nil }); i >= 0 {
			return i
		}
		return 0
	case DecisionKind_DECISION_KIND_PLAY:
		return best(request, func(c *Choice) int {
			up, down := c.GetPlay().GetFaceUp(), c.GetPlay().GetFaceDown()
			return min(Outcome(obs, us, down, up), Outcome(obs, us, up, down))
		})
	case DecisionKind_DECISION_KIND_PLAY_FACE_UP, DecisionKind_DECISION_KIND_PLAY_FACE_DOWN:
		// Team play: one card each; keep the ones worth more to us than to them.
		return best(request, func(c *Choice) int {
			card := c.GetPlayFaceUp().GetCard()
			if card == Agent_AGENT_UNSPECIFIED {
				card = c.GetPlayFaceDown().GetCard()
			}
			return Outcome(obs, us, card, Agent_AGENT_UNSPECIFIED) - Outcome(obs, them, card, Agent_AGENT_UNSPECIFIED)
		})
	case DecisionKind_DECISION_KIND_RECRUIT:
		up := obs.GetOfferUp()
		hidden := Unseen(obs)
		total := 0
		for _, h := range hidden {
			total += h.N
		}
		if total == 0 {
			total = 1
		}
		mean := func(f func(Agent) int) float64 {
			sum := 0
			for _, h := range hidden {
				sum += h.N * f(h.Agent)
			}
			return float64(sum) / float64(total)
		}
		takeUp := mean(func(down Agent) int { return Outcome(obs, us, up, down) })
		takeDown := mean(func(down Agent) int { return Outcome(obs, us, down, up) })
		side := Side_SIDE_FACE_DOWN
		if takeUp >= takeDown {
			side = Side_SIDE_FACE_UP
		}
		if i := find(request, func(c *Choice) bool { return c.GetRecruit() != nil && c.GetRecruit().GetSide() == side }); i >= 0 {
			return i
		}
	}
	return 0
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
