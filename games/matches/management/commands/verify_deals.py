"""``python manage.py verify_deals <record.json>``: check a match's deals from its record alone (C12v).

The record is the body of ``GET /api/v1/matches/{id}/record`` saved as JSON. The command recomputes
the commitment from the revealed key, the first dealer and every deck from the key and the seeds
(:mod:`games.engine.fair_deals`, docs/fair-deals.md), and compares them with what the record says was
dealt: the hands' decks and the ``hand_started`` events. ``examples/verify_deals.py`` does the same
with nothing but Python's standard library.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import engine
from games.engine import fair_deals
from games.engine.cards import CODES, parse


def problems_of(record: Mapping[str, Any]) -> list[str]:
    """What does not verify in a record; empty when the commitment, the first dealer and every deck do."""
    deals = record.get("deals")
    if not deals:
        return ["the record has no deals to verify (a seeded match, C12, or one created before C12v)"]
    key = bytes.fromhex(deals["key"])
    seeds = deals["client_seeds"]
    found = []
    if fair_deals.commitment(key) != deals["commitment"]:
        found.append("the key does not hash to the commitment")
    order = fair_deals.deck_order(record["variant"], record["options"])
    if deals["deck_order"] != order:
        found.append("the deck order is not the published one")
    players = engine.player_count(record["variant"], record["options"])
    if len(seeds) != players:
        found.append(f"{len(seeds)} client seeds for {players} seats")
        return found
    hands = record["hands"]
    drawn = deals.get("first_dealer", "drawn") == "drawn"  # "fixed": the rules chose it (L1)
    if drawn and hands and hands[0]["dealer"] != fair_deals.first_dealer(key, seeds, players):
        found.append("the first dealer is not the one drawn")
    order_ints = [parse(code) for code in order]
    dealt = [("hand", h["number"], h["deck"]) for h in hands]
    dealt += [("hand_started event of hand", e["data"]["hand"], e["data"]["deck"])
              for e in record["events"] if e["type"] == "hand_started"]  # fmt: skip
    for where, number, deck in dealt:
        derived = [CODES[c] for c in fair_deals.deck_for(key, seeds, number, order_ints)]
        if deck != derived:
            found.append(f"the deck of {where} {number} is not the one derived")
    return found


class Command(BaseCommand):
    help = (
        "Verify the deals of a match that is over from its record (GET /api/v1/matches/{id}/record saved as"
        " JSON): the commitment, the first dealer and every deck (docs/fair-deals.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("record", help="the record's JSON file, or - for standard input")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            if opts["record"] == "-":
                record = json.load(sys.stdin)
            else:
                with open(opts["record"], encoding="utf-8") as file:
                    record = json.load(file)
            found = problems_of(record)
        except (OSError, ValueError, KeyError, TypeError, engine.EngineError) as error:
            raise CommandError(f"not a match record: {error!r}") from None
        if found:
            raise CommandError("the deals do NOT verify:\n- " + "\n- ".join(found))
        fixed = record["deals"].get("first_dealer") == "fixed"
        dealer = "" if fixed else "the first dealer and "
        rules = " (the rules fixed the first dealer)" if fixed else ""
        self.stdout.write(
            f"OK: the key hashes to the commitment {record['deals']['commitment']}; {dealer}"
            f"{len(record['hands'])} deck(s) are the ones derived from the key and the seeds{rules}."
        )
