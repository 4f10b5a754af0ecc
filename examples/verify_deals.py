#!/usr/bin/env python3
"""Verify a Tute match's deals from its record alone (docs/fair-deals.md): standard library only.

    curl -H "Authorization: Bearer $TOKEN" $API/api/v1/matches/$ID/record > record.json
    python3 verify_deals.py record.json      # exit status 0: every deck verifies
"""

import hashlib
import hmac
import json
import sys

SUITS, RANKS = "OCEB", ("2", "4", "5", "6", "7", "10", "11", "12", "3", "1")  # each suit weakest first


def stream(key, seeds, label):  # HMAC-SHA256 in counter mode, read as 4-byte big-endian numbers
    message = b"tute-deals-v1" + b"".join(len(s).to_bytes(2, "big") + s for s in (x.encode() for x in seeds))
    mixed = hmac.new(key, message, hashlib.sha256).digest()
    for counter in range(2**32):
        block = hmac.new(mixed, label.encode() + b":" + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        yield from (int.from_bytes(block[i:i + 4], "big") for i in range(0, 32, 4))


def below(numbers, n):  # uniform in 0..n-1: skip numbers at or over the largest multiple of n
    return next(x for x in numbers if x < 2**32 - 2**32 % n) % n


def main(path):
    with open(path, encoding="utf-8") as file:
        record = json.load(file)
    deals, failed = record["deals"], []
    key, seeds = bytes.fromhex(deals["key"]), [s or "" for s in deals["client_seeds"]]
    order = [suit + rank for suit in SUITS for rank in RANKS if len(seeds) != 3 or rank != "2"]  # C1
    if hashlib.sha256(key).hexdigest() != deals["commitment"]:
        failed.append("the key does not hash to the commitment")
    if deals["deck_order"] != order:
        failed.append("the record's deck order is not the published one")
    drawn = deals.get("first_dealer", "drawn") == "drawn"  # "fixed": the rules chose it (a ladder match)
    if drawn and record["hands"] and record["hands"][0]["dealer"] != below(stream(key, seeds, "dealer"), len(seeds)):
        failed.append("the first dealer is not the one drawn")
    dealt = [(h["number"], h["deck"]) for h in record["hands"]]
    dealt += [(e["data"]["hand"], e["data"]["deck"]) for e in record["events"] if e["type"] == "hand_started"]
    for number, deck in dealt:
        derived, numbers = list(order), stream(key, seeds, f"deck:{number}")
        for i in range(len(derived) - 1, 0, -1):  # Fisher-Yates
            j = below(numbers, i + 1)
            derived[i], derived[j] = derived[j], derived[i]
        if deck != derived:
            failed.append(f"the deck of hand {number} is not the one derived")
    print("\n".join(failed) or f"OK: commitment and {len(record['hands'])} deck(s) verified")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
