"""A slow, independent referee: it follows a match's unredacted event log and checks every event
against RULES.md, written again here with card codes (no code of ``games/engine`` is used).

It knows every hand from the deal, so it can say which trick each card wins, which cantos, tutes,
exchanges and draws the table must declare (C8–C10, CB3, D2, D4, D5), or, with ``declarations: manual``,
who must be asked to declare and what they may declare (C10m), how the hand scores
(CL4, CB4, SU5, SP3, D6, IN3, C13) and when the match ends (CL5, CB5, SU6, SP3, D6, IN3).
"""

from __future__ import annotations

from typing import Any

from .helpers import (
    ALL_CODES,
    CODES_36,
    SUITS,
    c5_refusal,
    c6_winner,
    points,
    rank,
    suit,
)

TUTE_VARIANTS = ("clasico", "individual", "dos")
DECLARATION_EVENTS = ("canto", "tute", "exchange", "pass")
AUCTION_VARIANTS = ("subastado", "subastado_parejas")


class Referee:
    def __init__(self, variant: str, options: dict[str, Any], players: int):
        self.variant = variant
        self.options = options
        self.n = players
        self.pairs = variant in ("clasico", "subastado_parejas")
        self.sides = 2 if self.pairs else players
        self.scoreboard = [0] * self.sides
        self.next_dealer: int | None = None
        self.finished = False
        self.expect: list[str] = ["hand_started"]  # event types that may come next
        self.pending: list[dict[str, Any]] = []  # declarations and draws the table must make next
        self.hands_played = 0
        self.hand: dict[str, Any] = {}
        self.winners: list[int] | None = None
        self.manual = options.get("declarations") == "manual" and variant != "cabron"  # C10m

    # -- what the tests ask ---------------------------------------------------------------
    def side(self, seat: int) -> int:
        return seat % 2 if self.pairs else seat

    @property
    def stock_phase(self) -> bool:
        return self.variant == "dos" and self.hand["face_up"] is not None

    def refusal(self, seat: int, card: str) -> str | None:
        """The code the engine must refuse ``card`` with, for the seat to act (None: legal)."""
        h = self.hand
        return c5_refusal(h["hands"][seat], [x for _, x in h["trick"]], card, h["trump"], self.stock_phase)

    def legal(self, seat: int) -> set[str]:
        return {x for x in self.hand["hands"][seat] if self.refusal(seat, x) is None}

    def seat_to_act(self) -> int | None:
        return None if self.finished else self.hand.get("turn")

    # -- the log --------------------------------------------------------------------------
    def feed(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if self.hand.get("declaring") and not self.pending:  # C10m: a seat's declaration turn
            assert kind in DECLARATION_EVENTS, f"{kind} during a declaration turn: {event}"
            self._declared(kind, event["seat"], event["data"])
            return
        if self.pending:
            want = self.pending.pop(0)
            assert event == want, f"expected {want}, got {event}"
            if not self.pending:
                self._after_declarations()
            return
        assert kind in self.expect, f"{kind} while expecting {self.expect}: {event}"
        getattr(self, "_" + kind)(event["seat"], event["data"])

    def _hand_started(self, seat: None, data: dict[str, Any]) -> None:
        n = self.n
        dealer = data["dealer"]
        if self.next_dealer is not None:
            assert dealer == self.next_dealer, "C11: the deal passes to the next seat"
        mano = (dealer + 1) % n
        assert data["mano"] == mano
        deck = data["deck"]
        full = CODES_36 if n == 3 else ALL_CODES  # C1, CB1, SU1, IN1
        assert sorted(deck) == sorted(full) and len(deck) == len(full)
        hands: list[set[str]] = [set() for _ in range(n)]
        trump = trump_card = face_up = None
        stock: list[str] = []
        if self.variant == "dos":  # D1
            size = self.options["hand_size"]
            for i, x in enumerate(deck[: 2 * size]):
                hands[(mano + i) % 2].add(x)
            face_up = deck[2 * size]
            trump = suit(face_up)
            stock = deck[2 * size + 1 :]
        else:  # C11: one at a time from the mano; the dealer gets the last card
            for i, x in enumerate(deck):
                hands[(mano + i) % n].add(x)
            if self.variant in ("clasico", "individual"):  # CL1, IN1
                trump_card = deck[-1]
                trump = suit(trump_card)
        assert [set(x) for x in data["hands"]] == hands
        assert data["trump"] == trump and data["trump_card"] == trump_card and data["face_up"] == face_up
        assert data["stock"] == stock
        self.hand = {
            "dealer": dealer,
            "mano": mano,
            "hands": hands,
            "trump": trump,
            "face_up": face_up,
            "stock": stock,
            "trick": [],
            "turn": mano,
            "lead": mano,
            "tricks": 0,
            "total_tricks": len(deck) // n,
            "taken": [0] * n,
            "sung": [0] * n,
            "won": [0] * n,
            "last_won": [-1] * n,
            "sung_suits": set(),
            "tute": None,
            "over": False,
            "played": [],
            "bids": [],
            "passed": set(),
            "high": 0,
            "bidder": None,
            "soloist": None,
            "declaring": [],  # C10m: the seats still to be asked, the one asked first
            "declared": set(),  # what the seat asked did in its turn: "canto", "exchange"
        }
        self.expect = ["bid", "pass"] if self.variant in AUCTION_VARIANTS else ["card_played"]
        if self.options.get("tute_on_deal") and self.variant in TUTE_VARIANTS:  # C9: before the first trick
            for i in range(n):
                if self._tute((mano + i) % n):
                    break

    # -- the auction (SU2, SU3, SP1, SP2) -------------------------------------------------
    def _bid(self, seat: int, data: dict[str, Any]) -> None:
        self._auction(seat, data["amount"])

    def _pass(self, seat: int, data: dict[str, Any]) -> None:
        assert data == {}
        self._auction(seat, 0)

    def _auction(self, seat: int, amount: int) -> None:
        h = self.hand
        assert seat == h["turn"]
        if amount:
            step, lowest = self.options["bid_step"], self.options["min_bid"]
            assert amount > h["high"] and amount <= 230 and (amount - lowest) % step == 0 and amount >= lowest
            h["high"], h["bidder"] = amount, seat
        else:
            h["passed"].add(seat)
        h["bids"].append(amount)
        n = self.n
        once = self.variant == "subastado" and self.options["auction_rounds"] == 1
        if once:
            over = len(h["bids"]) == n
            h["turn"] = (seat + 1) % n
        else:
            active = [s for s in range(n) if s not in h["passed"]]
            over = not active or active == [h["bidder"]]
            if not over:
                h["turn"] = next((seat + i) % n for i in range(1, n + 1) if (seat + i) % n not in h["passed"])
        if not over:
            return
        if h["bidder"] is None:  # SU3, SP2: a passed hand
            h["over"] = True
            h["turn"] = None
            self.expect = ["hand_finished"]
        else:
            h["soloist"] = h["turn"] = h["bidder"]  # SU4, SP2
            self.expect = ["trump_chosen"]

    def _trump_chosen(self, seat: int, data: dict[str, Any]) -> None:
        h = self.hand
        assert seat == h["soloist"]
        h["trump"] = data["suit"]
        h["turn"] = h["lead"] = seat  # SU4: the soloist leads
        self.expect = ["card_played"]

    # -- tricks -----------------------------------------------------------------------------
    def _card_played(self, seat: int, data: dict[str, Any]) -> None:
        h = self.hand
        card = data["card"]
        assert seat == h["turn"], f"seat {seat} played out of turn ({h['turn']})"
        assert self.refusal(seat, card) is None, f"{card} by seat {seat} breaks {self.refusal(seat, card)}"
        h["hands"][seat].remove(card)
        h["played"].append(card)
        h["trick"].append((seat, card))
        if len(h["trick"]) < self.n:
            h["turn"] = (seat + 1) % self.n
            self.expect = ["card_played"]
        else:
            h["turn"] = None
            self.expect = ["trick_won"]

    def _trick_won(self, seat: int, data: dict[str, Any]) -> None:
        h = self.hand
        trick = h["trick"]
        winner = c6_winner(trick, h["trump"])  # C6
        assert seat == winner, f"C6: {trick} is won by {winner}, not {seat}"
        last = h["tricks"] + 1 == h["total_tricks"]
        value = sum(points(x) for _, x in trick) + (10 if last else 0)  # C4
        assert data == {"trick": [{"seat": s, "card": x} for s, x in trick], "points": value, "last": last}
        h["taken"][winner] += value
        h["won"][winner] += 1
        h["last_won"][winner] = h["tricks"]
        h["tricks"] += 1
        h["trick"] = []
        h["turn"] = h["lead"] = winner
        if last:
            assert not any(h["hands"])
        if self.manual:
            self._open_declarations(winner, last)
            return
        self._declarations(winner, trick, last)
        if not self.pending:
            self._after_declarations()

    def _after_declarations(self) -> None:
        h = self.hand
        if h["tute"] is not None or h["tricks"] == h["total_tricks"]:
            h["over"] = True
            h["turn"] = None
            self.expect = ["hand_finished"]
        elif self.expect != ["bid", "pass"]:
            self.expect = ["card_played"]

    def _declarations(self, winner: int, trick: list[tuple[int, str]], last: bool) -> None:
        """What the table declares after a trick (C10), queued in ``pending``."""
        h = self.hand
        v = self.variant
        if v == "cabron":  # CB3, also in the last trick
            seen: set[str] = set()
            for _, x in trick:
                seen.add(x)
                s = suit(x)
                if rank(x) in ("12", "11") and {s + "12", s + "11"} <= seen:
                    first = h["trump"] is None
                    if first:
                        h["trump"] = s
                    self._canto(winner, s, 40 if first else 20)
            return
        if v == "dos":
            if h["face_up"] is not None:  # D2-D5: the stock has cards
                self._exchange(winner)
                if not self._tute(winner):
                    self._sing(winner)
                    self._draw(winner)
            elif self.options["cantos_in_arrastre"] and not last and not self._tute(winner):  # D5
                self._sing(winner)
            return
        if last:
            return  # C8: never after the last trick
        if v == "clasico":
            singers = [winner, (winner + 2) % 4]  # CL3
        elif v == "subastado":
            singers = [winner] if winner == h["soloist"] else []  # SU4
        elif v == "subastado_parejas":
            singers = [winner, (winner + 2) % 4] if winner % 2 == h["soloist"] % 2 else []  # SP2
        else:
            singers = [winner]  # IN2
        if v in TUTE_VARIANTS:  # C9 before any canto
            for seat in singers:
                if self._tute(seat):
                    return
        for seat in singers:
            self._sing(seat)

    # -- C10m: the players declare --------------------------------------------------------------
    def declaration_actions(self, seat: int) -> list[dict[str, Any]]:
        """What ``seat`` may declare in its turn, pass aside, in the engine's order: sing O, C, E, B, tute, exchange."""
        h = self.hand
        hand = h["hands"][seat]
        out: list[dict[str, Any]] = []
        if "canto" not in h["declared"]:  # C8: one canto per won trick
            out += [
                {"type": "sing", "suit": s}
                for s in SUITS
                if s + "12" in hand and s + "11" in hand and s not in h["sung_suits"]
            ]
        if self.variant in TUTE_VARIANTS and any({s + r for s in SUITS} <= hand for r in ("12", "11")):  # C9
            out.append({"type": "tute"})
        if "exchange" not in h["declared"] and self._exchange_give(seat) is not None:  # D4
            out.append({"type": "exchange"})
        return out

    def _open_declarations(self, winner: int, last: bool) -> None:
        h = self.hand
        v = self.variant
        if v == "dos":
            stock = h["face_up"] is not None
            seats = [winner] if stock or (self.options["cantos_in_arrastre"] and not last) else []  # D4, D5
        elif last:
            seats = []  # C8: never after the last trick
        elif v == "clasico":
            seats = [winner, (winner + 2) % 4]  # CL3: the winner first
        elif v == "subastado":
            seats = [winner] if winner == h["soloist"] else []  # SU4
        elif v == "subastado_parejas":
            seats = [winner, (winner + 2) % 4] if winner % 2 == h["soloist"] % 2 else []  # SP2
        else:
            seats = [winner]  # IN2
        h["declaring"], h["declared"] = seats, set()
        self._next_declarer()

    def _next_declarer(self) -> None:
        """C10m: a seat with nothing to declare is never asked; then the winner draws (D2) and leads."""
        h = self.hand
        while h["declaring"]:
            if self.declaration_actions(h["declaring"][0]):
                h["turn"] = h["declaring"][0]
                return
            h["declaring"], h["declared"] = h["declaring"][1:], set()
        h["turn"] = h["lead"]
        if self.stock_phase:
            self._draw(h["lead"])
        if not self.pending:
            self._after_declarations()

    def _declared(self, kind: str, seat: int, data: dict[str, Any]) -> None:
        h = self.hand
        assert seat == h["turn"] == h["declaring"][0], f"{kind} by seat {seat}, asked: {h['declaring']}"
        allowed = self.declaration_actions(seat)
        if kind == "pass":
            assert data == {}
            h["declaring"], h["declared"] = h["declaring"][1:], set()
        elif kind == "canto":
            s = data["suit"]
            assert {"type": "sing", "suit": s} in allowed, f"C10m: seat {seat} may not sing {s}: {allowed}"
            value = 40 if s == h["trump"] else 20
            assert data == {"suit": s, "points": value, "cards": [s + "12", s + "11"], "declared": True}
            h["sung_suits"].add(s)
            h["sung"][seat] += value
            h["declared"].add("canto")
        elif kind == "tute":
            assert {"type": "tute"} in allowed
            hand = h["hands"][seat]
            r = "12" if {s + "12" for s in SUITS} <= hand else "11"
            four = [s + r for s in SUITS]
            assert data == {"kind": "kings" if r == "12" else "knights", "cards": four, "declared": True}
            h["tute"] = seat
            h["declaring"] = []
            h["over"] = True
            h["turn"] = None
            self.expect = ["hand_finished"]
            return
        else:
            assert {"type": "exchange"} in allowed
            give, up = self._exchange_give(seat), h["face_up"]
            assert data == {"gave": give, "took": up, "declared": True}
            h["hands"][seat].remove(give)
            h["hands"][seat].add(up)
            h["face_up"] = give
            h["declared"].add("exchange")
        self._next_declarer()

    def _exchange_give(self, seat: int) -> str | None:
        """D4: the card ``seat`` may give for the face-up one, or None."""
        h = self.hand
        up = h["face_up"]
        if self.variant != "dos" or up is None:
            return None
        give = None
        if rank(up) in ("1", "3", "12", "11", "10"):
            give = h["trump"] + "7"
        elif rank(up) in ("4", "5", "6", "7"):
            give = h["trump"] + "2"
        return give if give is not None and give in h["hands"][seat] else None

    def _tute(self, seat: int) -> bool:
        hand = self.hand["hands"][seat]
        for kind, r in (("kings", "12"), ("knights", "11")):
            four = [s + r for s in SUITS]
            if set(four) <= hand:
                self.hand["tute"] = seat
                self.pending.append({"type": "tute", "seat": seat, "data": {"kind": kind, "cards": four}})
                return True
        return False

    def _sing(self, seat: int) -> None:
        """C8: one canto, the 40 first, then the suit held fewest, then O, C, E, B."""
        h = self.hand
        hand = h["hands"][seat]
        suits = [s for s in SUITS if s + "12" in hand and s + "11" in hand and s not in h["sung_suits"]]
        if not suits:
            return
        if h["trump"] in suits:
            chosen = h["trump"]
        else:
            chosen = min(suits, key=lambda s: (sum(1 for x in hand if suit(x) == s), SUITS.index(s)))
        self._canto(seat, chosen, 40 if chosen == h["trump"] else 20)

    def _canto(self, seat: int, s: str, value: int) -> None:
        h = self.hand
        assert s not in h["sung_suits"], "C7: a suit is sung once per hand"
        h["sung_suits"].add(s)
        h["sung"][seat] += value
        self.pending.append(
            {"type": "canto", "seat": seat, "data": {"suit": s, "points": value, "cards": [s + "12", s + "11"]}}
        )

    def _exchange(self, seat: int) -> None:
        """D4: the 7 of trump for a face-up 1, 3, 12, 11, 10; the 2 for a face-up 4-7."""
        h = self.hand
        up = h["face_up"]
        give = None
        if rank(up) in ("1", "3", "12", "11", "10"):
            give = h["trump"] + "7"
        elif rank(up) in ("4", "5", "6", "7"):
            give = h["trump"] + "2"
        if give is None or give not in h["hands"][seat]:
            return
        h["hands"][seat].remove(give)
        h["hands"][seat].add(up)
        h["face_up"] = give
        self.pending.append({"type": "exchange", "seat": seat, "data": {"gave": give, "took": up}})

    def _draw(self, winner: int) -> None:
        """D2: the winner draws first; the loser takes the face-up card after the last face-down one."""
        h = self.hand
        loser = 1 - winner
        first = h["stock"].pop(0)
        h["hands"][winner].add(first)
        self.pending.append({"type": "draw", "seat": winner, "data": {"card": first}})
        if h["stock"]:
            second = h["stock"].pop(0)
            self.pending.append({"type": "draw", "seat": loser, "data": {"card": second}})
        else:
            second, h["face_up"] = h["face_up"], None
            self.pending.append({"type": "draw", "seat": loser, "data": {"card": second, "face_up": True}})
        h["hands"][loser].add(second)

    # -- the end of a hand and of the match -------------------------------------------------
    def side_points(self) -> list[int]:
        h = self.hand
        out = [0] * self.sides
        for seat in range(self.n):
            out[self.side(seat)] += h["taken"][seat] + h["sung"][seat]
        return out

    def _hand_finished(self, seat: None, data: dict[str, Any]) -> None:
        h = self.hand
        assert h["over"]
        self.hands_played += 1
        v = self.variant
        expected: dict[str, Any]
        if h["bidder"] is None and v in AUCTION_VARIANTS:
            expected = {"passed": True}  # SU3, SP2
        else:
            pts = self.side_points()
            if h["tute"] is None:
                # Every card played once; the hand's points are 130 (120 in the deck, C4) plus its cantos.
                deck = CODES_36 if self.n == 3 else ALL_CODES
                assert sorted(h["played"]) == sorted(deck)
                assert sum(points(x) for x in deck) == 120
                assert sum(pts) == 130 + sum(h["sung"])
            expected = {"points": pts, **self._score(pts)}
            if h["tute"] is not None:
                kind = "kings" if all(s + "12" in h["hands"][h["tute"]] for s in SUITS) else "knights"
                expected["tute"] = {"seat": h["tute"], "kind": kind}
        expected = {"hand": self.hands_played, "dealer": h["dealer"], **expected, "scoreboard": self.scoreboard}
        assert data == expected, f"hand result {data} != {expected}"
        self.next_dealer = (h["dealer"] + 1) % self.n
        winners = self._match_winners()
        if winners is None:
            self.expect = ["hand_started"]
        else:
            self.winners = winners
            self.expect = ["match_finished"]

    def _score(self, pts: list[int]) -> dict[str, Any]:
        h = self.hand
        v = self.variant
        if v in ("clasico", "individual", "dos"):  # CL4, IN3, D6, C9, C13
            if h["tute"] is not None:
                winner = self.side(h["tute"])
            else:
                best = max(pts)
                tied = [side for side in range(self.sides) if pts[side] == best]
                latest = {side: max(h["last_won"][s] for s in range(self.n) if self.side(s) == side) for side in tied}
                winner = max(tied, key=lambda side: latest[side])
            self.scoreboard[winner] += 1
            return {"winner": winner}
        if v == "cabron":  # CB4, CB6
            losers = cabron_losers(pts, h["won"], self.options["zero_rule"])
            for seat in losers:
                self.scoreboard[seat] += 1
            return {"losers": losers}
        soloist, bid = h["soloist"], h["high"]
        if v == "subastado":  # SU5
            value = 2 * bid if bid >= 120 else bid
            made = pts[soloist] >= bid
            if made:
                gains = [value if s == soloist else 0 for s in range(3)]
            else:
                each = value if self.options["failed_bid"] == "each" else (value + 1) // 2
                gains = [0 if s == soloist else each for s in range(3)]
        else:  # SP3
            bidders = soloist % 2
            made = pts[bidders] >= bid
            gains = [0, 0]
            gains[bidders] = pts[bidders] if made else -bid
            gains[1 - bidders] = pts[1 - bidders]
        for side, gain in enumerate(gains):
            self.scoreboard[side] += gain
        return {"soloist": soloist, "bid": bid, "made": made, "gains": gains}

    def _match_winners(self) -> list[int] | None:
        v = self.variant
        board = self.scoreboard
        if v in ("clasico", "individual", "dos"):  # CL5, IN3, D6
            won = [side for side, games in enumerate(board) if games >= self.options["games_to_win"]]
            assert len(won) <= 1
            return won or None
        if v == "cabron":  # CB5
            if max(board) < self.options["letters"]:
                return None
            fewest = [s for s, letters in enumerate(board) if letters == min(board)]
            return fewest if len(fewest) == 1 else None
        if max(board) < self.options["target"]:  # SU6, SP3
            return None
        top = [side for side, score in enumerate(board) if score == max(board)]
        return top if len(top) == 1 else None

    def _match_finished(self, seat: None, data: dict[str, Any]) -> None:
        seats = [s for s in range(self.n) if self.side(s) in self.winners]
        assert data == {"winners": self.winners, "winner_seats": seats, "scoreboard": self.scoreboard}
        self.finished = True
        self.expect = []


def cabron_losers(pts: list[int], tricks_won: list[int], zero_rule: str = "points") -> list[int]:
    """CB4 (and CB6): the first rule that names anyone decides."""
    seats = range(len(pts))
    zero = tricks_won if zero_rule == "tricks" else pts
    rule1 = [s for s in seats if zero[s] == 0]
    if rule1:
        return rule1
    over = [s for s in seats if pts[s] > 100]
    if over:
        return over
    middle = [s for s in seats if min(pts) < pts[s] < max(pts)]
    if middle:
        return middle
    return [s for s in seats if sum(1 for t in seats if pts[t] == pts[s]) > 1]
