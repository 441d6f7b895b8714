"""Many tables of one game stepped together in one process, through Gymnasium's vector API.

Every seat of every table is the learner (self-play): each ``step`` takes one compact action
index per table, for the seat to act there, and answers the next seat's tensor and mask, as
batches (``{"observation": (num_envs, size) float32, "action_mask": (num_envs, actions)
int8}``). Each tensor is the one the seat's observation gives (``Encoding.write_state``),
written into the batch in place: no observation is built where the game's encoding reads
the state, which is what makes it faster than Gymnasium's ``SyncVectorEnv`` of single-seat
environments.

``reward[i]`` is what the seat that acted at table ``i`` was paid by its move (see
``tapisvert.envs``: a round's or a game's end pays every seat); ``info["rewards"][i]`` is
what each seat was paid, and ``info["seat"][i]`` the seat whose tensor row ``i`` holds (the
seat to act; at a game's end, the last to act, with an empty mask). Autoreset follows
Gymnasium's default, ``AutoresetMode.NEXT_STEP``: the step after a table's game ended deals
it a new game, ignoring its action (any index: its mask allows none), and pays nothing.
Elsewhere an index the mask does not allow raises ``ValueError``. Table ``i`` seeded with
``seed`` deals what ``SingleSeatEnv`` seeded with ``seed + i`` deals.

>>> import numpy
>>> from tapisvert.envs.vector import TablesVectorEnv
>>> tables = TablesVectorEnv("wizard", num_envs=16, players=4, rounds="first5")
>>> observations, infos = tables.reset(seed=1)
>>> observations["observation"].shape, observations["action_mask"].shape
((16, 424), (16, 79))
>>> actions = numpy.argmax(observations["action_mask"], axis=1)
>>> observations, rewards, terminated, truncated, infos = tables.step(actions)
>>> rewards.shape, infos["rewards"].shape
((16,), (16, 4))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tapisvert.core.extras import needs

with needs("research", "tapisvert.envs.vector"):
    import numpy
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
    from numpy.typing import NDArray

from tapisvert.core.game import Action, Seat
from tapisvert.envs.table import Table

DEAL_SEEDS = 2**31
"""A table's deals are drawn below this, as ``SingleSeatEnv`` draws its own."""


class TablesVectorEnv(VectorEnv[dict[str, Any], NDArray[numpy.int64], NDArray[Any]]):
    """``num_envs`` tables of game ``name`` with ``players`` seats and the game's options."""

    def __init__(
        self,
        name: str,
        num_envs: int,
        players: int | None = None,
        copy: bool = True,
        **options: Any,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs is the number of tables, at least 1, not {num_envs}")
        self.num_envs = num_envs
        table = Table.of(name, players, options)
        self.encoding = table.encoding
        """The layout and action space, and what every table writes through: it keeps the
        templates of all their seats and a view of each row (``keep_tables``), and the
        parts of positions it converted once, for all. (An encoding per table would keep as
        many copies of what it converts, whose collection by the garbage collector cost a
        third of the steps.)"""
        self.encoding.keep_tables(num_envs)
        self.tables = [table] + [Table(table.game, self.encoding) for _ in range(num_envs - 1)]
        self.players = table.game.players
        self.copy = copy
        self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
        self.render_mode = None
        self.single_observation_space = table.observation_space()
        self.single_action_space = table.action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._tensors = numpy.zeros((num_envs, *self.encoding.shape), dtype=numpy.float32)
        self._masks = numpy.zeros((num_envs, self.encoding.action_count), dtype=numpy.int8)
        self._rows = list(self._tensors)
        self._mask_rows = list(self._masks)
        """Each table's row of the batch, kept as a view: written in place at every step."""
        self._seats: list[Seat] = [0] * num_envs
        self._ended = [False] * num_envs
        self._legal: list[list[Action]] = [[] for _ in range(num_envs)]
        """The legal actions of each table's seat to act, as its mask shows them."""
        self._deals = [numpy.random.default_rng() for _ in range(num_envs)]

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game at every table; ``seed`` (one, or one per table) makes them repeat."""
        if options:
            raise ValueError(f"TablesVectorEnv.reset takes no options, got {sorted(options)}")
        if seed is not None:
            seeds = (
                [seed + index for index in range(self.num_envs)]
                if isinstance(seed, int)
                else list(seed)
            )
            if len(seeds) != self.num_envs:
                raise ValueError(f"{self.num_envs} seeds to give, one per table, got {len(seeds)}")
            self._deals = [numpy.random.default_rng(each) for each in seeds]
        self._masks.fill(0)
        self._ended = [False] * self.num_envs
        for index in range(self.num_envs):
            self._deal(index)
        return self._batch(), self._infos(numpy.zeros((self.num_envs, self.players)))

    def step(
        self, actions: NDArray[numpy.int64] | Sequence[int]
    ) -> tuple[
        dict[str, Any],
        NDArray[numpy.float64],
        NDArray[numpy.bool_],
        NDArray[numpy.bool_],
        dict[str, Any],
    ]:
        """One decision at every table (a new game where the last step ended one).

        Every index is checked before any table moves: a refused step changes nothing."""
        chosen = numpy.asarray(actions)
        if chosen.shape != (self.num_envs,):
            raise ValueError(
                f"one action index per table: shape ({self.num_envs},), not {chosen.shape}"
            )
        seats, ended, legal = self._seats, self._ended, self._legal
        moves = [
            None
            if ended[index]
            else table.encoding.action_of(table.state, index_chosen, legal[index])
            for index, (table, index_chosen) in enumerate(
                zip(self.tables, chosen.tolist(), strict=True)
            )
        ]
        for index, move in enumerate(moves):
            if move is None and not ended[index]:
                raise ValueError(
                    f"{chosen[index]} is not a legal action index at table {index} "
                    f"(seat {seats[index]}): choose one its action_mask allows"
                )
        rewards = numpy.zeros(self.num_envs)
        paid = numpy.zeros((self.num_envs, self.players))
        terminated = numpy.zeros(self.num_envs, dtype=numpy.bool_)
        for index, (table, move) in enumerate(zip(self.tables, moves, strict=True)):
            if move is None:
                ended[index] = False
                self._deal(index)
                continue
            payments = table.play(move)
            if any(payments):
                paid[index] = payments
                rewards[index] = payments[seats[index]]
            state = table.state
            if state.is_terminal():
                terminated[index] = ended[index] = True
                table.encoding.write_state(self._rows[index], state, seats[index])
                self._mask_rows[index].fill(0)  # nothing to choose: the others' are rewritten
            else:
                self._observe(index)
        return self._batch(), rewards, terminated, numpy.zeros_like(terminated), self._infos(paid)

    def _deal(self, index: int) -> None:
        """A new game at table ``index``, drawn from its generator, and its first view."""
        self.tables[index].reset(int(self._deals[index].integers(DEAL_SEEDS)))
        self._observe(index)

    def _observe(self, index: int) -> None:
        """The row of table ``index``: the tensor and legal mask of its seat to act."""
        table = self.tables[index]
        state, encoding = table.state, table.encoding
        seat: Seat = state.current_player()
        self._seats[index] = seat
        encoding.write_state(self._rows[index], state, seat)
        self._legal[index] = encoding.write_legal(self._mask_rows[index], state)

    def _batch(self) -> dict[str, Any]:
        tensors, masks = self._tensors, self._masks
        if self.copy:
            tensors, masks = tensors.copy(), masks.copy()
        return {"observation": tensors, "action_mask": masks}

    def _infos(self, paid: NDArray[numpy.float64]) -> dict[str, Any]:
        every = numpy.ones(self.num_envs, dtype=numpy.bool_)
        seats = numpy.array(self._seats, dtype=numpy.int64)
        return {"seat": seats, "_seat": every, "rewards": paid, "_rewards": every}

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the tables hold no outside resource."""
