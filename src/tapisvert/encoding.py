"""Observations as fixed-size numeric tensors, and a fixed action space with a legal mask.

For learning agents: each game's ``encoding`` module (named by its plugin) subclasses
:class:`Encoding`. A tensor is computed from a seat's observation and nothing else, so it
holds exactly what that seat may know; where speed matters, ``write_state`` writes the same
tensor from the state without building the observation. This is the one module of the
library that needs numpy (the ``research`` extra); nothing imports it unless asked.

>>> import tapisvert
>>> from tapisvert.encoding import encoding_for
>>> game = tapisvert.load_game("wizard", players=4)
>>> encoding = encoding_for(game)
>>> state = game.new_initial_state(seed=7)
>>> state.resolve_chance()
>>> observation = state.observation(state.current_player())
>>> encoding.encode(observation).shape == encoding.shape
True
>>> int(encoding.legal_mask(observation, state.legal_actions()).sum())
2
"""

from __future__ import annotations

import functools
import struct
from abc import ABC, abstractmethod
from array import array
from collections import deque
from collections.abc import Callable, Hashable, Iterable, MutableSequence, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Final, Generic, Protocol, TypeVar, cast

from mypy_extensions import i32, mypyc_attr

from tapisvert.core.cache import IdentityCache
from tapisvert.core.extras import needs
from tapisvert.core.game import Action, Game, Observation, Seat, State
from tapisvert.core.registry import plugin

with needs("research", "tapisvert.encoding"):
    import numpy
    from librt.vecs import vec
    from numpy.typing import NDArray

Tensor = NDArray[numpy.float32]
Mask = NDArray[numpy.bool_]
K = TypeVar("K")
T = TypeVar("T")
H = TypeVar("H", bound=Hashable)
V = TypeVar("V")
BLOCKS_KEPT: Final = 4096
"""Blocks a :func:`block_cache` keeps: a few per seat of each table in play, 64 tables say."""
ID_TABLE_SPAN: Final = 1 << 16
"""The widest span of action ids that a table from id to index covers (see ``Encoding``)."""
PIECES_KEPT: Final = 16384
"""Pieces a :class:`Blocks` keeps: the values a part of a position takes over many games."""


@dataclass(frozen=True)
class Field:
    """A named run of the tensor: ``tensor[start:stop]`` means ``meaning``. (A class of its
    own, not a named tuple: compiled, reading ``start`` is then a field's read, not a call.)"""

    name: str
    start: int
    stop: int
    meaning: str

    @property
    def size(self) -> int:
        return self.stop - self.start

    def block(self, index: int, size: int) -> Field:
        """The ``index``-th run of ``size`` values in a field made of such runs (a seat's)."""
        start = self.start + index * size
        if index < 0 or start + size > self.stop:
            raise ValueError(f"{self.name} holds no block {index} of {size} values")
        return Field(f"{self.name}[{index}]", start, start + size, self.meaning)


@mypyc_attr(allow_interpreted_subclasses=True)
class Encoding(ABC):
    """A game's tensor layout and action space, fixed by its player count and options.

    A subclass declares its fields in ``__init__`` with :meth:`field`, writes them in
    :meth:`encode`, and lists its seats' decisions in ``actions`` (the compact index of an
    action is its position there) unless it overrides :meth:`action_index` and
    :meth:`action_at`. Seats are relative to the observer: 0 is the observer, 1 the next
    seat in turn order, and so on (a spectator sees from seat 0).

    It also sizes what a library must know before the first game (OpenSpiel does):
    ``chance_actions``, every chance outcome being an action below it; ``longest_game``, the
    most decisions a game can take (``None`` where the rules set no bound); ``score_bounds``,
    the lowest and highest final score of a seat (``None`` where the rules set none).
    """

    low: float = -1.0
    """The smallest value a tensor may hold (scores may be negative); the largest is 1."""

    def __init__(
        self,
        game: Game[Any],
        actions: Sequence[Action],
        chance_actions: int,
        longest_game: int | None,
        score_bounds: tuple[float, float] | None,
    ) -> None:
        self.game = game
        self.players = game.players
        self.fields: list[Field] = []
        self.actions: tuple[Action, ...] = tuple(actions)
        self.chance_actions = chance_actions
        self.longest_game = longest_game
        self.score_bounds = score_bounds
        self._index = {action: index for index, action in enumerate(self.actions)}
        self._templates_made: list[Templates] = []
        self._stagings_made: list[Staging] = []
        self._mask_view = RecentViews(checked_mask)
        self._tensor_bytes = RecentViews(tensor_bytes)
        """The bytes of the tensors written lately, for a game's encoding that writes its
        tensors as pieces (see :meth:`put`)."""
        cls = type(self)
        self._index_reads_observation = (
            cls.action_index is not Encoding.action_index or cls.action_at is not Encoding.action_at
        )
        """Whether the compact indices depend on the seat's observation (its hand, say)."""
        first = self.actions[0] if self.actions else 0
        self._first = first if self.actions == tuple(range(first, first + len(actions))) else None
        """The first action, where the actions are a run of ids: an index is then an id less it."""
        self._lowest = min(self.actions, default=0)
        span = max(self.actions, default=-1) + 1 - self._lowest
        self._index_by_id = (
            tuple(
                self._index.get(action, -1) for action in range(self._lowest, span + self._lowest)
            )
            if span <= ID_TABLE_SPAN
            else None
        )
        """``_index`` as a table from the lowest action's id on, for the actions of a mask:
        compiled, a look-up there is a read, where one in the dictionary hashes the id. None
        where the ids are spread too far for a table (a game's own ids may be anything)."""

    def __reduce__(self) -> tuple[Any, tuple[Game[Any]]]:
        """Pickled as its class and game, which a game's encoding is built from (OpenSpiel
        serialises a state by pickling it): what it remembers is left behind."""
        return (type(self), (self.game,))

    @property
    def size(self) -> int:
        return self.fields[-1].stop if self.fields else 0

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.size,)

    @property
    def action_count(self) -> int:
        return len(self.actions)

    def field(self, name: str, size: int, meaning: str) -> Field:
        """Append a field of ``size`` values to the layout."""
        added = Field(name, self.size, self.size + size, meaning)
        self.fields.append(added)
        self._tensor_bytes.size = added.stop
        self._mask_view.size = self.action_count
        return added

    def templates(self, parts: int) -> Templates:
        """The seats' templates of ``parts`` parts each, for a game's encoding that writes
        its tensors from them (see ``Templates``)."""
        made = Templates(self.size, parts)
        self._templates_made.append(made)
        return made

    def staging(self) -> Staging:
        """A staging of this encoding's tensors (see :class:`Staging`), made once its fields
        are declared, for a game's encoding that sets its tensors' values one by one."""
        made = Staging(self.size)
        self._stagings_made.append(made)
        return made

    def put(self, tensor: Tensor, pieces: list[bytes]) -> None:
        """Set ``tensor`` to ``pieces`` laid end to end (each the float32 bytes of a run of
        the layout, in order, from :class:`Blocks` mostly): for a game's encoding that
        writes its tensors whole, a piece per field or per seat of a field. Joining
        ready-made pieces costs less than setting a tensor's values one by one."""
        self._tensor_bytes(tensor)[:] = b"".join(pieces)

    def keep_tables(self, tables: int) -> None:
        """Keep what the tensors of ``tables`` tables written in turn reuse, as a vector
        environment's are, rather than what one table's do (never less than kept already):
        the templates of every seat (and a spectator), and a view of each table's rows
        (and of a few other buffers)."""
        for templates in self._templates_made:
            templates.kept = max(templates.kept, tables * (self.players + 1))
        for views in (self._mask_view, self._tensor_bytes):
            views.kept = max(views.kept, 2 * tables)  # room for a few buffers beside the rows
        for staging in self._stagings_made:
            staging.targets.kept = max(staging.targets.kept, 2 * tables)

    def describe(self) -> str:
        """The layout, one line per field: the field-by-field documentation. A field that
        these players and options leave empty (Abluxxen's duel dummy outside the duel) says
        so instead of a range."""
        return "\n".join(
            f"{item.start:5}–{item.stop - 1:<5} {item.name}: {item.meaning}"
            if item.size
            else f"{'':11} {item.name}: {item.meaning} (empty here: no values)"
            for item in self.fields
        )

    def encode(self, observation: Observation) -> Tensor:
        """The tensor of ``observation``: float32, of ``shape``, within [``low``, 1]."""
        tensor = numpy.zeros(self.shape, dtype=numpy.float32)
        self.write(tensor, observation)
        return tensor

    @abstractmethod
    def write(self, tensor: Tensor, observation: Observation) -> None:
        """Fill the zeroed ``tensor`` from ``observation``."""

    def encode_state(self, state: State, seat: Seat | None) -> Tensor:
        """The tensor of ``state.observation(seat)``, without building that observation
        where the game's encoding reads the state itself (see :meth:`write_state`)."""
        tensor = numpy.empty(self.shape, dtype=numpy.float32)
        self.write_state(tensor, state, seat)
        return tensor

    def write_state(self, tensor: Tensor, state: State, seat: Seat | None) -> None:
        """Set every value of ``tensor`` to the tensor of ``state.observation(seat)``.

        Building an observation costs more than the engine's move: a game's encoding may
        override this to read ``state`` directly, taking what that observation holds and
        nothing else (the tests compare both ways at every position they play). Into a
        buffer kept from one position to the next (a row of a batch), nothing is allocated.
        """
        tensor.fill(0.0)
        self.write(tensor, state.observation(seat))

    def write_legal(self, mask: NDArray[Any], state: State) -> list[Action]:
        """Set ``mask`` (one-dimensional, of integers or booleans, a value per action) to the
        legal mask of the seat to act in ``state``, 1 at the compact index of each legal
        action and 0 elsewhere (whatever it held before: a buffer kept from one decision to
        the next needs no clearing), and answer those actions: :meth:`legal_mask` without
        building the seat's observation where the compact indices do not depend on it (they
        do not unless :meth:`action_index` is overridden; where they do, see
        :meth:`legal_indices`)."""
        if state.current_player() < 0:
            raise ValueError("no seat is to act here: a mask is for a seat's decision")
        legal = state.legal_actions()
        out, whole, zeros = self._mask_view(mask)
        whole[:] = zeros
        if self._index_reads_observation:
            indices = self.legal_indices(state, legal)
            if isinstance(indices, range) and indices.step == 1:  # a run: one slice
                mask[indices.start : indices.stop] = 1
            else:
                for at in indices:
                    out[at] = 1
        elif self._first is not None:
            first = self._first
            for action in legal:
                out[action - first] = 1
        elif (index_by_id := self._index_by_id) is not None:
            lowest = self._lowest
            for action in legal:
                out[index_by_id[action - lowest]] = 1
        else:
            index = self._index
            for action in legal:
                out[index[action]] = 1
        return legal

    def legal_indices(self, state: State, legal: Sequence[Action]) -> Iterable[int]:
        """The compact indices of ``legal``, the legal actions of the seat to act in
        ``state``, where they depend on what that seat holds: from its observation, unless a
        game's encoding reads them from the state (with :meth:`action_at_state`). A
        ``range`` (not in the order of ``legal``) says they are that run of indices."""
        if not self._index_reads_observation:
            return [self.index_of(action) for action in legal]
        observation = state.observation(state.current_player())
        return [self.action_index(observation, action) for action in legal]

    def action_at_state(self, state: State, index: int) -> Action:
        """:meth:`action_at` for the seat to act in ``state``, where indices depend on what
        that seat holds (see :meth:`legal_indices`)."""
        self.check_index(index)
        if not self._index_reads_observation:
            return self.actions[index]
        return self.action_at(state.observation(state.current_player()), index)

    def action_of(
        self, state: State, index: int, legal: Sequence[Action] | None = None
    ) -> Action | None:
        """The legal action at compact ``index`` of the seat to act in ``state``, or
        ``None`` (an index out of range, or of an action not legal now); ``legal``: the
        legal actions, where they are known already."""
        if self._index_reads_observation:
            try:
                action = self.action_at_state(state, index)
            except (IndexError, ValueError):
                return None
        elif 0 <= index < len(self.actions):
            action = self.actions[index]
        else:
            return None
        return action if action in (state.legal_actions() if legal is None else legal) else None

    def action_index(self, observation: Observation, action: Action) -> int:
        """The compact index (``0 <= index < action_count``) of a seat's ``action``."""
        return self.index_of(action)

    def action_at(self, observation: Observation, index: int) -> Action:
        """The game's action at compact ``index`` (the inverse of :meth:`action_index`)."""
        self.check_index(index)
        return self.actions[index]

    def check_index(self, index: int) -> None:
        """Refuse an index outside the action space: a negative one would otherwise name an
        action counted from the end."""
        if not 0 <= index < self.action_count:
            raise IndexError(
                f"no action at index {index}: the indices are 0 to {self.action_count - 1}"
            )

    def index_of(self, action: Action) -> int:
        """The compact index of ``action`` among ``actions``, which depends on nothing a seat
        holds."""
        try:
            return self._index[action]
        except KeyError:
            raise ValueError(f"{action} is not a decision of a seat in {self.game.name}") from None

    def legal_mask(self, observation: Observation, legal_actions: Iterable[Action]) -> Mask:
        """``True`` at the compact index of every legal action."""
        mask = numpy.zeros(self.action_count, dtype=numpy.bool_)
        for action in legal_actions:
            mask[self.action_index(observation, action)] = True
        return mask

    def relative(self, observation: Observation, seat: Seat | None) -> int | None:
        """``seat`` as seen from the observer (0: the observer), ``None`` for no seat."""
        if seat is None or not 0 <= seat < self.players:
            return None
        return (seat - (observation.seat or 0)) % self.players

    def by_seat(self, observation: Observation, values: Sequence[Any]) -> list[Any]:
        """A per-seat sequence reordered from the observer on."""
        start = observation.seat or 0
        return [*values[start:], *values[:start]]


TEMPLATES_KEPT: Final = 64
"""Templates a :class:`Templates` keeps by default: enough for the seats of one table (each
single-table environment builds its own encoding) over a few games, a spectator's too, and
a few tables'. An encoding that many tables share keeps more (``Encoding.keep_tables``);
beyond what it keeps, a seat's tensor is written whole, as it would be without templates."""
UNWRITTEN: Final = object()
"""The source of a template's part not written yet: no part is written from it, and its run
holds zeros."""
UNCHANGED: Final = object()
"""What :meth:`Template.previous` answers for a part that holds its source's values already."""
SlotRun = tuple[int, int, tuple[int, ...]]
"""Where :meth:`Template.write_slots` writes a tuple of items: from ``start`` on, one slot
of ``width`` values per item, item ``x`` setting 1 at ``offsets[x]`` within its slot
(nowhere where that is -1)."""


class Template:
    """The parts of one seat's tensor that a state keeps as immutable objects (a hand, the
    finished tricks, a discard pile), written where the tensor has them and zeros elsewhere,
    with the object each part was written from.

    Between one decision of a seat and its next, a move replaces a few of those objects and
    leaves the others as they were: a part is written again only when its object changed
    (:meth:`previous`), and the tensor starts as a copy of the template, its small fields then
    written on it (see :class:`Templates`).

    The values are kept as their float32 bits in a native vector (``bits``; see
    :class:`Staging`): compiled, a value set there is a store, where one set in a tensor's
    buffer is a call that boxes the index and the value."""

    __slots__ = ("bits", "remembers", "sources", "targets")

    def __init__(self, size: int, parts: int, remembers: bool) -> None:
        self.bits: vec[i32] = _zero_bits(size)[0:size]
        self.remembers = remembers
        self.sources: list[object] = [UNWRITTEN] * parts
        self.targets = RecentViews(tensor_targets, size)
        """The tensors this template was last copied to (a table's row, say)."""

    @classmethod
    def fresh(cls, parts: int, size: int) -> Template:
        """A template of zeros that remembers nothing: every part is written (for an
        observation, which no later one follows)."""
        return cls(size, parts, remembers=False)

    def previous(self, part: int, source: object) -> object:
        """What part number ``part`` was written from (``UNWRITTEN``: nothing, its run is
        zeros), where it must be written again from ``source``; ``UNCHANGED`` where it was
        written from ``source`` or an equal object. ``source`` is then remembered.

        Equal sources write the same values (a move often builds an equal tuple again). A
        caller writes a part again whole where the answer is not ``UNCHANGED``, or, for a part
        that changes a little from one decision to the next (a hand, the cards on a trick),
        only what differs from the previous source."""
        if not self.remembers:
            return UNWRITTEN
        sources = self.sources
        was = sources[part]
        if was is source:
            return UNCHANGED
        sources[part] = source
        return UNCHANGED if was == source else was

    def write_slots(self, part: int, items: tuple[int, ...], runs: tuple[SlotRun, ...]) -> None:
        """Part number ``part``: in each run, slot ``i`` holding 1 at the offset of
        ``items[i]`` within it (see :data:`SlotRun`), the others zeros. Only the slots whose
        item changed are written again, where the part was written from as many slots (a
        hand one card of which was played, say). Several runs written from the same items
        (a card's colour and its value, say) share the finding of what changed."""
        if self.sources[part] is items:  # the most frequent answer, without a call
            return
        was = self.previous(part, items)
        if was is UNCHANGED:
            return
        bits = self.bits
        count = len(items)
        if was is not UNWRITTEN:
            assert isinstance(was, tuple)  # as a cast, less a call: a part's source
            before: tuple[int, ...] = was  # compiled, read as ints
            if len(before) == count:
                for slot in range(count):
                    old, item = before[slot], items[slot]
                    if old != item:
                        for start, width, offsets in runs:
                            at = start + slot * width
                            offset = offsets[old]
                            if offset >= 0:
                                bits[at + offset] = 0
                            offset = offsets[item]
                            if offset >= 0:
                                bits[at + offset] = ONE_BITS
                return
            clear_slots(bits, runs, before)
        for start, width, offsets in runs:
            for slot in range(count):
                offset = offsets[items[slot]]
                if offset >= 0:
                    bits[start + slot * width + offset] = ONE_BITS

    def write_flags(self, part: int, items: tuple[int, ...], start: int) -> None:
        """Part number ``part``: 1 at ``start + item`` for each of ``items`` (a group of
        cards, each its own flag), zeros elsewhere. Where ``items`` only adds to what the
        part was written from, the added are written; else the old flags are cleared first."""
        if self.sources[part] is items:  # the most frequent answer, without a call
            return
        was = self.previous(part, items)
        if was is UNCHANGED:
            return
        bits = self.bits
        added = appended(was, items)
        if added is None:
            assert isinstance(was, tuple)  # as a cast, less a call: the flags written from it
            flagged: tuple[int, ...] = was  # compiled, read as ints
            for item in flagged:
                bits[start + item] = 0
            added = items
        for item in added:
            bits[start + item] = ONE_BITS

    def write_block(
        self, part: int, source: K, start: int, blocks: IdentityCache[K, Block]
    ) -> None:
        """Part number ``part``: the block of ``source`` (see :func:`block_cache`) from
        ``start`` on, where its object changed; the values of the block it replaces are
        cleared first."""
        was = self.previous(part, source)
        if was is UNCHANGED:
            return
        bits = self.bits
        if was is not UNWRITTEN:
            for offset, _ in blocks(cast(K, was)):
                bits[start + offset] = 0
        for offset, value in blocks(source):
            bits[start + offset] = value

    def copy_to(self, tensor: Tensor) -> MutableSequence[float]:
        """Set ``tensor`` to this template's values, and answer it as a buffer of floats,
        for the small fields."""
        bits, floats = self.targets(tensor)
        bits[:] = self.bits
        return floats

    def clear(self, start: int, stop: int) -> None:
        """Zeros from ``start`` to ``stop``."""
        bits = self.bits
        for at in range(start, stop):
            bits[at] = 0


@functools.cache
def _zero_bits(size: int) -> vec[i32]:
    """``size`` zeros as float32 bits, for a template or a staging to start from (a slice
    is a copy; the vector itself is never written)."""
    return vec[i32]([0] * size)


class Templates:
    """A :class:`Template` per seat of each state written lately (the last
    ``TEMPLATES_KEPT``), to write a seat's tensor from what changed since its last one.

    A template is found by the state's identity and the seat, but what it holds is only
    trusted part by part, each part's source compared by identity (the template keeps the
    objects, which therefore are not replaced by others of the same identity): another
    state, a clone, a state of another game at the same address, get the tensor their own
    parts give. A template is written by one thread at a time: the tensors of one state are
    not to be written from several threads at once."""

    def __init__(self, size: int, parts: int, kept: int = TEMPLATES_KEPT) -> None:
        self._size = size
        self._parts = parts
        self.kept = kept
        """How many templates are kept (``Encoding.keep_tables`` raises it)."""
        self._entries: dict[tuple[int, Seat | None], Template] = {}
        self._order: deque[tuple[int, Seat | None]] = deque()
        """The keys, the first added first (see ``IdentityCache``: the first to leave)."""

    def __call__(self, state: State, seat: Seat | None) -> Template:
        key = (id(state), seat)
        template = self._entries.get(key)
        if template is None:
            entries = self._entries
            if len(entries) >= self.kept:
                del entries[self._order.popleft()]
            template = Template(self._size, self._parts, True)
            entries[key] = template
            self._order.append(key)
        return template


def values_of(tensor: Tensor) -> MutableSequence[float]:
    """``tensor`` (one-dimensional) as a buffer of floats, to write values one by one: an
    item set there costs about half of one set through numpy. (Its memoryview, typed as
    what it does: a ``cast`` would be a call of its own at every use.)"""
    return tensor.data  # type: ignore[return-value]


def float_values(tensor: Tensor) -> MutableSequence[float]:
    """:func:`values_of` a tensor, which must be of float32 (the templates and blocks copied
    into it are): a clear error for another type, rather than a failed copy further on."""
    view = values_of(tensor)
    if cast(memoryview, view).format != "f":
        raise TypeError(
            f"a tensor is written into a float32 array, not {tensor.dtype}: "
            "numpy.zeros(encoding.shape, dtype=numpy.float32)"
        )
    return view


def checked_tensor(tensor: Tensor, size: int) -> MutableSequence[float]:
    """:func:`float_values` of a tensor, which must hold ``size`` values (the encoding's): a
    clear error for another size, rather than a tensor written in part or past its end."""
    view = float_values(tensor)
    if len(view) != size:
        raise ValueError(
            f"a tensor of {len(view)} values, where this encoding's hold {size}: "
            "numpy.zeros(encoding.shape, dtype=numpy.float32)"
        )
    return view


class ZeroTarget(Protocol):
    """Where a mask's values are all set to zero at once: ``target[:] = zeros``."""

    def __setitem__(self, index: slice, values: Any, /) -> None: ...


MaskTarget = tuple[MutableSequence[int], ZeroTarget, object]
"""A mask's values to set one by one, and where and what to write to clear them all."""


def checked_mask(mask: NDArray[Any], size: int) -> MaskTarget:
    """:func:`values_of` a mask, which must hold a value for each of ``size`` actions, and
    how to zero it: its bytes and as many zero bytes (a copy costs less than numpy's
    ``fill``), or, its values not one run of memory, the mask itself and 0."""
    values = cast(MutableSequence[int], values_of(mask))
    if len(values) != size:
        raise ValueError(
            f"a mask of {len(values)} values, where this encoding has {size} actions: "
            "numpy.zeros(encoding.action_count, dtype=bool)"
        )
    raw = cast(memoryview, values)
    if raw.c_contiguous:
        return values, raw.cast("B"), bytes(raw.nbytes)
    return values, mask, 0


class ByteTarget(Protocol):
    """Where a tensor's bytes are set whole: ``target[:] = joined``."""

    def __setitem__(self, index: slice, values: bytes, /) -> None: ...


class BitsTarget(Protocol):
    """Where a tensor's values are set whole from their float32 bits (see :class:`Staging`)."""

    def __setitem__(self, index: slice, values: vec[i32], /) -> None: ...


def tensor_bytes(tensor: Tensor, size: int) -> ByteTarget:
    """The bytes of a tensor (see :func:`checked_tensor`), to set it whole at once (a tensor
    strided in memory, a column say, through numpy)."""
    view = cast(memoryview, checked_tensor(tensor, size))
    if view.c_contiguous:
        return view.cast("B")
    return StridedBytes(tensor)


class StridedBytes:
    """A tensor whose values are not one run of memory, set whole from float32 bytes (or
    their bits, which are the same memory)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor

    def __setitem__(self, index: slice, values: bytes | vec[i32], /) -> None:
        self.tensor[:] = numpy.frombuffer(memoryview(values), dtype=numpy.float32)


def float_bytes(values: Iterable[float]) -> bytes:
    """``values`` as float32 bytes: a piece of a tensor (see :meth:`Encoding.put`)."""
    return array("f", values).tobytes()


_FLOAT32: Final = struct.Struct("=f")
_INT32: Final = struct.Struct("=i")


def float32_bits(value: float) -> int:
    """``value`` rounded to a float32, whose bits read as an int32 (this machine's byte
    order, as the tensor's): what a :class:`Staging`'s values hold."""
    bits: int = _INT32.unpack(_FLOAT32.pack(value))[0]
    return bits


ONE_BITS: Final = 0x3F800000
"""1.0 as a staged value (``float32_bits(1.0)``)."""


class Staging:
    """A tensor's values set one by one in a native vector of their float32 bits
    (:func:`float32_bits`), then copied into the tensor at once: ``values =
    staging.zeros[0 : staging.size]``, the values set, then ``bits, floats =
    staging.targets(tensor)`` and ``bits[:] = values`` (``floats``, the tensor's buffer of
    floats, for a block copied after them).

    Compiled, setting a value in the vector is a store, where setting one in a tensor's
    buffer is a call that boxes the index and the value, about 20 ns: for an encoding that
    sets a few dozen values a tensor, the copy costs less than it saves. Interpreted, both
    cost the same call. (Attributes, not methods: interpreted, a call would cost more.)"""

    def __init__(self, size: int) -> None:
        self.size = size
        self.zeros: vec[i32] = _zero_bits(size)
        """Every value zero, to start a tensor's values from (a slice is a copy)."""
        self.targets = RecentViews(tensor_targets, size)
        """Each tensor copied into lately, its bits and its floats (``Encoding.keep_tables``
        keeps more)."""


def tensor_targets(tensor: Tensor, size: int) -> tuple[BitsTarget, MutableSequence[float]]:
    """The values of a tensor (see :func:`checked_tensor`) as the int32 bits of its float32s,
    to set it whole at once from a :class:`Staging`'s values (a tensor strided in memory
    through numpy), and as floats."""
    view = checked_tensor(tensor, size)
    floats = cast(memoryview, view)
    if floats.c_contiguous:
        return cast(BitsTarget, floats.cast("B").cast("i")), view
    return StridedBytes(tensor), view


class Blocks(Generic[H]):
    """The float32 bytes of a part of a position, by the part's value: ``make(value)``
    (:func:`float_bytes` of its values, or pieces of other tables joined), made once and
    looked up after, while among the ``kept`` last distinct values (beyond those, every
    block is made again as it comes).

    For a part that most often takes a value seen before, in this game or another (a
    seat's score, a set, the cards known in a hand): a look-up (hashing the value) then
    costs less than writing its values. ``blocks[value]`` is the block; a look-up from
    several threads at once may make a block twice, never a wrong one. (A class holding a
    dictionary, not a dictionary's subclass: ``[]`` on such a subclass looks its method up
    at every use, where this one's, compiled, is a plain call.)"""

    __slots__ = ("_blocks", "_kept", "_make")

    def __init__(self, make: Callable[[H], bytes], kept: int = PIECES_KEPT) -> None:
        self._blocks: dict[H, bytes] = {}
        self._make = make
        self._kept = kept

    def __getitem__(self, value: H) -> bytes:
        block = self._blocks.get(value)
        if block is None:
            blocks = self._blocks
            if len(blocks) >= self._kept:
                blocks.clear()
            block = blocks[value] = self._make(value)
        return block

    def __len__(self) -> int:
        return len(self._blocks)


def one_hot_blocks(size: int) -> tuple[bytes, ...]:
    """For each index below ``size``, ``size`` values with 1 at that index."""
    return tuple(float_bytes(float(at == index) for at in range(size)) for index in range(size))


def seat_blocks(players: int) -> tuple[dict[int, bytes], ...]:
    """``blocks[origin][seat]``: a one-hot of ``players`` values at ``seat`` as seen from
    ``origin`` (see :func:`seat_places`); a value that is no seat (chance, none) is not
    there (``.get(seat, zeros)``)."""
    rows = one_hot_blocks(players)
    return tuple(
        {seat: rows[place] for seat, place in enumerate(places)} for places in seat_places(players)
    )


def seats_in_order(players: int) -> tuple[tuple[int, ...], ...]:
    """``order[origin]``: the seats from ``origin`` on (the observer's first, then the next
    seat in turn order...), the order of per-seat values in a tensor."""
    return tuple(
        tuple((origin + step) % players for step in range(players)) for origin in range(players)
    )


def clear_slots(bits: vec[i32], runs: tuple[SlotRun, ...], items: tuple[int, ...]) -> None:
    """Zero what :meth:`Template.write_slots` wrote from ``items`` into ``runs``."""
    for start, width, offsets in runs:
        for slot in range(len(items)):
            offset = offsets[items[slot]]
            if offset >= 0:
                bits[start + slot * width + offset] = 0


def appended(before: object, after: tuple[T, ...]) -> tuple[T, ...] | None:
    """The items ``after`` holds beyond ``before``, where it starts with them (a trick one
    card longer, a deal one trick longer); ``None`` where it does not (``before`` is then
    zeroed and ``after`` written whole, by the caller)."""
    if before is UNWRITTEN:
        return after
    was = before
    assert isinstance(was, tuple)  # as a cast, less a call (a subscripted type is built)
    count = len(was)
    if count <= len(after) and after[:count] == was:
        return after[count:]
    return None


class RecentViews(Generic[V]):
    """``convert(buffer, size)``, a view of a buffer written into lately (checked to hold
    ``size`` values: :func:`checked_tensor`, say), kept for the next write into it, for the
    last ``kept`` buffers: a caller writes tensor after tensor into the same buffer (or each
    table's into its own row of a batch, tables in turn), and making the view costs more
    than finding it. Keeps those buffers alive."""

    __slots__ = ("_convert", "_last", "_views", "kept", "size")

    def __init__(self, convert: Callable[[NDArray[Any], int], V], size: int = 0) -> None:
        self._convert = convert
        self._views: dict[int, tuple[object, V]] = {}
        self._last: tuple[object, V] | None = None
        """The buffer asked for last and its view: most often asked for again (one table)."""
        self.kept = 1
        """How many buffers' views are kept (``Encoding.keep_tables`` raises it)."""
        self.size = size
        """The values a buffer must hold (an encoding's grows with its fields)."""

    def __call__(self, array: NDArray[Any]) -> V:
        entry = self._last  # one read each: another thread may replace them meanwhile
        if entry is not None and entry[0] is array:
            return entry[1]
        views = self._views
        entry = views.get(id(array))
        if entry is None or entry[0] is not array:
            entry = (array, self._convert(array, self.size))
            if len(views) >= self.kept:
                views.clear()
            views[id(array)] = entry
        self._last = entry
        return entry[1]


def seat_places(players: int) -> tuple[tuple[int, ...], ...]:
    """``places[origin][seat]``: where ``seat`` goes among per-seat values seen from
    ``origin`` (0: the observer, 1 the next seat in turn order...), computed once."""
    return tuple(
        tuple((seat - origin) % players for seat in range(players)) for origin in range(players)
    )


Block = tuple[tuple[int, int], ...]
"""A run's values that are not zero, each ``(offset, float32 bits)`` (see :func:`block_cache`)."""


def block_cache(
    size: int, write: Callable[[MutableSequence[float], K], None], kept: int = BLOCKS_KEPT
) -> IdentityCache[K, Block]:
    """The run of ``size`` values that ``write`` sets in zeros from an immutable part of a
    position (a seat's units, its chits), as its values that are not zero (a :data:`Block`),
    computed once per part while it is among the ``kept`` last.

    Most moves leave most parts of a state as the same objects: such a part's values are
    then found rather than worked out again, and set in a template
    (:meth:`Template.write_block`)."""

    def compute(part: K) -> Block:
        block = array("f", bytes(4 * size))
        write(block, part)
        return tuple(
            (offset, value) for offset, value in enumerate(array("i", block.tobytes())) if value
        )

    return IdentityCache(compute, kept)


def one_hot(tensor: Tensor, field: Field, index: int | None, value: float = 1.0) -> None:
    """Set ``value`` at ``index`` within ``field``; nothing for ``None``."""
    if index is None:
        return
    at = field.start + index
    if index < 0 or at >= field.stop:
        raise ValueError(f"{index} does not fit the {field.size} values of {field.name}")
    tensor[at] = value


def add_counts(tensor: Tensor, field: Field, items: Iterable[int], weight: float = 1.0) -> None:
    """Add ``weight`` at each item's place within ``field`` (a multiset of small ints)."""
    start, size = field.start, field.size
    for item in items:
        if not 0 <= item < size:
            raise ValueError(f"{item} does not fit the {size} values of {field.name}")
        tensor[start + item] += weight


def scaled(value: float, maximum: float) -> float:
    """``value / maximum`` clipped to [-1, 1]: a count or a score on the tensor's scale."""
    ratio = value / maximum
    return ratio if -1.0 <= ratio <= 1.0 else (1.0 if ratio > 0.0 else -1.0)


def encoding_for(game: Game[Any]) -> Encoding:
    """The encoding of ``game`` that its plugin names (``module:Class``)."""
    place = plugin(game.name).encoding
    if place is None:
        raise LookupError(f"the game {game.name} declares no tensor encoding")
    module, _, name = place.partition(":")
    built: Encoding = getattr(import_module(module), name)(game)
    return built
