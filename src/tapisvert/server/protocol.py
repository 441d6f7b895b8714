"""The WebSocket protocol, version 1: one pydantic model per message type.

A client sends JSON objects with a ``type``; the server answers with the message types
below. Every client message may carry an ``id`` that the server echoes in its ``ack``
or ``error``, so that a client can match answers to requests and a repeated request
is recognised. ``schemas()`` gives the JSON schema of every message, served at
``/api/protocol``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tapisvert.server.speeds import LONGEST_CLOCK, TimeoutRule

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 8192

Name = Annotated[str, Field(min_length=1, max_length=32)]
MAX_ID_LENGTH = 64
MAX_OPTION_VALUE = 64
"""The longest value an option is set to after the table is created (a message, ``/option``)."""
RequestId = Annotated[str, Field(max_length=MAX_ID_LENGTH)]
TableId = Annotated[int, Field(ge=1, le=2**31 - 1)]
SeatIndex = Annotated[int, Field(ge=0, le=15)]
OptionValue = str | int | bool | None


class ClientMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: RequestId | None = None


class Hello(ClientMessage):
    """The first message of a connection: the session token from ``/api/guest`` or login."""

    type: Literal["hello"]
    version: int
    token: Annotated[str, Field(max_length=512)]
    language: Literal["en", "fr"] | None = None


class EnterRoom(ClientMessage):
    type: Literal["enter"]
    room: Name


class FollowTournament(ClientMessage):
    """Read the chat of a tournament (its lines so far, then each as it is said), while its
    page is open; ``None``: stop. One tournament's chat at a time, besides the room's."""

    type: Literal["tournament"]
    tournament: TableId | None = None


class Chat(ClientMessage):
    """A line of chat in a room or at a table; a line starting with ``/`` is a command."""

    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1, max_length=500)]
    room: Name | None = None
    table: TableId | None = None


class CreateTable(ClientMessage):
    type: Literal["create"]
    room: Name
    game: Name
    players: Annotated[int, Field(ge=1, le=16)]
    options: dict[Annotated[str, Field(max_length=32)], OptionValue] = Field(
        default_factory=dict, max_length=16
    )
    clock: Annotated[float, Field(ge=1, le=LONGEST_CLOCK)] | None = None
    """Seconds a move; an hour or more makes a table played over days."""
    timeout: TimeoutRule = "bot"
    rated: bool = True


class Join(ClientMessage):
    type: Literal["join"]
    table: TableId
    seat: SeatIndex | None = None


class TableRequest(ClientMessage):
    """Leave, watch or start a table, or ask for the rematch of a finished one (its ``ack``
    names the new table)."""

    type: Literal["leave", "watch", "start", "rematch"]
    table: TableId


class SetOption(ClientMessage):
    type: Literal["option"]
    table: TableId
    name: Name
    value: Annotated[str, Field(max_length=MAX_OPTION_VALUE)]


class AddBot(ClientMessage):
    type: Literal["bot"]
    table: TableId
    level: Name
    seat: SeatIndex | None = None


class Invite(ClientMessage):
    """Seat the bot account ``name`` (someone's program, connected now) at the table."""

    type: Literal["invite"]
    table: TableId
    name: Name
    seat: SeatIndex | None = None


class Act(ClientMessage):
    """Play ``action`` (the game's notation) at the position numbered ``seq``."""

    type: Literal["act"]
    table: TableId
    seq: Annotated[int, Field(ge=0)]
    action: Annotated[str, Field(min_length=1, max_length=64)]


class TakeBack(ClientMessage):
    """Take back one's last move (``ask``), or answer another player's request at a rated
    table (``yes``, ``no``); ``seq`` is the position the person sees, when they see one."""

    type: Literal["undo"]
    table: TableId
    seq: Annotated[int, Field(ge=0)] | None = None
    answer: Literal["ask", "yes", "no"] = "ask"


class Who(ClientMessage):
    type: Literal["who"]
    room: Name | None = None
    table: TableId | None = None


class PlayNow(ClientMessage):
    """A table of this person and bots of ``level`` in every other seat, started at once;
    with ``friends``, the other seats left open for the people this person invites."""

    type: Literal["play_now"]
    room: Name
    game: Name
    level: Name = "easy"
    friends: bool = False


class Ping(ClientMessage):
    type: Literal["ping", "help"]


Incoming = Annotated[
    Hello
    | EnterRoom
    | FollowTournament
    | Chat
    | CreateTable
    | PlayNow
    | Join
    | TableRequest
    | SetOption
    | AddBot
    | Invite
    | Act
    | TakeBack
    | Who
    | Ping,
    Field(discriminator="type"),
]
incoming: TypeAdapter[Incoming] = TypeAdapter(Incoming)


class ServerMessage(BaseModel):
    model_config = ConfigDict(frozen=True)


class Welcome(ServerMessage):
    type: Literal["welcome"] = "welcome"
    version: int = PROTOCOL_VERSION
    user: str
    language: str
    rooms: list[str]


class Error(ServerMessage):
    """A refusal, sent to the one client that asked; nothing changed."""

    type: Literal["error"] = "error"
    id: str | None = None
    code: str
    message: str


class Reconnect(ServerMessage):
    """This server is stopping: connect again (through the same address, which leads to
    another node or to this one restarted) and say ``hello`` anew. The socket closes next,
    with code 1012; every request answered before it is done, any other was not."""

    type: Literal["reconnect"] = "reconnect"


class Ack(ServerMessage):
    """The request ``id`` was done; for a move, ``seq`` is the position after it.

    A move is acknowledged by the mover's next ``view`` instead, when the connection that
    sent it follows its seat (``View.ack``)."""

    type: Literal["ack"] = "ack"
    id: str | None = None
    table: int | None = None
    seq: int | None = None


class SeatView(ServerMessage):
    name: str | None
    kind: Literal["empty", "human", "bot"]
    level: str | None = None
    present: bool = False
    replaced: bool = False
    """A bot plays for this absent person until they come back."""
    owner: str | None = None
    """Who owns the bot account sitting here (``None``: a person, or a built-in bot)."""


class SeatRating(ServerMessage):
    """A seat's rating in the game before and after a rated game (OpenSkill's μ − 3σ)."""

    before: float
    after: float


class TakeBackAsked(ServerMessage):
    """A player's request, at a rated table, to take back their last move."""

    seat: int
    agreed: list[int]
    """The seats that agreed so far; it is taken back once every other seat has."""


class TableInfo(ServerMessage):
    """What anybody in the room may know of a table."""

    type: Literal["table"] = "table"
    table: int
    room: str
    game: str
    players: int
    options: dict[str, Any]
    clock: float | None
    """Seconds a move; an hour or more: a table played over days (see ``speeds``)."""
    timeout: TimeoutRule = "bot"
    """Over days, what happens when a person's clock runs out."""
    deadline: float | None = None
    """When the clock of the person to act runs out (seconds since 1970), if one runs."""
    status: Literal["open", "playing", "finished", "closed"]
    """``closed``: an open table nobody was at, removed for good."""
    seats: list[SeatView]
    spectators: int
    result: list[float] | None = None
    rated: bool = True
    """A finished game changes the ratings of the accounts at the table."""
    ratings: list[SeatRating | None] | None = None
    """Once a rated game is over, each seat's rating change (``None``: a guest, say)."""
    take_back: TakeBackAsked | None = None


class RoomInfo(ServerMessage):
    type: Literal["room"] = "room"
    id: str | None = None
    room: str
    tables: list[TableInfo]
    people: list[str]


class View(ServerMessage):
    """One seat's view after move ``seq``: its observation, and its legal moves if it acts.

    A ``full`` view holds the whole observation; the others hold only the top-level keys
    that changed since the previous view of the same table, to be merged into it, and in
    ``append`` (present when there are some) the items added at the end of a list that only
    grew (a history of tricks, rounds or deals), to be added to it.
    """

    type: Literal["view"] = "view"
    table: int
    seq: int
    seat: int | None
    ack: str | None = None
    """In the mover's view, the ``id`` of the ``act`` that led to it: the move is committed.

    A connection that follows its seat gets no separate ``ack`` for a move."""
    to_act: int | None
    legal: list[str]
    deadline: float | None
    full: bool
    view: dict[str, Any]
    append: dict[str, list[Any]] = {}
    result: list[float] | None = None
    winners: list[int] | None = None
    """Once the game is over, its winners as the game decides them (tie-breaks included)."""
    take_back: bool = False
    """The seat may take back its last move now (see ``taking_back``)."""


class ChatLine(ServerMessage):
    type: Literal["chat"] = "chat"
    room: str | None = None
    table: int | None = None
    sender: str
    text: str
    history: bool = False
    """Said before this client came: the recent lines, sent on entering, following, hello."""
    line: str | None = None
    """The line's own id: a moderator removes it (``unsay``), anyone signed in reports it."""


class Unsay(ServerMessage):
    """A moderator removed this chat line: clients drop it from the room's or table's log."""

    type: Literal["unsay"] = "unsay"
    room: str | None = None
    table: int | None = None
    line: str


class Notice(ServerMessage):
    """Something the table or the room is told, already in the reader's language."""

    type: Literal["notice"] = "notice"
    id: str | None = None
    room: str | None = None
    table: int | None = None
    key: str
    text: str
    history: bool = False
    """Told before this client came (see ``ChatLine.history``)."""
    rematch: int | None = None
    """The table of the rematch this notice announces."""


class People(ServerMessage):
    """The answer to ``who``."""

    type: Literal["people"] = "people"
    id: str | None = None
    room: str | None = None
    table: int | None = None
    people: list[str]
    text: str = ""
    """Who sits where (or who is in the room) in words, in the reader's language."""


class YourTurn(ServerMessage):
    """It is the person's turn at a table played over days, until ``deadline``: sent to
    each of their connections, wherever they are in the page."""

    type: Literal["your_turn"] = "your_turn"
    table: int
    game: str
    deadline: float


class PrivateMessage(ServerMessage):
    """A private message, sent to its recipient's connections and its sender's; an
    invitation names its ``table``. ``history``: sent before this connection came (unread
    messages, on hello)."""

    type: Literal["message"] = "message"
    message: int
    """The message's number, the same on every connection that receives it."""
    sender: str
    recipient: str
    text: str
    table: int | None = None
    sent_at: float
    read: bool = False
    history: bool = False


class Friend(ServerMessage):
    name: str
    online: bool
    tables: list[int]
    """The open or playing tables where they sit."""


class SocialInfo(ServerMessage):
    """One person's friends (with where they are), friend requests both ways, the people
    they ignore and their unread messages: sent on hello and after every change."""

    type: Literal["social"] = "social"
    friends: list[Friend]
    asked_by: list[str]
    """Who asked to be their friend."""
    asking: list[str]
    """Whom they asked."""
    ignored: list[str]
    unread: int


OUTGOING: tuple[type[ServerMessage], ...] = (
    Welcome,
    Error,
    Ack,
    TableInfo,
    RoomInfo,
    View,
    ChatLine,
    Unsay,
    Notice,
    People,
    PrivateMessage,
    YourTurn,
    SocialInfo,
    Reconnect,
)
INCOMING: tuple[type[ClientMessage], ...] = (
    Hello,
    EnterRoom,
    FollowTournament,
    Chat,
    CreateTable,
    PlayNow,
    Join,
    TableRequest,
    SetOption,
    AddBot,
    Invite,
    Act,
    TakeBack,
    Who,
    Ping,
)


def schemas() -> dict[str, Any]:
    """The JSON schema of every message, by direction and model name."""
    return {
        "version": PROTOCOL_VERSION,
        "client": {model.__name__: model.model_json_schema() for model in INCOMING},
        "server": {model.__name__: model.model_json_schema() for model in OUTGOING},
    }
