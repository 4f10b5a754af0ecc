// Types that openapi-typescript generated from the schema (make contract), used as a TypeScript app would:
// tsc --strict must accept what the service sends, nulls included.
import type { components } from "../var/tute-api";

type Match = components["schemas"]["Match"];
type Seat = Match["seats"][number];

const botSeat: Seat = { seat: 1, kind: "bot", player: null, bot: "level-1" };
const notDealt: Match["hand"] = null;
const noWinners: Match["winners"] = null;
const play: components["schemas"]["PlayActionRequest"] = { type: "play", card: "O1", expected_seq: 3 };

// A record's events are typed: a hand_started event of the record deals every hand (narrowed by its type).
type RecordedEvent = components["schemas"]["RecordedEvent"];
const dealt = (event: RecordedEvent): string[][] | null => (event.type === "hand_started" ? event.data.hands : null);
const stockOf = (replay: components["schemas"]["Replay"]): string[] => replay.table?.hand.stock ?? [];
const roomCode = (room: components["schemas"]["Room"]): string => room.invite_code;

export { botSeat, notDealt, noWinners, play, dealt, stockOf, roomCode };
