"""Rules section 4 (a two-player turn), 5 and 6: decisions, the blind recruit, moving,
catching and the End step. Simple mode, standard board."""

from __future__ import annotations

import json
import random

import pytest

from referee import (
    ConfigError,
    Decision,
    Discard,
    EndReason,
    EventKind,
    GameConfig,
    Mode,
    Play,
    Recruit,
    Side,
    StopDiscarding,
    legal_actions,
    new_game,
)
from referee.cards import BLACK_MARKET_CARDS, FULL_DECK
from referee.engine import shuffled
from referee.observation import observe, spectator_view
from tests.referee.scenario import (
    CB,
    DA,
    DD,
    DOWN,
    ENF,
    MOLE,
    SAB,
    SEN,
    SK,
    STOP,
    UP,
    A,
    B,
    board,
    deal,
    decision,
    events_of,
    hand,
    moves,
    new_events,
    options,
    outcome,
    play,
)

HANDS = [[ENF, SAB, CB, SEN], [DD, DA, CB, SEN]]


# --- the decisions of a turn (spec 4, 6) --------------------------------------------------


def test_a_two_player_turn_asks_discard_play_recruit_then_passes() -> None:
    s = deal(HANDS, draw=[MOLE, SK])
    assert decision(s) == (Decision.DISCARD, 0)
    assert set(legal_actions(s)) == {
        StopDiscarding(),
        *(Discard(c) for c in (ENF, SAB, CB, SEN)),
    }
    s = play(s, STOP)
    assert decision(s) == (Decision.PLAY, 0)
    ids = (ENF, SAB, CB, SEN)
    assert options(s) == {Play(u, d) for u in ids for d in ids if u != d}
    s = play(s, Play(ENF, SAB))
    assert decision(s) == (Decision.RECRUIT, 1)
    assert options(s) == {Recruit(Side.FACE_UP), Recruit(Side.FACE_DOWN)}
    s = play(s, UP)  # B: Enforcer +1; A: Saboteur -1
    assert s.pos == (13, 8) and s.gap == 7 + 1 + 1
    assert (s.active, s.turn, s.turns_done) == (B, 2, (1, 0))
    assert decision(s) == (Decision.DISCARD, 1)


def test_the_first_team_comes_from_the_configuration() -> None:
    s = deal(HANDS, first_team=B)
    assert s.active == B and decision(s) == (Decision.DISCARD, 1)


def test_without_a_configured_first_team_the_seed_draws_it() -> None:
    config = GameConfig.for_seats(2, "simple")
    firsts = {new_game(config, seed).active for seed in range(40)}
    assert firsts == {A, B}
    assert all(new_game(config, seed).active == new_game(config, seed).active for seed in range(10))


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40 + 3, 2**100, -5])
def test_a_seed_deals_what_the_standard_generator_of_that_seed_deals(seed: int) -> None:
    """new_game seeds its generator by the C method, skipping random.Random's Python
    __init__; the deal must stay the one random.Random(seed) gives (replays, digests)."""
    rng = random.Random(seed)
    first = rng.randrange(2)
    order = tuple(shuffled(FULL_DECK, rng))
    bm_order = tuple(shuffled(BLACK_MARKET_CARDS, rng))
    s = new_game(GameConfig.for_seats(2, "advanced"), seed)
    assert (s.active, s.deck_order, s.bm_order) == (first, order, bm_order)


def test_the_configuration_is_validated() -> None:
    with pytest.raises(ConfigError):
        GameConfig.for_seats(5)
    with pytest.raises(ConfigError):
        GameConfig(Mode.SIMPLE, ((0, 1), (1,)))
    with pytest.raises(ConfigError):
        new_game(GameConfig.for_seats(2), 1, deck=[ENF] * 38)


def test_draw_back_to_4_before_the_opponent_chooses() -> None:
    s = deal(HANDS, draw=[MOLE, SK, DD])
    s = play(s, Play(ENF, SAB))
    assert decision(s) == (Decision.RECRUIT, 1)
    assert hand(s, 0) == [CB, SEN, SK, MOLE]  # the two top cards, drawn already
    assert s.deck[0] == DD
    s = play(s, DOWN)
    kinds = [e.kind for e in s.events()]
    assert kinds.index(EventKind.DREW) < kinds.index(EventKind.CHOSE)


def test_the_deck_running_out_mid_draw_stops_the_draw_and_play_goes_on() -> None:
    s = board(deal(HANDS), deck=[MOLE])  # late game: one card left
    s = play(s, Play(ENF, SAB))
    assert hand(s, 0) == [CB, SEN, MOLE] and s.deck == ()
    s = play(s, DOWN)  # B: Saboteur -1, A: Enforcer +1
    assert not s.over and s.pos == (1, 6)
    assert decision(s) == (Decision.PLAY, 1), "no discard offered with an empty deck"
    s = play(s, Play(DD, DA), UP)
    assert hand(s, 1) == [CB, SEN]


# --- the blind recruit (spec 4 step 2, 10.1) -----------------------------------------------


def test_the_recruit_is_blind_and_the_face_down_card_is_revealed_after() -> None:
    s = deal([[ENF, MOLE, SAB, DA], [DD, CB, SEN, SAB]], draw=[ENF, SEN])
    s = play(s, Play(ENF, MOLE))
    assert decision(s) == (Decision.RECRUIT, 1)
    for view in (observe(s, 1), spectator_view(s)):
        assert view.offer_up == ENF
        assert view.face_down_offered is True
        assert view.my_face_down is None
        text = json.dumps(view.to_json())
        assert "MOLE" not in text, "nothing the recruiter sees names the face-down card"
    assert observe(s, 0).my_face_down == MOLE  # the player who laid it knows it
    before = s
    s = play(s, UP)
    chose = [e for e in new_events(before, s) if e.kind is EventKind.CHOSE]
    assert len(chose) == 1
    assert (chose[0].team, chose[0].side, chose[0].agent) == (B, Side.FACE_UP, MOLE)
    assert s.in_play[A][MOLE] == 1 and s.in_play[B][ENF] == 1


# --- moving and catching (spec 2, 4 step 2.3, step 3) ---------------------------------------


def test_both_meeples_move_simultaneously() -> None:
    s = deal([[DD, MOLE, SAB, DA], HANDS[1]])
    before = s
    s = play(s, Play(DD, MOLE), DOWN)  # B: Mole -3 from 7; A: Daredevil +2 from 0
    assert sorted(moves(s, since=before)) == [(A, 2, 2), (B, -3, 4)]
    assert s.pos == (2, 4) and s.gap == 2 and not s.over


def test_catching_by_reaching_the_space() -> None:
    s = board(deal([[SK, CB, SAB, DA], HANDS[1]]), a=0, b=4)
    s = play(s, Play(SK, CB), DOWN)
    assert s.pos == (4, 4) and s.gap == 0
    assert outcome(s)[:2] == (A, EndReason.CATCH)


def test_catching_by_passing() -> None:
    s = board(deal([[SK, CB, SAB, DA], HANDS[1]]), a=0, b=2)
    s = play(s, Play(SK, CB), DOWN)  # A +4 from 0 passes B on 2
    assert s.pos == (4, 2) and s.gap == -2
    assert outcome(s)[:2] == (A, EndReason.CATCH)


def test_b_catches_a_going_clockwise() -> None:
    s = board(deal([[DD, CB, SAB, DA], HANDS[1]]), a=0, b=12)
    s = play(s, Play(DD, CB), UP)  # B: Daredevil +2 from 12 reaches A on 0
    assert s.pos == (0, 0) and s.gap == 14
    assert outcome(s)[:2] == (B, EndReason.CATCH)


def test_being_passed_by_an_opponent_moving_backwards_is_a_catch() -> None:
    s = board(deal([[ENF, SAB, DA, SEN], [CB, MOLE, DD, SEN]], first_team=B), a=0, b=2)
    s = play(s, Play(CB, MOLE), UP)  # B, active, gets its own Mole: -3 past A
    assert s.pos == (0, 13) and s.gap == -1
    r = outcome(s)
    assert (r.winner, r.reason, r.tiebreak) == (A, EndReason.CATCH, False)


def test_an_opponent_that_moved_out_of_reach_in_the_same_turn_is_not_caught() -> None:
    s = board(deal([[SK, DD, SAB, DA], HANDS[1]]), a=0, b=3)
    s = play(s, Play(SK, DD), DOWN)  # A +4 (past B's old space 3), B +2 to 5
    assert s.pos == (4, 5) and s.gap == 1
    assert not s.over and s.active == B


def test_nobody_is_caught_by_a_meeple_standing_still() -> None:
    s = board(deal([[SEN, CB, SAB, DA], HANDS[1]]), a=0, b=1)
    s = play(s, Play(SEN, CB), DOWN)
    assert s.gap == 1 and not s.over


# --- End-step conditions and candidates (spec 4 step 3) -----------------------------------


def test_three_codebreakers_win_for_the_team_that_is_not_active() -> None:
    s = board(deal([[CB, SEN, SAB, DA], [DD, ENF, SEN, SAB]]), play_b=[CB, CB])
    s = play(s, Play(CB, SEN), UP)  # B recruits its 3rd Codebreaker during A's turn
    r = outcome(s)
    assert (r.winner, r.reason, r.tiebreak) == (B, EndReason.CODEBREAKERS, False)


def test_three_daredevils_lose() -> None:
    s = board(deal([[DD, SEN, SAB, DA], [CB, ENF, SEN, SAB]]), play_a=[DD, DD])
    s = play(s, Play(DD, SEN), DOWN)  # A, active, gets its 3rd Daredevil
    r = outcome(s)
    assert (r.winner, r.reason, r.tiebreak) == (B, EndReason.DAREDEVILS, False)
    assert s.pos == (0, 7), "the LOSE icon moves nothing"


def test_simultaneous_wins_go_to_the_active_team_a() -> None:
    """A catches B while B recruits its 3rd Codebreaker: two candidates, A is active."""
    s = board(deal([[SK, CB, SAB, DA], [DD, ENF, SEN, SAB]]), a=0, b=2, play_b=[CB, CB])
    s = play(s, Play(SK, CB), DOWN)
    assert s.gap == -2 and s.in_play[B][CB] == 3
    r = outcome(s)
    assert (r.winner, r.reason, r.tiebreak) == (A, EndReason.CATCH, True)


def test_simultaneous_wins_go_to_the_active_team_b() -> None:
    s = board(
        deal([[DD, ENF, SEN, SAB], [CB, SK, SAB, DA]], first_team=B), a=0, b=2, play_b=[CB, CB]
    )
    s = play(s, Play(CB, SK), DOWN)  # A gets the Sidekick (+4, catches), B its 3rd Codebreaker
    assert s.gap == -2
    r = outcome(s)
    assert (r.winner, r.reason, r.tiebreak) == (B, EndReason.CODEBREAKERS, True)


def test_a_win_and_the_other_teams_loss_name_the_same_single_candidate() -> None:
    """A recruits its 3rd Codebreaker, B its 3rd Daredevil: both make A a candidate."""
    s = board(deal([[CB, DD, SAB, DA], [ENF, SEN, SAB, DA]]), play_a=[CB, CB], play_b=[DD, DD])
    s = play(s, Play(CB, DD), DOWN)
    r = outcome(s)
    assert (r.winner, r.tiebreak) == (A, False)
    assert r.reason in (EndReason.CODEBREAKERS, EndReason.DAREDEVILS)


def test_two_candidates_from_a_win_and_a_loss_go_to_the_active_team() -> None:
    """B walks backwards past A (A catches) while A recruits its 3rd Daredevil (B wins):
    two candidates, the active team wins."""
    hands = [[DD, MOLE, SAB, DA], [CB, ENF, SEN, SAB]]
    s = board(deal(hands), a=0, b=2, play_a=[DD, DD])
    s = play(s, Play(DD, MOLE), DOWN)
    assert s.gap == -1 and s.in_play[A][DD] == 3
    r = outcome(s)
    assert (r.winner, r.reason, r.tiebreak) == (A, EndReason.CATCH, True)

    hands = [[CB, ENF, SEN, SAB], [MOLE, DD, SAB, DA]]
    s = board(deal(hands, first_team=B), a=0, b=2, play_a=[DD, DD])
    s = play(s, Play(MOLE, DD), DOWN)  # A gets its 3rd Daredevil, B its Mole
    assert s.gap == -1
    r = outcome(s)
    assert (r.winner, r.reason, r.tiebreak) == (B, EndReason.DAREDEVILS, True)


def test_both_teams_losing_gives_the_active_team_the_win() -> None:
    """Late game: A holds only two Daredevils (the identical pair is allowed) and each team
    has two in play: both recruit a 3rd Daredevil, both lose, the active team wins."""
    s = deal([[DD, DD, SAB, DA], [CB, ENF, SEN, SAB]])
    s = board(s, deck=[], hands=[[DD, DD], [CB, ENF, SEN, SAB]], play_a=[DD, DD], play_b=[DD, DD])
    assert options(s) == {Play(DD, DD)}
    s = play(s, Play(DD, DD), UP)
    assert s.in_play[A][DD] == 3 and s.in_play[B][DD] == 3
    r = outcome(s)
    assert (r.winner, r.reason, r.tiebreak) == (A, EndReason.DAREDEVILS, True)


def test_events_record_the_recruit_and_the_moves() -> None:
    s = deal([[DD, MOLE, SAB, DA], HANDS[1]])
    s = play(s, Play(DD, MOLE), DOWN)
    recruited = {(e.team, e.agent, e.amount) for e in events_of(s, EventKind.RECRUITED)}
    assert recruited == {(B, MOLE, 1), (A, DD, 1)}
