"""Fast playouts on a fully known deal: every seat plays a simple rule that sees all the cards.

level-4 evaluates a card by playing the hand out from a determinized deal; :func:`playout` does it on an
engine :class:`State` (built by :func:`games.bots.deals.build_state`, so the match stops when the hand
ends) with :func:`playout_card` at every turn: lead a card nobody can take if there is one, take a trick
when it is worth it and nobody left can beat the card, feed a partner who holds the trick, otherwise play
the cheapest card; in the stock phase of ``dos``, weigh the points and the cantos a trick brings against
the trumps it costs; in cabrón, steer away from 0, from over 100 and from the middle (CB4).
"""

from __future__ import annotations

from games.engine import EXCHANGEABLE, State, legal_cards, play_card
from games.engine.cards import ABOVE, POINTS, SUIT_MASK, cards_of

_STRENGTH = tuple(c % 10 for c in range(40))
_SUIT = tuple(c // 10 for c in range(40))
#: The bits of a suit's king and knight.
_PAIR = tuple(1 << (s * 10 + 7) | 1 << (s * 10 + 6) for s in range(4))
#: Per trump suit and card: what spending it costs beyond its points (a trump would take a trick later).
_TRUMP_COST = tuple(tuple(6 + c % 10 if c // 10 == t else 0 for c in range(40)) for t in range(4))
_NO_COST = (0,) * 40
#: Sort keys: cheapest to give away first (trump or not is added by the caller).
_CHEAP = tuple(POINTS[c] * 16 + c % 10 for c in range(40))


def p_none(pool: int, wanted: int, drawn: int) -> float:
    """The chance that ``drawn`` cards taken from ``pool`` unknown cards include none of ``wanted`` given ones."""
    if drawn <= 0 or wanted <= 0:
        return 1.0
    if pool - wanted < drawn:
        return 0.0
    p = 1.0
    for i in range(drawn):
        p *= (pool - wanted - i) / (pool - i)
    return p


#: ``_P_NONE[pool][wanted][drawn]``: the chance that ``drawn`` cards out of ``pool`` include none of ``wanted``.
_P_NONE = tuple(
    tuple(tuple(p_none(pool, wanted, drawn) for drawn in range(13)) for wanted in range(41)) for pool in range(41)
)


def _pairs(hand: int, sung: int) -> int:
    """Kings and knights that can still sing (both in hand, suit not sung)."""
    out = 0
    for suit in range(4):
        pair = _PAIR[suit]
        if hand & pair == pair and not sung >> suit & 1:
            out |= pair
    return out


def follow_mask(hand: int, led: int, best: int, trump: int) -> int:
    """C5: the cards a hand may play to a trick led in ``led`` that ``best`` is winning."""
    follow = hand & SUIT_MASK[led]
    if follow:
        if best // 10 != led:
            return follow
        return follow & ABOVE[best] or follow
    if trump < 0:
        return hand
    trumps = hand & SUIT_MASK[trump]
    if not trumps:
        return hand
    if best // 10 == trump:
        return trumps & ABOVE[best] or hand
    return trumps


def beats_mask(best: int, trump: int) -> int:
    """The cards that would take a trick that ``best`` is winning (C6)."""
    if trump >= 0 and best // 10 != trump:
        return ABOVE[best] | SUIT_MASK[trump]
    return ABOVE[best]


def teams(state: State) -> list[int]:
    """The side each seat plays for in this hand (soloist against the rest in subastado)."""
    n = state.players
    if state.variant == "subastado":
        return [1 if s == state.soloist else 0 for s in range(n)]
    rules = state.rules
    return [rules.side_of(s) for s in range(n)]


def playout_card(state: State, team: list[int]) -> int:
    """The card the seat to act plays in a playout (it sees every hand)."""
    legal = legal_cards(state)
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    if state.variant == "cabron":
        return _cabron(state, legal)
    if state.face_up >= 0:
        return _stock(state, legal)
    seat, trick, trump = state.turn, state.trick, state.trump
    n = state.players
    hands = state.hands
    mine = team[seat]
    rivals = [(seat + i) % n for i in range(1, n - len(trick))]
    rivals = [s for s in rivals if team[s] != mine]
    keep = _pairs(hands[seat], state.sung)
    cost = _TRUMP_COST[trump] if trump >= 0 else _NO_COST
    if not trick:
        # Lead a card no rival can take, the most points first; else a low card a partner takes; else the cheapest.
        later = [(seat + i) % n for i in range(1, n)]
        best_card, best_value = -1, -1000
        for suit in range(4):
            own = legal & SUIT_MASK[suit]
            if not own:
                continue
            top = own.bit_length() - 1
            safe = True
            for s in rivals:
                if follow_mask(hands[s], suit, top, trump) & beats_mask(top, trump):
                    safe = False
                    break
            if safe:
                value = POINTS[top] - cost[top] - (20 if keep >> top & 1 else 0)
            elif len(rivals) < n - 1:
                low = _cheapest(own, keep, cost)
                if _team_of_winner(hands, later, low, seat, low, trump, team) != mine:
                    continue
                value = -POINTS[low] - cost[low] - 1 - (20 if keep >> low & 1 else 0)
                top = low
            else:
                continue
            if value > best_value:
                best_card, best_value = top, value
        if best_card >= 0 and best_value > -10:
            return best_card
        return _cheapest(legal, keep, cost)
    led = _SUIT[trick[0]]
    best = state.winning_card
    later = [(seat + i) % n for i in range(1, n - len(trick))]
    if team[state.winning_seat] == mine:
        taken = False
        for s in rivals:
            if follow_mask(hands[s], led, best, trump) & beats_mask(best, trump):
                taken = True
                break
        if not taken:
            return _feed(legal, keep, trump)
    winners = legal & beats_mask(best, trump)
    if winners:
        choice, choice_key = -1, 1000
        for card in cards_of(winners):
            safe = True
            for s in rivals:
                if follow_mask(hands[s], led, card, trump) & beats_mask(card, trump):
                    safe = False
                    break
            if safe:
                key = cost[card] * 2 + _STRENGTH[card] + (40 if keep >> card & 1 else 0)
                if key < choice_key:
                    choice, choice_key = card, key
        if choice >= 0:
            on_trick = 0
            for card in trick:
                on_trick += POINTS[card]
            if on_trick or not cost[choice] or not rivals or legal == winners:
                return choice
    if len(rivals) < len(later):
        # a partner still to play: if it takes the trick whatever the rivals do, give it points
        low = _cheapest(legal, keep, cost)
        new_best, new_seat = best, state.winning_seat
        if beats_mask(best, trump) >> low & 1:
            new_best, new_seat = low, seat
        if _team_of_winner(hands, later, trick[0], new_seat, new_best, trump, team) == mine:
            return _feed(legal, keep, trump)
    return _cheapest(legal, keep, cost)


def _team_of_winner(
    hands: list[int], seats: list[int], lead: int, best_seat: int, best: int, trump: int, team: list[int]
) -> int:
    """The side that takes a trick if each of ``seats`` in turn plays its strongest legal card."""
    led = _SUIT[lead]
    for seat in seats:
        playable = follow_mask(hands[seat], led, best, trump)
        beating = playable & beats_mask(best, trump)
        if beating:
            trumps = beating & SUIT_MASK[trump] if trump >= 0 else 0
            if trumps and best // 10 != trump:
                card = (trumps & -trumps).bit_length() - 1  # the lowest trump is enough to take it
                top = trumps.bit_length() - 1
                card = top if len(seats) > 1 else card
            else:
                card = beating.bit_length() - 1
            best, best_seat = card, seat
    return team[best_seat]


def _cheapest(legal: int, keep: int, cost: tuple[int, ...]) -> int:
    best, best_key = -1, 1 << 20
    for card in cards_of(legal):
        key = _CHEAP[card] + cost[card] * 64 + (4096 if keep >> card & 1 else 0)
        if key < best_key:
            best, best_key = card, key
    return best


def _feed(legal: int, keep: int, trump: int) -> int:
    best, best_key = -1, -1000
    for card in cards_of(legal):
        spare = keep >> card & 1 or (_SUIT[card] == trump and _STRENGTH[card] >= 8)
        key = -100 if spare else POINTS[card] * 16 - _STRENGTH[card]
        if key > best_key:
            best, best_key = card, key
    return best


def _stock(state: State, legal: int) -> int:
    """dos while the stock lasts (C5.h): no duties; take points and cantos cheaply, spare trumps."""
    seat, trump = state.turn, state.trump
    hand = state.hands[seat]
    keep = _pairs(hand, state.sung)
    cost = _TRUMP_COST[trump]
    if not state.trick:
        # The leader does not see the other hand: it weighs the chance that a card there beats its lead.
        unseen = ~hand & ~state.played & ~(1 << state.face_up) & 0xFFFFFFFFFF
        pool = unseen.bit_count()
        held = state.hands[1 - seat].bit_count()
        best, best_value = -1, -1000.0
        for card in cards_of(legal):
            wanted = (beats_mask(card, trump) & unseen).bit_count()
            taken = 1.0 - _P_NONE[pool][wanted][held]
            value = (1 - 2 * taken) * POINTS[card] - cost[card] - (25 if keep >> card & 1 else 0)
            value = value * 16 - _STRENGTH[card]
            if value > best_value:
                best, best_value = card, value
        return best
    led = state.trick[0]
    swap = 0
    face_up = state.face_up
    if hand & EXCHANGEABLE[trump] and POINTS[face_up] >= 2:
        swap = POINTS[face_up] // 2 + 3  # winning lets the table swap the 7 of trump for it (D4)
    best, best_value = -1, -1000
    beating = beats_mask(led, trump)
    for card in cards_of(legal):
        points = POINTS[led] + POINTS[card]
        broken = 0
        if keep >> card & 1:
            broken = 40 if _SUIT[card] == trump else 20
        if beating >> card & 1:
            after = keep & ~_PAIR[_SUIT[card]] if broken else keep
            now = 40 if after & _PAIR[trump] else (20 if after else 0)
            value = points + 2 + now + swap
        else:
            value = -points
        value = (value - cost[card] - broken) * 16 - _STRENGTH[card]
        if value > best_value:
            best, best_value = card, value
    return best


def _cabron(state: State, legal: int) -> int:
    """CB4: take a trick while at 0, stop once high, stay out of the middle."""
    seat = state.turn
    points = [state.taken[s] + state.sung_points[s] for s in range(state.players)]
    mine = points[seat]
    others = [p for s, p in enumerate(points) if s != seat]
    cards = cards_of(legal)
    on_trick = sum(POINTS[c] for c in state.trick)
    want = mine == 0 or (mine + on_trick <= 90 and mine >= max(others))
    if not state.trick:
        if want:
            return max(cards, key=lambda c: (_STRENGTH[c], -POINTS[c]))
        return min(cards, key=lambda c: (_STRENGTH[c], POINTS[c]))
    beating = beats_mask(state.winning_card, state.trump)
    winners = [c for c in cards if beating >> c & 1]
    losers = [c for c in cards if not beating >> c & 1]
    if want and winners:
        return max(winners, key=lambda c: (_STRENGTH[c], -POINTS[c]))
    if losers:
        if want:
            return max(losers, key=lambda c: (_STRENGTH[c], -POINTS[c]))
        return min(losers, key=lambda c: (POINTS[c], -_STRENGTH[c]))
    return min(cards, key=lambda c: (_STRENGTH[c], POINTS[c]))


def playout(state: State, team: list[int] | None = None) -> None:
    """Play the hand to its end in place (the state must come from ``build_state``)."""
    team = team if team is not None else teams(state)
    while state.status == "active" and state.phase == "play":
        play_card(state, playout_card(state, team), None)
